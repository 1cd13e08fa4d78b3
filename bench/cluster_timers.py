"""Timer claims per second: how fast the workers' clocks hand out the rooms whose timer
came due, on one Redis and on a 3-primary cluster (issue #33).

    python -m bench.cluster_timers [--rooms 50000] [--json out.json]

`--rooms` rooms with a timer due now are put in `rooms:timers` (their bucket's key each,
as a move leaves them: service.infra.timers), then one clock claims them look after look
(`claim_due`: one Lua call a bucket, all buckets in one batch), and then again with
their `timer` jobs queued on RQ's Redis (`fire_due`, what the clock does). Reported:
rooms claimed per second, and the cost of one look when nothing is due (every second,
per worker). Before the buckets, one look claimed at most 200 rooms (one sorted set),
once a second: 200 a second per clock.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

from service.infra import indexes, timers
from service.infra.keys import TIMERS_KEY, index_key
from service.infra.redis_cluster import LocalCluster
from service.infra.redis_server import RedisServer, connect
from service.table.buckets import new_room_id


def fill(client: redis.Redis, rooms: int, at: float) -> None:
    """`rooms` new rooms, each with its timer due at `at`."""
    with client.pipeline(transaction=False) as pipe:
        for _ in range(rooms):
            room = new_room_id()
            pipe.zadd(index_key(TIMERS_KEY, room), {room: at})
        pipe.execute()


def drain(client: redis.Redis, jobs: redis.Redis | None, now: float) -> tuple[int, float, int]:
    """Claim (and with `jobs`, fire) until nothing is due: rooms, seconds, looks."""
    started, total, looks = time.perf_counter(), 0, 0
    while True:
        looks += 1
        count = (
            timers.fire_due(client, now, jobs)
            if jobs is not None
            else len(timers.claim_due(client, now))
        )
        total += count
        if count == 0:
            return total, time.perf_counter() - started, looks


def idle_look(client: redis.Redis, now: float, rounds: int = 50) -> float:
    """Milliseconds of one look when nothing is due (the median of `rounds`)."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        timers.claim_due(client, now)
        times.append((time.perf_counter() - started) * 1000)
    return sorted(times)[len(times) // 2]


def measure(client: redis.Redis, jobs: redis.Redis, rooms: int) -> dict[str, Any]:
    now = time.time()
    fill(client, rooms, now - 1)
    claimed, seconds, looks = drain(client, None, now)
    indexes.clear(client, TIMERS_KEY)
    fill(client, rooms, now - 1)
    fired, fire_seconds, _ = drain(client, jobs, now)
    jobs.delete("rq:queue:burro")
    indexes.clear(client, TIMERS_KEY)
    return {
        "claimed": claimed,
        "claims_per_s": round(claimed / seconds),
        "looks": looks,
        "fired": fired,
        "fired_per_s": round(fired / fire_seconds),
        "idle_look_ms": round(idle_look(client, now + 10 * timers.LEASE), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=50_000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="burro-timers-") as tmp:
        folder = Path(tmp)
        with RedisServer(folder / "node", persist=False) as node:
            client = connect(node.url)
            report["one node"] = measure(client, client, args.rooms)
            with LocalCluster(folder / "cluster") as cluster:
                state = cluster.client()
                report["cluster"] = measure(state, client, args.rooms)  # type: ignore[arg-type]
                report["cluster"]["server"] = cluster.description
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
