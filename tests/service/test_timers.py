"""Turn timers: reminders and timeouts fire once, after their time; a move just before
wins; quiet hours hold the nudge, not the move (the product in this process, whose
clock the test moves on to a deadline instead of waiting for it). With real worker
processes (`e2e`): workers stopped for a while catch up, nothing twice; a worker
killed mid-job sends its message once; a dead worker's scheduler is taken over."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest
import redis
from rq import Queue
from rq.registry import StartedJobRegistry

from cli.stack import Stack
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage
from engine.follow_suit.game import GameState, to_move
from service.infra.queue import QUEUE
from service.infra.redis_server import connect
from service.table.outcome import Outcome
from service.table.room import Room
from tests.service.conftest import make_stack
from tests.service.inproc import Hook, InprocWorker, running_service
from tests.service.play import Backend, action_button, game_buttons, room_in, store_of
from workers.worker import LOCK_TTL, STALE_AFTER, scheduler_pid

TIMEOUT, REMINDER = 4, 2  # seconds: short tables for the whole-process tests
# In this process the clock is the test's: long times cost nothing, and leave the test
# seconds of real time (which the clock follows) to act before a deadline.
LONG_TIMEOUT, LONG_REMINDER, MARGIN = 60, 30, 10


@pytest.fixture(scope="module")
def stack(emu: RunningEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {
        "BURRO_TURN_TIMEOUT": str(TIMEOUT),
        "BURRO_REMINDER_AFTER": str(REMINDER),
        "BURRO_SWEEP_EVERY": "1",
        "BURRO_SWEEP_GRACE": "2",
    }
    with make_stack(emu, tmp_path_factory.mktemp("timers"), env=env) as running:
        yield running


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    folder = tmp_path_factory.mktemp("timers-inproc")
    with running_service(
        folder,
        turn_timeout=LONG_TIMEOUT,
        reminder_after=LONG_REMINDER,
        sweep_every=1,
        sweep_grace=2,
    ) as running:
        yield running


def worker_of(hook: Hook) -> InprocWorker:
    assert hook.worker is not None
    hook.worker.check()  # no job raised so far
    return hook.worker


def start_game(emu: RunningEmulator, stack: Backend, user: str) -> int:
    """A new one-to-one game for `user` (an earlier one in their chat is cancelled)."""
    store = store_of(stack)
    old = store.room_in_chat(USERS[user], None)
    if old is not None and old.status in ("lobby", "playing"):
        store.update(old.id, cancel)
    emu.send_message(user, user, "/play spanish")
    lobby = emu.wait_for_message(user, lambda m: action_button(m, "S") is not None)
    opened = room_in(stack, lobby.chat_id)
    store.update(opened.id, fixed_deal)
    start = f"{opened.id}.{room_in(stack, lobby.chat_id).version}.S"
    lobby = emu.wait_for_message(user, lambda m: action_button(m, "S") == start)
    emu.tap(user, lobby, start)
    return lobby.chat_id


def fixed_deal(room: Room) -> Outcome:
    """The same deal every run: what comes when after a turn (a bot's move, a hand's
    end, the next turn) is the deal's, and the counts of messages below rely on it."""
    room.seed = (1 << 127) | 20261206  # a full-size key: a small one is replaced as legacy
    return Outcome(changed=True)


USERS = {"Ana": 100001, "Ben": 100002, "Carla": 100003, "Dan": 100004}


def cancel(room: Room) -> Outcome:
    room.status = "cancelled"
    return Outcome(changed=True)


def human_turn(stack: Backend, chat: int) -> Room | None:
    room = room_in(stack, chat)
    if isinstance(room.game, GameState) and room.status == "playing" and to_move(room.game) == 0:
        return room
    return None


def moved_past(stack: Backend, chat: int, version: int) -> Room | None:
    """The room, once a move has taken it past `version`."""
    room = room_in(stack, chat)
    return room if room.version > version else None


