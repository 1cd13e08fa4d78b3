"""Scheduling upkeep: a dead worker's scheduler lock is released once nobody has
refreshed it for a while, and only then (workers.worker); a stopping worker does not
wait long for its pubsub thread nor for ever on a scheduler process that hangs; a sync
waits from its mark."""

from __future__ import annotations

import multiprocessing
import signal
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import fakeredis
import pytest
from rq.scheduler import RQScheduler

from service.infra import indexes
from service.infra.keys import PENDING_SYNC
from service.infra.queue import QUEUE
from service.infra.redis_server import RedisServer, connect
from service.infra.store import Store
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings
from workers import worker as worker_module
from workers.worker import LOCK_TTL, STALE_AFTER, BurroWorker, release_stale_lock

KEY = "rq:scheduler-lock:burro"


def test_a_lock_refreshed_lately_stays() -> None:
    client = fakeredis.FakeRedis()
    client.set(KEY, "alive", ex=LOCK_TTL)
    assert not release_stale_lock(client, "burro")
    client.set(KEY, "alive", ex=LOCK_TTL - STALE_AFTER + 2)  # refreshed 3 s ago
    assert not release_stale_lock(client, "burro")
    assert client.get(KEY) == b"alive"


def test_a_lock_nobody_refreshed_for_a_while_goes() -> None:
    client = fakeredis.FakeRedis()
    client.set(KEY, "dead", ex=LOCK_TTL - STALE_AFTER - 1)
    assert release_stale_lock(client, "burro")
    assert client.get(KEY) is None
    assert not release_stale_lock(client, "burro")  # nothing left to release


def hang_deaf(ready: Any) -> None:
    """A scheduler process stuck where SIGTERM cannot reach its loop."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    ready.set()
    time.sleep(60)


def test_a_stopping_worker_kills_a_scheduler_that_hangs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worker_module, "SCHEDULER_STOP", 0.2)
    worker = BurroWorker([QUEUE], connection=fakeredis.FakeRedis())
    fork = multiprocessing.get_context("fork")
    ready = fork.Event()
    process = fork.Process(target=hang_deaf, args=(ready,))
    process.start()
    assert ready.wait(10)
    worker.scheduler = cast(RQScheduler, SimpleNamespace(_process=process))
    worker.stop_scheduler()
    assert not process.is_alive() and process.exitcode == -signal.SIGKILL


def test_a_stopping_worker_stops_listening_within_a_second_or_two(tmp_path: Path) -> None:
    """RQ's teardown unsubscribes, then stops the pubsub thread, which redis-py 8.2 waits
    for. If the thread reads the unsubscribe's reply first, it goes back to wait for a
    subscription for its whole `sleep_time` (RQ's: 60 s): this test takes that turn."""
    with RedisServer(tmp_path / "redis", persist=False) as server:
        worker = BurroWorker([QUEUE], connection=connect(server.url))
        worker.subscribe()
        pubsub: Any = worker.pubsub  # redis-py leaves its methods unannotated
        thread: Any = worker.pubsub_thread
        assert pubsub is not None and thread is not None
        pubsub.unsubscribe()
        deadline = time.monotonic() + 5
        while pubsub.subscribed and time.monotonic() < deadline:
            time.sleep(0.01)  # the thread has yet to read the reply
        time.sleep(0.1)  # and to go back to its wait
        stopping = threading.Thread(target=thread.stop, daemon=True)
        stopping.start()
        stopping.join(timeout=10 * worker_module.PUBSUB_WAKE)
        assert not stopping.is_alive(), "still waiting for the pubsub thread"


def test_no_lock_nothing_to_do() -> None:
    assert not release_stale_lock(fakeredis.FakeRedis(), "burro")


ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")


def test_a_pending_sync_waits_from_when_it_was_marked() -> None:
    """The sweeper re-sends syncs pending longer than its grace: a reminder's re-post is
    marked now, not at the room's last move (else it looked lost at once, went twice)."""
    client = fakeredis.FakeRedis()
    store = Store(client, 3600, 3600)
    ana, ben = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")
    long_ago = time.time() - 3600
    room = lobby.create_room(-100, None, ana, long_ago, settings=RoomSettings(preset="spanish"))
    lobby.join(room, ben)
    assert store.create(room, lobby.start(room, ana, long_ago, 0.0), None)
    indexes.clear(client, PENDING_SYNC)
    marked = time.time()

    def remind(fresh: Room) -> Outcome:  # as workers.jobs.remind: no move, a re-post
        fresh.reminded = True
        return Outcome(changed=True, sync={"table:new"})

    assert store.update(room.id, remind) is not None
    score = indexes.score(client, PENDING_SYNC, f"{room.id}|table:new")
    assert score is not None and score >= marked
