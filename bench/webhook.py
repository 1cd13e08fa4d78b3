"""Webhook speed, against the floor of the same stack, measured side by side in one run.

    python -m bench.webhook [--games 40000] [--seconds 10] [--rounds 2] [--json out.json]

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
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench.games import Snapshot, make_games, restore, snapshot
from bench.procs import Procs, loadgen, machine, procs, settle, start_servers, start_sink
from service.infra.redis_server import RedisServer, connect

CONFIGS = [("ours", 1), ("floor", 1), ("ours", 2), ("floor", 2)]


def phase(
    running: Procs,
    kind: str,
    count: int,
    redis_url: str,
    api_url: str,
    games_file: Path,
    *args: str,
    baseline: Path | None = None,
    games: Snapshot | None = None,
) -> dict[str, Any]:
    if games is not None:
        restore(connect(redis_url), games)
    if kind in ("ours", "base"):  # a baseline since d143d90 queues presses too
        args = (*args, "--queued")
    targets = start_servers(running, kind, count, redis_url, api_url, baseline)
    names = [f"{kind}{index}" for index in range(count)]
    try:
        settle(0.5)
        cpu = sum(running.cpu_seconds(name) for name in names)
        result = loadgen(targets, redis_url, games_file, *args)
        cpu = sum(running.cpu_seconds(name) for name in names) - cpu
        # The servers' CPU per update, warm-up included (moves_sent counts it too).
        result["cpu_ms_per_update"] = round(1000 * cpu / max(1, result["moves_sent"]), 2)
        return result
    finally:
        for index in range(count):
            running.stop(f"{kind}{index}")
        settle(0.5)


def run(
    games: int,
    seconds: float,
    rounds: int,
    rate: float | None,
    folder: Path,
    baseline: Path | None = None,
) -> dict[str, Any]:
    report: dict[str, Any] = {"machine": machine(), "games": games, "seconds": seconds}
    configs = CONFIGS + ([("base", 1), ("base", 2)] if baseline else [])
    with RedisServer(folder / "redis", persist=False) as redis, procs(folder) as running:
        api_url = start_sink(running)
        client = connect(redis.url)
        ids = make_games(client, games)
        made = snapshot(client)
        games_file = folder / "games.json"
        games_file.write_text(json.dumps(ids))
        window = ["--warmup", "2", "--seconds", str(seconds)]
        saturation: dict[str, list[float]] = {f"{k}{c}": [] for k, c in configs}
        cpu: dict[str, list[float]] = {f"{k}{c}": [] for k, c in configs}
        checks: list[dict[str, Any]] = []
        for number in range(rounds):
            for kind, count in turns(configs, number):
                result = phase(
                    running, kind, count, redis.url, api_url, games_file,
                    "--mode", "saturate", "--concurrency", "40", *window,
                    *(["--verify"] if kind != "floor" else []), baseline=baseline, games=made,
                )  # fmt: skip
                saturation[f"{kind}{count}"].append(result["per_second"])
                cpu[f"{kind}{count}"].append(result["cpu_ms_per_update"])
                checks.append({"config": f"{kind}{count}", **result})
        sat = {name: statistics.median(values) for name, values in saturation.items()}
        offered = rate or round(sat["ours1"] / 2)
        latency_runs: dict[str, list[dict[str, float]]] = {f"{k}{c}": [] for k, c in configs}
        for number in range(rounds):  # interleaved: a slow minute of the machine hits them all
            for kind, count in turns(configs, number):
                result = phase(
                    running, kind, count, redis.url, api_url, games_file,
                    "--mode", "rate", "--rate", str(offered), *window,
                    *(["--verify"] if kind != "floor" else []), baseline=baseline, games=made,
                )  # fmt: skip
                latency_runs[f"{kind}{count}"].append(result["latency_ms"])
                checks.append({"config": f"{kind}{count}@{offered}/s", **result})
        latency = {name: median_of(runs) for name, runs in latency_runs.items()}
        report.update(
            saturation=sat,
            saturation_runs=saturation,
            offered_rate=offered,
            latency=latency,
            latency_runs=latency_runs,
            cpu_ms_per_update=cpu,
            ratio={  # ours / floor; with a baseline, also ours / base
                f"throughput_{c}": round(sat[f"ours{c}"] / sat[f"floor{c}"], 3) for c in (1, 2)
            }
            | {
                f"{p}_{c}": round(latency[f"ours{c}"][p] / latency[f"floor{c}"][p], 2)
                for c in (1, 2)
                for p in ("p50", "p99")
            }
            | (
                {
                    f"vs_base_throughput_{c}": round(sat[f"ours{c}"] / sat[f"base{c}"], 3)
                    for c in (1, 2)
                }
                if baseline
                else {}
            ),
            checks=checks,
            redis_used_memory=int(client.info("memory")["used_memory"]),
        )
    return report


def turns(configs: list[tuple[str, int]], number: int) -> list[tuple[str, int]]:
    """The configurations in round `number`'s order: as listed, then backwards, so that
    none always runs first (right after the games are made, or after the same other)."""
    return configs if number % 2 == 0 else configs[::-1]


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each percentile's median over the rounds (one round's p99 on a shared machine
    swings 2× from one minute to the next)."""
    return {key: round(statistics.median(run[key] for run in runs), 2) for key in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rate", type=float, default=None, help="fixed offered load (1/s)")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    parser.add_argument("--baseline-tree", type=Path, default=None, help="serve from here too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="burro-bench-") as folder:
        report = run(
            args.games, args.seconds, args.rounds, args.rate, Path(folder), args.baseline_tree
        )
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