def shown_turn(emu: RunningEmulator, stack: Backend, chat: int, user: str) -> Room:
    """The player's turn, once their chat shows it: the outbox may still be sending the
    earlier messages when Redis already has the turn, and counts of messages would be
    off by them."""

    def ready() -> Room | None:
        room = human_turn(stack, chat)
        if room is None or not emu.messages_in(user):
            return None
        shown = game_buttons(emu.last_message(user))
        return room if any(f".{room.version}." in str(b.value) for b in shown) else None

    return emu.wait_for(ready, what=f"{user}'s turn on screen")


def wait_until(emu: RunningEmulator, moment: float) -> None:
    emu.wait_for(
        lambda: time.time() >= moment or None, timeout=moment - time.time() + 5, what="the clock"
    )


def bot_messages(emu: RunningEmulator, user: str) -> int:
    """The bot's messages that notified the user (a hand re-posted without a
    notification, or a word said quietly, is not one)."""
    return len(emu.notifications(user))


def test_timeout_plays_once_after_its_time(hook: Hook) -> None:
    emu, worker = hook.emu, worker_of(hook)
    chat = start_game(emu, hook, "Ben")
    room = shown_turn(emu, hook, chat, "Ben")
    assert room.deadline is not None and room.game is not None
    before_messages = bot_messages(emu, "Ben")
    worker.settle()
    worker.reach(room.deadline - MARGIN)  # the reminder's time has come, not the timeout's
    worker.settle()
    assert room_in(hook, chat).version == room.version  # not before its time
    assert bot_messages(emu, "Ben") == before_messages + 1  # the reminder
    reminder = emu.notifications("Ben")[-1]["text"]  # the hand again (as first posted)
    rang = [n["text"] for n in emu.notifications("Ben")].count(reminder)
    worker.reach(room.deadline)
    moved = emu.wait_for(
        lambda: moved_past(hook, chat, room.version), timeout=10, what="the timeout's move"
    )
    assert moved.updated >= room.deadline
    assert moved.seats[0].timeouts == 1
    worker.settle()  # (a new hand may ring now: the reminder may not, again)
    assert [n["text"] for n in emu.notifications("Ben")].count(reminder) == rang


def test_a_move_just_before_the_deadline_wins(hook: Hook) -> None:
    emu, worker = hook.emu, worker_of(hook)
    chat = start_game(emu, hook, "Dan")
    room = shown_turn(emu, hook, chat, "Dan")
    assert room.deadline is not None
    worker.settle()
    worker.reach(room.deadline - MARGIN)  # the reminder has come: the hand again
    worker.settle()

    def hand() -> tuple[ChatMessage, str | int] | None:
        mark = f".{room_in(hook, chat).version}."
        for message in reversed(emu.messages_in("Dan")):
            mine = [b for b in game_buttons(message) if mark in str(b.value)]
            plays = [b for b in mine if f"{mark}p" in str(b.value)]  # a card ends the turn
            if mine:
                return message, (plays or mine)[0].value
        return None

    message, data = emu.wait_for(hand, what="Dan's hand, now")
    version = room_in(hook, chat).version
    emu.tap("Dan", message, data)
    emu.wait_for(lambda: moved_past(hook, chat, version), what="Dan's move")
    worker.reach(room.deadline + 0.5)  # past the old timer, before the next turn's
    worker.settle()
    after = room_in(hook, chat)
    assert after.seats[0].timeouts == 0


