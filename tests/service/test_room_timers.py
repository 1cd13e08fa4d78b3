"""A room's phase timers wait as its place in `rooms:timers` (service.infra.timers), not
as RQ jobs: each move sets it to its phase's first timer, a reminder then its deadline;
a worker's clock claims a due one once and queues the `timer` job, which does what the
room's clock says is due."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import fakeredis
import pytest
from rq import Queue

from engine.follow_suit.game import GameState, legal_actions, to_move
from service.infra import indexes, timers
from service.infra.keys import TIMERS_KEY
from service.infra.queue import QUEUE
from service.infra.store import Store, room_key
from service.platforms.telegram import limits
from service.services import Services
from service.settings import Settings
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.outcome import PHASE_TIMERS, Outcome
from service.table.room import Room, RoomSettings
from tests.service.conftest import FakeApi
from workers import jobs
from workers.runtime import Runtime
from workers.timer_clock import TimerClock

ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")
HOUR = 3600.0


class Clock:
    def __init__(self, at: float) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


@pytest.fixture
def clock() -> Clock:
    return Clock(time.time())


@pytest.fixture
def rt(monkeypatch: pytest.MonkeyPatch, clock: Clock) -> Iterator[Runtime]:
    """A worker's runtime on fakeredis and the test's clock; jobs run with it."""
    monkeypatch.setattr(limits, "ENABLED", False)
    client = fakeredis.FakeRedis()
    store = Store(client, 24 * 3600, 3600, clock=clock)
    svc = Services(Settings(telegram_token="t"), store, clock=clock)  # type: ignore[arg-type]
    runtime = Runtime(svc, client, {"telegram": FakeApi()})
    monkeypatch.setattr(jobs, "runtime", lambda: runtime)
    yield runtime


def start(store: Store, now: float, quiet_hours: tuple[int, int] | None = None) -> Room:
    """Ana and Ben's game of spanish, started at `now`."""
    settings = RoomSettings(preset="spanish", quiet_hours=quiet_hours)
    room = lobby.create_room(-100, None, ANA, now, settings=settings)
    lobby.join(room, BEN)
    assert store.create(room, lobby.start(room, ANA, now, 0.0), None)
    return room


def place(store: Store, room_id: str) -> float | None:
    return indexes.score(store.redis, TIMERS_KEY, room_id)


def fresh(store: Store, room_id: str) -> Room:
    room = store.load(room_id)
    assert room is not None and isinstance(room.game, GameState)
    return room


def test_a_phase_waits_as_one_place_not_as_jobs(rt: Runtime, clock: Clock) -> None:
    store = rt.svc.store
    room = start(store, clock.at)
    assert place(store, room.id) == clock.at + room.settings.reminder_after
    assert Queue(QUEUE, connection=rt.redis).scheduled_job_registry.count == 0
    assert timer_jobs(rt) == []
    for _ in range(3):
        clock.at += 60
        now, game = clock.at, fresh(store, room.id)
        assert isinstance(game.game, GameState)
        seat = to_move(game.game)
        assert seat is not None
        action = legal_actions(game.game, seat)[0]

        def move(r: Room, s: int = seat, a: str = action, t: float = now) -> Outcome:
            return play.act(r, s, a, t, 0.0)

        assert store.update(room.id, move)
        assert place(store, room.id) == now + room.settings.reminder_after  # the new phase's
    assert Queue(QUEUE, connection=rt.redis).scheduled_job_registry.count == 0
    assert timer_jobs(rt) == []


def timer_jobs(rt: Runtime) -> list[bytes | str]:
    """The RQ jobs of timers (`rq:job:<kind>-…`): there should be none waiting."""
    return [key for kind in PHASE_TIMERS for key in rt.redis.keys(f"rq:job:{kind}-*")]


def test_a_game_that_ends_leaves_no_timer(rt: Runtime, clock: Clock) -> None:
    store = rt.svc.store
    room = start(store, clock.at)
    assert store.update(room.id, lambda r: lobby.cancel(r, ANA, clock.at)) is not None
    assert place(store, room.id) is None


