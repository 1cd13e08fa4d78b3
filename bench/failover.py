"""What a fail-over loses, with and without WAIT (issue #33): moves committed as fast as
four writers can to rooms on one primary of a 3-primary cluster (a replica each), the
primary SIGKILLed mid-stream, its replica promoted; then each room's count of committed
moves against the moves its writers were told were committed. A SIGKILLed process on
loopback still hands the replica what it had written to the socket, so before the kill
the replica is paused (SIGSTOP, `--pause` seconds: a replica slow or cut off, as when a
node's network fails), and resumed as its primary dies: what its primary had not yet
handed the kernel (past the socket buffers) is then lost.

    python -m bench.failover [--kills 5] [--json out.json]

Each move is `Store.update` with an update id, as `serve` commits a press: with
BURRO_DURABLE_REPLICAS=1 (`WAIT 1 2000` after the script, on the room's node) and
without. "lost" counts moves acknowledged and gone after the fail-over; "refused" the
moves not acknowledged (Redis away, or no replica confirmed them: `serve` answers those
503 and the platform delivers them again); "latency" the commit's p50/p99 before the
kill, in milliseconds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import redis
from redis.exceptions import RedisClusterException

from service.infra import trips
from service.infra.redis_cluster import LocalCluster
from service.infra.redis_server import RedisServer, connect
from service.infra.store import Store
from service.table import lobby
from service.table.buckets import slot_of
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings

ANA = Actor(1, "Ana", "en")
UPDATES = itertools.count(1)
CHATS = itertools.count(-10_000, -1)
ROOMS = 16


def bump(room: Room) -> Outcome:
    room.updated += 1
    return Outcome(changed=True)


def rooms_on(store: Store, cluster: LocalCluster, port: int) -> list[str]:
    """`ROOMS` new lobbies whose slot the primary on `port` serves."""
    found: list[str] = []
    while len(found) < ROOMS:
        room = lobby.create_room(next(CHATS), None, ANA, 0.0, settings=RoomSettings())
        if cluster.primary_of(slot_of(room.id)) == port:
            assert store.create(room, lobby.changed(room), None)
            found.append(room.id)
    return found


class Writers:
    """Four threads committing moves round the rooms; what each room was told."""

    def __init__(self, store: Store, rooms: list[str]) -> None:
        self.store, self.rooms = store, rooms
        self.acked = dict.fromkeys(rooms, 0)
        self.refused = 0
        self.latency: list[float] = []
        self.killed_at: float | None = None
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.write, args=(n,)) for n in range(4)]

    def write(self, n: int) -> None:
        for room_id in itertools.cycle(self.rooms[n::4]):
            if self.stopping.is_set():
                return
            started = time.perf_counter()
            try:
                done = self.store.update(room_id, bump, next(UPDATES)) is not None
            except (redis.RedisError, RedisClusterException):
                with self.lock:
                    self.refused += 1
                time.sleep(0.01)
                continue
            with self.lock:
                if done:
                    self.acked[room_id] += 1
                if self.killed_at is None:
                    self.latency.append((time.perf_counter() - started) * 1000)


def one_kill(cluster: LocalCluster, jobs: redis.Redis, wait: bool, pause: float) -> dict[str, Any]:
    port = cluster.primary_ports()[0]
    durable = trips.Durable(1, 2000) if wait else None
    store = Store(cluster.client(), 3600, 3600, jobs=jobs, durable=durable)
    rooms = rooms_on(store, cluster, port)
    before = {r: store.load(r).updated for r in rooms}  # type: ignore[union-attr]
    writers = Writers(store, rooms)
    for thread in writers.threads:
        thread.start()
    time.sleep(1.0)
    replica = cluster.replica_of(port)
    cluster.pause(replica)
    time.sleep(pause)
    writers.killed_at = time.monotonic()
    cluster.kill(port)
    cluster.resume(replica)
    cluster.wait_promoted(slot_of(rooms[0]), timeout=30)
    time.sleep(0.5)
    writers.stopping.set()
    for thread in writers.threads:
        thread.join()
    fresh = Store(cluster.client(), 3600, 3600, jobs=jobs)
    kept = {r: fresh.load(r).updated - before[r] for r in rooms}  # type: ignore[union-attr]
    cluster.restart(port)  # back as the new primary's replica
    lat = sorted(writers.latency)
    return {
        "acked": sum(writers.acked.values()),
        "lost": sum(max(0, writers.acked[r] - kept[r]) for r in rooms),
        "refused": writers.refused,
        "p50_ms": round(statistics.median(lat), 2),
        "p99_ms": round(lat[int(len(lat) * 0.99)], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--pause", type=float, default=0.5, help="seconds the replica lags")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    report: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory(prefix="burro-failover-") as tmp,
        RedisServer(Path(tmp) / "jobs", persist=False) as node,
        LocalCluster(Path(tmp) / "cluster") as cluster,
    ):
        jobs = connect(node.url)
        report["server"] = cluster.description
        for wait in (False, True):
            runs = [one_kill(cluster, jobs, wait, args.pause) for _ in range(args.kills)]
            report["with WAIT" if wait else "without WAIT"] = {
                "runs": runs,
                **{k: sum(r[k] for r in runs) for k in ("acked", "lost", "refused")},
            }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
