"""The chaos soak with the game state on a cluster (issue #33): bench/chaos.py's games,
players and checks, on a 3-primary Valkey/Redis Cluster with a replica each (RQ on a
Redis of its own), with the cluster's own blows besides the soak's:

- a primary SIGKILLed mid-game: its replica takes over (the cluster's node timeout, one
  second here), and the killed node comes back as the new primary's replica;
- a reshard under load: some of a primary's bucket slots moved to another, key by key,
  while games are played on them;
- memory full: every node's `maxmemory` set just under what it holds, so writes are
  refused, a worker SIGKILLed meanwhile, and the cap lifted a few seconds later.

    python -m bench.chaos_cluster --games 60 [--no-wait] [--seed 1] [--minutes 20]

By default `serve` answers a move only once a replica has it (BURRO_DURABLE_REPLICAS=1):
then no acknowledged move may be lost. `--no-wait` answers at once, as on one Redis:
the report's violations then count what a fail-over lost.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as `python bench/chaos_cluster.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis

from bench.chaos import Books, soak
from cli.stack import Stack
from service.infra.redis_cluster import LocalCluster
from service.table.buckets import BUCKETS, STRIDE


class ClusterBlows:
    """The cluster's blows, dealt by the soak's monkey (bench.chaos.Monkey)."""

    def __init__(self, cluster: LocalCluster, books: Books, seed: int) -> None:
        self.cluster, self.books = cluster, books
        self.rnd = random.Random(seed + 5)

    def deal(self, kind: str, stack: Stack) -> None:
        getattr(self, kind)(stack)

    def primary(self, _stack: Stack) -> None:
        """SIGKILL a primary; once its replica took over, start it again (empty: it
        syncs as the new primary's replica)."""
        port = self.rnd.choice(self.cluster.primary_ports())
        slot = self.bucket_slots(port)[0]
        self.cluster.kill(port)
        self.cluster.wait_promoted(slot, timeout=30)
        self.books.count("primary_kills")
        self.cluster.restart(port)

    def reshard(self, _stack: Stack) -> None:
        """Move a few bucket slots of one primary to another, under load."""
        source, target = self.rnd.sample(self.cluster.primary_ports(), 2)
        slots = self.bucket_slots(source)[: self.rnd.randint(2, 6)]
        self.cluster.move_slots(slots, target, batch=20)
        self.books.count("reshards")
        self.books.count("slots_moved", len(slots))

    def maxmemory(self, stack: Stack) -> None:
        """Writes refused for a few seconds (noeviction), a worker killed meanwhile."""
        used = max(self.used(port) for port in self.cluster.primary_ports())
        self.cluster.set_maxmemory(max(used - 4096, 1 << 20))
        time.sleep(self.rnd.uniform(0.5, 1.5))
        if "worker0" in stack.processes:
            stack.kill("worker0")
            self.books.count("killed_worker_under_maxmemory")
        time.sleep(self.rnd.uniform(1.0, 3.0))
        self.cluster.set_maxmemory(0)
        self.books.count("maxmemory_windows")

    def bucket_slots(self, port: int) -> list[int]:
        owned = [b * STRIDE for b in range(BUCKETS) if self.cluster.primary_of(b * STRIDE) == port]
        self.rnd.shuffle(owned)
        return owned

    def used(self, port: int) -> int:
        info = redis.Redis(port=port).info("memory")
        return int(info["used_memory"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--full", type=float, default=0.0, help="share of full-length games")
    parser.add_argument(
        "--no-wait", action="store_true", help="answer moves before a replica has them"
    )
    parser.add_argument("--keep", type=Path, default=None, help="keep logs and data here")
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="burro-chaos-cluster-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        with LocalCluster(folder / "cluster") as cluster:
            books = soak(
                args.games, args.seed, args.minutes, False, args.full, folder,
                cluster=cluster, durable=not args.no_wait,
            )  # fmt: skip
            server = cluster.description
    report = {
        "seconds": round(time.monotonic() - started),
        "server": server,
        "wait": not args.no_wait,
        **dict(sorted(books.counts.items())),
        "violations": len(books.violations),
    }
    print(json.dumps(report, indent=2))
    for line in books.violations[:50]:
        print(line, file=sys.stderr)
    sys.exit(1 if books.violations else 0)


if __name__ == "__main__":
    main()
