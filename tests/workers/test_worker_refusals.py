"""A worker rides out a Redis that refuses it (issue #33): full at `maxmemory` with
`noeviction`, RQ's own loop quit for good, and every press accepted once memory was free
again waited for a worker that was gone."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from rq import Queue

from service.infra.redis_server import RedisServer
from workers.worker import BurroWorker

FILLER = "x" * 100
_url: list[str] = []  # the test's Redis, for its jobs


def mark(key: str) -> None:
    """A job: it leaves its key behind."""
    redis.Redis.from_url(_url[0]).set(key, "1")


def fill_up() -> None:
    """A job that fills Redis: the worker's own bookkeeping after it is refused."""
    fill(redis.Redis.from_url(_url[0]))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[redis.Redis]:
    with RedisServer(tmp_path, persist=False) as server:
        _url[:] = [server.url]
        yield redis.Redis.from_url(server.url)


def fill(client: redis.Redis) -> None:
    """Redis full: holding more than its `maxmemory`, which refuses every write that
    may grow it (and, past a tight limit, a little slack would let small writes in)."""
    used = client.info("memory")["used_memory"]
    client.config_set("maxmemory-policy", "noeviction")
    client.config_set("maxmemory", used // 2)
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        client.set("filler", FILLER)


def free_once_refused(worker: BurroWorker, client: redis.Redis) -> threading.Thread:
    """Free the memory as soon as the worker has been refused (a background thread)."""

    def run() -> None:
        deadline = time.monotonic() + 30
        while worker.refused_since is None and time.monotonic() < deadline:
            time.sleep(0.01)
        client.config_set("maxmemory", 0)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def work_through(worker: BurroWorker, client: redis.Redis) -> None:
    worker.first_wait = worker.wait = worker.max_wait = 0.05
    freer = free_once_refused(worker, client)
    worker.work(burst=True, logging_level="ERROR")  # RQ's would quit at its first refusal
    freer.join()


def test_a_worker_started_on_a_full_redis_waits_then_works(client: redis.Redis) -> None:
    Queue("burro", connection=client).enqueue(mark, "done")
    fill(client)
    worker = BurroWorker(["burro"], connection=client, sweep_every=30)

    work_through(worker, client)

    assert client.get("done") == b"1"
    assert worker.refused_since is None  # it says Redis is back


def test_a_worker_refused_midway_keeps_going(client: redis.Redis) -> None:
    queue = Queue("burro", connection=client)
    queue.enqueue(fill_up)  # Redis fills while the worker runs
    queue.enqueue(mark, "after")
    worker = BurroWorker(["burro"], connection=client, sweep_every=30)

    work_through(worker, client)

    assert client.get("after") == b"1"  # the next job, once memory was free again
    assert worker.refused_since is None
    assert client.zcard("rq:scheduled:burro") == 1  # the sweeper's chain, kept at its upkeep