def test_a_due_timer_is_claimed_once_until_its_lease_ends(rt: Runtime, clock: Clock) -> None:
    store = rt.svc.store
    room = start(store, clock.at)
    due = clock.at + room.settings.reminder_after
    assert timers.claim_due(rt.redis, due - 1) == []
    assert timers.claim_due(rt.redis, due) == [room.id]
    assert timers.claim_due(rt.redis, due) == []  # another worker's clock finds it taken
    assert timers.claim_due(rt.redis, due + timers.LEASE) == [room.id]  # its job was lost


def run_timer(rt: Runtime, at: float) -> int:
    """What a worker's clock queues at `at`, run as the worker would; how many."""
    queue = Queue(QUEUE, connection=rt.redis)
    fired = timers.fire_due(rt.redis, at)
    for job in queue.jobs:
        job.delete()
        job.func(*job.args)
    return fired


def test_the_timer_reminds_then_plays_the_turn(rt: Runtime, clock: Clock) -> None:
    store = rt.svc.store
    room = start(store, clock.at)
    reminder = clock.at + room.settings.reminder_after
    deadline = fresh(store, room.id).deadline
    assert deadline is not None
    clock.at = reminder
    assert run_timer(rt, clock.at) == 1
    reminded = fresh(store, room.id)
    assert reminded.reminded and reminded.version == room.version
    assert place(store, room.id) == deadline  # its next timer: the turn's end
    clock.at = deadline
    assert run_timer(rt, clock.at) == 1
    timed_out = fresh(store, room.id)
    assert timed_out.version == room.version + 1  # the turn was played for its player
    assert sum(seat.timeouts for seat in timed_out.seats) == 1
    assert place(store, room.id) == deadline + room.settings.reminder_after


def test_a_timer_come_early_waits_again(rt: Runtime, clock: Clock) -> None:
    """Another worker's clock runs ahead: the job finds nothing due and sets the room's
    place back to its timer."""
    store = rt.svc.store
    room = start(store, clock.at)
    reminder = clock.at + room.settings.reminder_after
    assert run_timer(rt, reminder + 5) == 1  # that clock: 5 s ahead of the job's
    assert place(store, room.id) == reminder
    assert not fresh(store, room.id).reminded


def test_a_night_holds_the_reminder_not_the_turns_end(rt: Runtime, clock: Clock) -> None:
    clock.at = datetime(2026, 12, 1, 20, tzinfo=UTC).timestamp()
    store = rt.svc.store
    room = start(store, clock.at, quiet_hours=(22, 8))  # its reminder is due at 23:00
    clock.at += room.settings.reminder_after
    assert run_timer(rt, clock.at) == 1
    assert not fresh(store, room.id).reminded
    morning = datetime(2026, 12, 2, 8, tzinfo=UTC).timestamp()
    assert place(store, room.id) == min(morning, clock.at - 3 * HOUR + 12 * HOUR)


def test_a_wake_from_a_stale_read_changes_nothing(rt: Runtime, clock: Clock) -> None:
    """A job's room read before a move: the move set its phase's timer, which stays."""
    store = rt.svc.store
    room = start(store, clock.at)
    stale = fresh(store, room.id)
    rt.redis.set(room_key(room.id), b"moved on")  # as if a move were committed
    store.wake(stale, clock.at + 1)
    assert place(store, room.id) == clock.at + room.settings.reminder_after


def test_each_worker_runs_a_clock_for_the_timers(rt: Runtime, clock: Clock) -> None:
    store = rt.svc.store
    room = start(store, clock.at)
    queue = Queue(QUEUE, connection=rt.redis)
    queue.empty()  # type: ignore[no-untyped-call]  # the start's sync
    ticker = TimerClock(rt.redis, lambda: clock.at + 4 * HOUR, every=0.01)
    ticker.start()
    try:
        deadline = time.monotonic() + 10
        while not queue.count and time.monotonic() < deadline:
            threading.Event().wait(0.01)
        assert [(job.func_name, job.args[0]) for job in queue.jobs] == [
            ("workers.jobs.timer", room.id)
        ]
    finally:
        ticker.stop()
        ticker.join(5)


def test_every_phase_timer_names_a_job() -> None:
    """The timer job runs `workers.jobs.<kind>`, as jobs queued before it did."""
    assert set(jobs.timer_jobs()) == set(PHASE_TIMERS)
    assert all(callable(getattr(jobs, kind, None)) for kind in PHASE_TIMERS)
