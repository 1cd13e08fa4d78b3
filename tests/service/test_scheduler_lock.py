"""Scheduling upkeep: a dead worker's scheduler lock is released once nobody has
refreshed it for a while, and only then (workers.worker); a sync waits from its mark."""

from __future__ import annotations

import time

import fakeredis

from service.infra.keys import PENDING_SYNC
from service.infra.store import Store
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings
from workers.worker import LOCK_TTL, STALE_AFTER, release_stale_lock

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
    client.delete(PENDING_SYNC)
    marked = time.time()

    def remind(fresh: Room) -> Outcome:  # as workers.jobs.remind: no move, a re-post
        fresh.reminded = True
        return Outcome(changed=True, sync={"table:new"})

    assert store.update(room.id, remind) is not None
    score = client.zscore(PENDING_SYNC, f"{room.id}|table:new")
    assert score is not None and score >= marked