@pytest.mark.e2e
def test_workers_stopped_for_a_while_catch_up_once(emu: RunningEmulator, stack: Stack) -> None:
    chat = start_game(emu, stack, "Carla")
    room = shown_turn(emu, stack, chat, "Carla")
    assert room.deadline is not None
    for name in [n for n in stack.processes if n.startswith("worker")]:
        stack.kill(name)
    # The turns after the late timeout get an hour: on a loaded machine their own
    # 2-second reminder could otherwise ring before the count below.
    store_of(stack).update(room.id, long_next_turns)
    moved_on = room_in(stack, chat)
    assert moved_on.deadline == room.deadline
    assert moved_on.reminder_at() == pytest.approx(room.reminder_at())
    room = moved_on
    assert room.deadline is not None
    before_messages = bot_messages(emu, "Carla")
    wait_until(emu, room.deadline + 2)  # the reminder and the timeout are both due now
    assert room_in(stack, chat).version == room.version  # nobody ran them
    stack.start_worker(0)
    moved = emu.wait_for(
        lambda: moved_past(stack, chat, room.version),
        timeout=30,
        what="the late timeout",
    )
    emu.wait_for(
        lambda: bot_messages(emu, "Carla") > before_messages or None,
        timeout=30,  # a new worker's first jobs, on a loaded machine
        what="Carla's next turn, ringing (she was away)",
    )
    assert moved.seats[0].timeouts == 1
    emu.wait_for(
        partial(turn_in_chat, emu, stack, chat, "Carla"),
        timeout=30,  # after a hand's news, the turn may come in a later job
        what="her next turn shown",
    )
    # One notification: her next turn, or the news of the hand the timeout ended (the
    # turn then comes quietly below it). The reminder, due before the deadline that has
    # passed too, is not sent late.
    rang = [n["text"] for n in emu.notifications("Carla")[before_messages:]]
    assert len(rang) == 1, rang


def turn_in_chat(emu: RunningEmulator, stack: Backend, chat: int, user: str) -> bool | None:
    """Whether the player's turn shows in one of their messages (the word said of a
    timeout may be the last one)."""
    if room_in(stack, chat).status != "playing":
        return True  # (the timeout's card may have ended the game)
    room = human_turn(stack, chat)
    mark = f".{room.version}." if room is not None else None
    shown = (b.value for m in emu.messages_in(user) for b in game_buttons(m))
    return (mark is not None and any(mark in str(value) for value in shown)) or None


def long_next_turns(room: Room) -> Outcome:
    """An hour for the turns after this one; this turn's reminder and deadline stay (the
    reminder is counted from the turn's start, so the start moves back by as much)."""
    reminder = room.reminder_at()
    room.settings.reminder_after = room.settings.turn_timeout = 3600
    room.turn_started = reminder - 3600
    return Outcome(changed=True)


def no_reminder(room: Room) -> Outcome:
    """No timers for an hour, this turn and the next ones."""
    room.reminded = True
    room.deadline = (room.deadline or 0) + 3600
    room.settings.reminder_after = room.settings.turn_timeout = 3600
    return Outcome(changed=True)


@pytest.mark.e2e
def test_worker_killed_mid_job_the_message_still_comes_once(
    emu: RunningEmulator, stack: Stack
) -> None:
    chat = start_game(emu, stack, "Ana")
    room = shown_turn(emu, stack, chat, "Ana")
    store_of(stack).update(room.id, no_reminder)  # only the move's own edit is in play
    room = room_in(stack, chat)
    since = emu.last_seq()
    emu.inject_delay("editMessageText", 3.0)  # Telegram answers slowly: the job hangs in it
    started = StartedJobRegistry(QUEUE, connection=connect(stack.redis.url))
    message = emu.last_message("Ana")
    assert message is not None
    mine = [b for b in game_buttons(message) if f".{room.version}." in str(b.value)]
    emu.tap("Ana", message, mine[0].value)
    # The job that brings Ana's chat up to date: the tap's sync, or the bot's turn that
    # came first and syncs in the same job (workers.jobs.streak).
    emu.wait_for(
        lambda: any(f"-{room.id}-" in j for j in started.get_job_ids()) or None,
        what="a job of the room to start",
    )
    stack.kill("worker0")  # SIGKILL, mid-call
    stack.start_worker(0)

    def shows_current() -> bool | None:
        current = room_in(stack, chat)
        if current.status != "playing":
            return True
        shown = emu.last_message("Ana")
        # a move's button names its phase: a change within the phase (a reminder, a bot
        # letting the phase go by) bumps the version, not the phase
        phase = f".{current.phase_version}."
        return any(phase in str(b.value) for b in game_buttons(shown)) or None

    # The killed job's lock on Ana's chat lapses after 12 s (workers.outbox.LOCK_MS), the
    # new worker takes the dead one's scheduler over and the sweeper queues the sync
    # again: 9-16 s on a quiet machine, more than 30 under a loaded suite.
    try:
        emu.wait_for(shows_current, timeout=60, what="Ana's message brought up to date")
    except TimeoutError:
        current, shown = room_in(stack, chat), emu.last_message("Ana")
        buttons = [str(b.value) for b in game_buttons(shown)] if shown else None
        raise AssertionError(
            f"room v{current.version} phase {current.phase_version} {current.status}, "
            f"to move {to_move(current.game) if isinstance(current.game, GameState) else '?'}; "
            f"Ana's last message {shown.message_id if shown else None}: {buttons}"
        ) from None
    # Edited in place: no second hand message rang (the news of a hand's end may have).
    told = emu.notifications("Ana", chat="Ana", since=since)
    rang = [emu.message("Ana", n["message_id"]) for n in told]
    assert not [m for m in rang if game_buttons(m)], "the killed job's edit came again"


