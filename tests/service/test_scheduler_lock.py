"""Scheduling upkeep: a dead worker's scheduler lock is released once nobody has
refreshed it for a while, and only then (workers.worker); a move's moot timers go."""

from __future__ import annotations

import time

import fakeredis
from rq.registry import ScheduledJobRegistry

from engine.follow_suit.game import GameState, legal_actions, to_move
from service.infra.keys import PENDING_SYNC
from service.infra.queue import QUEUE
from service.infra.store import Store, text
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.outcome import PHASE_TIMERS, Outcome
from service.table.room import Room, RoomSettings
from workers import jobs
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


def started_game() -> tuple[Store, Room, float]:
    """Ana and Ben's game of spanish, just started, on fakeredis; and its start time."""
    store = Store(fakeredis.FakeRedis(), 3600, 3600)
    now = time.time()
    room = lobby.create_room(-100, None, ANA, now, settings=RoomSettings(preset="spanish"))
    lobby.join(room, BEN)
    assert store.create(room, lobby.start(room, ANA, now, 0.0), None)
    return store, room, now


def test_a_move_drops_the_timers_it_made_moot() -> None:
    """Each move schedules the next turn's timer and reminder; the last move's, still
    waiting to come due, are deleted in the same MULTI (they would only do nothing)."""
    store, room, now = started_game()
    client = store.redis
    scheduled = ScheduledJobRegistry.key_template.format(QUEUE)

    def timers() -> set[str]:
        return {text(j) for j in client.zrange(scheduled, 0, -1)}

    first = room.version
    assert timers() == {f"turn_timeout-{room.id}-{first}", f"remind-{room.id}-{first}"}
    for _ in range(3):
        fresh = store.load(room.id)
        assert fresh is not None and isinstance(fresh.game, GameState)
        seat = to_move(fresh.game)
        assert seat is not None
        action = legal_actions(fresh.game, seat)[0]

        def move(r: Room, seat: int = seat, action: str = action) -> Outcome:
            return play.act(r, seat, action, now, 0.0)

        result = store.update(room.id, move)
        assert result is not None
        version = result[0].version
        assert timers() == {f"turn_timeout-{room.id}-{version}", f"remind-{room.id}-{version}"}
        assert not client.exists(f"rq:job:turn_timeout-{room.id}-{first}")
        assert client.exists(f"rq:job:turn_timeout-{room.id}-{version}")
        first = version


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


def test_every_version_timer_names_a_job() -> None:
    """Jobs run `workers.jobs.<kind>`: a timer kind without its function would fail."""
    assert all(callable(getattr(jobs, kind, None)) for kind in PHASE_TIMERS)


def test_a_game_that_ends_drops_its_last_timers() -> None:
    """A cancelled (or finished) game's turn timer and reminder would wait 12 hours to
    do nothing, their hashes kept all that time: they go with the change that ends it."""
    store, room, now = started_game()
    client = store.redis
    scheduled = ScheduledJobRegistry.key_template.format(QUEUE)
    assert client.zcard(scheduled) == 2
    assert store.update(room.id, lambda r: lobby.cancel(r, ANA, now)) is not None
    assert client.zcard(scheduled) == 0
    assert not client.keys("rq:job:turn_timeout-*") and not client.keys("rq:job:remind-*")
