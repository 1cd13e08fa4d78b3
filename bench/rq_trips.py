"""RQ's own Redis round trips a job (issue #40): N trivial jobs, enqueued as a move
enqueues them (`service.infra.queue`'s packed writes), run by `BurroWorker` in burst
mode on a counting client; the worker's round trips divided by N, less those of an
empty burst (its start and end). `--where` names the RQ functions that sent them.

    nice -n 19 .venv/bin/python -m bench.rq_trips --jobs 200 [--where] [--fail 20]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import redis

from bench.counting import CountingConnection, counting_client, since, snapshot
from service.infra.queue import QUEUE, enqueue_packed
from service.infra.redis_server import RedisServer
from workers.worker import BurroWorker

LABEL = "rq-worker"
WHERE: Counter[str] = Counter()  # round trips by the RQ/worker function that sent them


def nothing(n: str) -> None:
    """The trivial job: RQ's cost alone."""


def fail(n: str) -> None:
    """A job that raises: RQ's cost of a failure (a retry scheduled)."""
    raise RuntimeError(n)


class WhereConnection(CountingConnection):
    """Counts as `CountingConnection` does, and notes which function sent the trip."""

    label = LABEL

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        WHERE[sender()] += 1
        super().send_packed_command(command, check_health)


def sender() -> str:
    """The innermost frame in RQ or the worker that led to this round trip."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if "/rq/" in name or name.endswith("workers/worker.py"):
            return f"{Path(name).name}:{frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


def enqueue(client: redis.Redis, count: int, func: str, tag: str) -> None:
    with client.pipeline() as pipe:
        for n in range(count):
            enqueue_packed(pipe, QUEUE, f"bench.rq_trips.{func}", (str(n),), f"{tag}-{n}")
        pipe.execute()


def burst(url: str, where: bool) -> None:
    connection: redis.Redis
    if where:
        connection = redis.Redis.from_url(url, connection_class=WhereConnection)
    else:
        connection = counting_client(url, LABEL)
    BurroWorker([QUEUE], connection=connection).work(burst=True, logging_level="CRITICAL")


def measure(url: str, jobs: int, failing: int = 0, where: bool = False) -> dict[str, float]:
    """Round trips a job: `ok` for a trivial job, `failed` for one that raises (when
    `failing`), `burst` for an empty burst."""
    client = redis.Redis.from_url(url)
    before = snapshot()
    burst(url, where)
    empty = since(before, LABEL)["round_trips"]
    figures = {"burst": float(empty)}
    for name, func, count in (("ok", "nothing", jobs), ("failed", "fail", failing)):
        if not count:
            continue
        enqueue(client, count, func, name)
        before = snapshot()
        WHERE.clear()
        burst(url, where)
        figures[name] = (since(before, LABEL)["round_trips"] - empty) / count
        if where:
            figures.update({f"{name} {k}": v / count for k, v in WHERE.most_common()})
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--fail", type=int, default=0, help="also this many failing jobs")
    parser.add_argument("--where", action="store_true", help="break down by sender")
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory() as folder,
        RedisServer(Path(folder), persist=False) as server,
    ):
        figures = measure(server.url, args.jobs, args.fail, args.where)
    for name, value in figures.items():
        print(f"{name:50} {value:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