def test_quiet_hours_hold_the_reminder_but_not_the_timeout(hook: Hook) -> None:
    emu, worker = hook.emu, worker_of(hook)
    chat = start_game(emu, hook, "Ben")
    room = shown_turn(emu, hook, chat, "Ben")
    assert room.deadline is not None
    assert hook.clock is not None
    hour = datetime.fromtimestamp(hook.clock(), UTC).hour

    def quiet_now(fresh: Room) -> Outcome:
        fresh.settings.quiet_hours = (hour, (hour + 2) % 24)
        return Outcome(changed=True)

    store_of(hook).update(room.id, quiet_now)
    worker.settle()
    messages = bot_messages(emu, "Ben")
    worker.reach(room.deadline - MARGIN)  # the reminder's time, not yet the timeout's
    worker.settle()
    assert bot_messages(emu, "Ben") == messages  # the nudge was held
    worker.reach(room.deadline)
    moved = emu.wait_for(
        lambda: moved_past(hook, chat, room.version), timeout=10, what="the timeout's move"
    )
    assert moved.seats[0].timeouts >= 1  # the move was not held


def scheduler_owner(stack: Stack, client: redis.Redis) -> str | None:
    """The name of the stack's worker whose scheduler process holds the lock."""
    pid = scheduler_pid(client, QUEUE)
    if pid is None:
        return None
    group = os.getpgid(pid)
    return next((n for n, p in stack.processes.items() if p.pid == group), None)


@pytest.mark.e2e
def test_a_dead_workers_scheduler_is_taken_over_before_its_lock_expires(
    emu: RunningEmulator, tmp_path: Path
) -> None:
    """A worker killed with its scheduler (SIGKILL to the process group, as when a pod
    dies) leaves RQ's scheduler lock for 61 s; the other worker releases it once it has
    gone unrefreshed for 5 s, so a job due in 1 s runs well before the lock would
    have expired."""
    with make_stack(emu, tmp_path, workers=2) as stack:
        client = connect(stack.redis.url)
        owner = emu.wait_for(lambda: scheduler_owner(stack, client), what="a scheduler")
        stack.kill(owner)  # with its scheduler: the whole process group
        due = datetime.now(UTC) + timedelta(seconds=1)
        job = Queue(QUEUE, connection=client).enqueue_at(
            due, "workers.jobs.sync", "gone0000", "table"
        )
        emu.wait_for(
            lambda: job.get_status(refresh=True) == "finished" or None,
            timeout=LOCK_TTL - STALE_AFTER - 5,
            what="the job due in 1 s, run by the surviving worker's new scheduler",
        )
