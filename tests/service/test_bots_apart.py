"""A table of strong bots thinking does not hold up another table's move (issue #40):
their decisions run on the bots' own queue and worker (`burro-bots`, `burro worker
--bots`), apart from the jobs that apply people's moves and send the chats.

The product runs in this process (inproc.running_service: the webhook, a worker on each
queue). The strong bots' thinking is made slow and observable: their decision waits on
an Event the test sets, so "while they think" is a fact, not a matter of timing."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest
from rq import Queue, SimpleWorker, get_current_job

from cli.local import FIRST_PAUSE, Reviver
from cli.stack import Stack
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage
from service.infra.queue import BOT_QUEUE, QUEUE
from service.infra.store import Store
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.outcome import JobKind, Outcome
from service.table.room import Room, RoomSettings
from tests.conftest import WAIT_AT_MOST
from tests.service.conftest import make_stack
from tests.service.inproc import Hook, local_emulator, running_service
from tests.service.play import (
    Backend,
    action_button,
    client_of,
    game_buttons,
    room_in,
    store_of,
    waiting_work,
)
from workers import jobs, sweeper
from workers.runtime import Runtime


class Thinking:
    """`play.bot_action` for the workers, with each thinking bot's decision held until
    `release` is set; the threads they ran on are kept."""

    def __init__(self, real: Callable[..., str | None]) -> None:
        self.real = real
        self.begun = threading.Event()  # a thinking bot has begun its decision
        self.release = threading.Event()
        self.threads: set[str] = set()

    def __call__(self, room: Room, seat: int, level: str | None = None) -> str | None:
        if level is None and jobs.thinks(room, seat):
            self.threads.add(threading.current_thread().name)
            self.begun.set()
            assert self.release.wait(WAIT_AT_MOST), "the test never let the bots decide"
        return self.real(room, seat, level)


@pytest.fixture
def thinking(monkeypatch: pytest.MonkeyPatch) -> Thinking:
    held = Thinking(play.bot_action)
    monkeypatch.setattr(play, "bot_action", held)
    return held


@pytest.fixture
def stack(tmp_path: Path, thinking: Thinking) -> Iterator[Hook]:
    try:
        with running_service(tmp_path) as running:
            yield running
    finally:
        thinking.release.set()  # a failed test leaves no worker waiting


def strong_bots(room: Room) -> Outcome:
    """A lobby's change: its bots play at the strong level (they search)."""
    for seat in room.seats:
        if seat.bot:
            seat.bot = "strong"
    return Outcome(changed=True)


def open_table(emu: RunningEmulator, stack: Backend, who: str, bots: int) -> int:
    """`who`'s one-to-one game against `bots` bots, in the lobby still: its chat."""
    emu.send_message(who, who, "/play")
    lobby = emu.wait_for_message(who, in_lobby)
    chat = lobby.chat_id
    for seats in range(3, bots + 2):  # the lobby comes with one bot
        emu.tap(who, lobby, action_button(lobby, "B") or "")
        emu.wait_for(partial(seated, stack, chat, seats), what="a bot more")
        lobby = settled_lobby(emu, stack, who, chat)
    return chat


def settled_lobby(emu: RunningEmulator, stack: Backend, who: str, chat: int) -> ChatMessage:
    """The lobby's message once its chat is up to date (its buttons name the room's
    version: one tapped while a change redraws them may be gone at the tap)."""
    room_id = room_in(stack, chat).id
    client = client_of(stack)
    emu.wait_for(lambda: not waiting_work(client, room_id) or None, what="the lobby drawn")
    return emu.wait_for_message(who, in_lobby)


def in_lobby(message: ChatMessage) -> bool:
    """The lobby's message (its Start button, in whatever language)."""
    return action_button(message, "S") is not None


def seated(stack: Backend, chat: int, seats: int) -> bool | None:
    return len(room_in(stack, chat).seats) >= seats or None


def start(emu: RunningEmulator, stack: Backend, who: str, chat: int) -> None:
    lobby = settled_lobby(emu, stack, who, chat)
    emu.tap(who, lobby, action_button(lobby, "S") or "")


def my_turn(emu: RunningEmulator, stack: Backend, who: str, chat: int) -> bool:
    """Whether `who`'s chat shows the buttons of the room's current phase."""
    mark = f".{room_in(stack, chat).version}."
    return any(mark in str(b.value) for b in game_buttons(emu.last_message(who)))


def play_a_card(emu: RunningEmulator, stack: Backend, who: str, chat: int) -> int:
    """`who` taps a card (or whatever the turn offers) of the current phase; the room's
    version they tapped at."""
    version = room_in(stack, chat).version
    message = emu.last_message(who)
    current = [b for b in game_buttons(message) if f".{version}." in str(b.value)]
    cards = [b for b in current if f".{version}.p" in str(b.value)]
    assert message is not None and current
    emu.tap(who, message, (cards or current)[0].value)
    return version


def test_strong_bots_thinking_hold_up_no_other_tables_move(stack: Hook, thinking: Thinking) -> None:
    emu, worker = stack.emu, stack.worker
    assert worker is not None
    # Table A: Ana against three strong bots; the first of them to decide holds. Table B:
    # Ben against a bot of the default (cheap) level.
    table_a = open_table(emu, stack, "Ana", bots=3)
    table_b = open_table(emu, stack, "Ben", bots=1)
    store_of(stack).update(room_in(stack, table_a).id, strong_bots)
    start(emu, stack, "Ana", table_a)
    emu.wait_for(
        lambda: thinking.begun.is_set() or my_turn(emu, stack, "Ana", table_a) or None,
        what="Ana's turn or a strong bot thinking",
    )
    if not thinking.begun.is_set():  # Ana leads: her card sets the bots thinking
        play_a_card(emu, stack, "Ana", table_a)
    emu.wait_for(lambda: thinking.begun.is_set() or None, what="a strong bot thinking")
    held_at = room_in(stack, table_a).version

    # Table B, meanwhile: Ben starts his game and plays a card.
    start(emu, stack, "Ben", table_b)
    emu.wait_for(lambda: my_turn(emu, stack, "Ben", table_b) or None, what="Ben's turn")
    tapped = play_a_card(emu, stack, "Ben", table_b)
    room_b = room_in(stack, table_b).id

    def ben_moved_and_shown() -> bool | None:
        moved = room_in(stack, table_b).version > tapped
        return (moved and not waiting_work(stack.redis, room_b)) or None

    emu.wait_for(ben_moved_and_shown, what="Ben's move applied and its screens sent")
    # ... while A's bot was still thinking: A has not moved on, its decision still held
    assert not thinking.release.is_set()
    assert room_in(stack, table_a).version == held_at
    assert worker.workers[1].busy  # the bots' worker, in the middle of that decision

    # A's bots decide now, and play on to Ana's turn (or the hand's end).
    thinking.release.set()
    emu.wait_for(lambda: room_in(stack, table_a).version > held_at or None, what="A's bots")
    emu.wait_for(
        lambda: my_turn(emu, stack, "Ana", table_a) or room_in(stack, table_a).status == "over",
        what="Ana's turn again",
    )
    worker.settle()
    worker.check()
    # Every strong decision was taken on the bots' queue, none by the other worker.
    assert thinking.threads == {f"inproc-{BOT_QUEUE}"}


# ----- the queues' parts, on fakeredis with a worker in burst mode ---------------------

ANA = Actor(1, "Ana", "en")


def strong_game(store: Store) -> str:
    """Ana against two strong bots that move at once, dealt and started; a bot leads
    (a new deal until one does)."""
    for chat in itertools.count(1):
        now = time.time()
        settings = RoomSettings(bot_level="strong")
        room = lobby.create_room(chat, None, ANA, now, private=True, settings=settings)
        lobby.add_bot(room, ANA)
        lobby.add_bot(room, ANA)
        assert store.create(room, lobby.start(room, ANA, now, 0.0), None)
        if room.bots_waiting():
            return room.id
    raise AssertionError("unreachable")


def burst(rt: Runtime, queue: str) -> None:
    """Run what waits on `queue`, as its worker would, until it is empty."""
    SimpleWorker([queue], connection=rt.redis).work(burst=True, with_scheduler=False)


def decided_on(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The queue each bot decision was taken on (quickly: at the heuristic level)."""
    queues: list[str] = []
    real = play.bot_action

    def deciding(room: Room, seat: int, level: str | None = None) -> str | None:
        job = get_current_job()
        queues.append(job.origin if job is not None else "")
        return real(room, seat, level or "heuristic")

    monkeypatch.setattr(play, "bot_action", deciding)
    return queues


def waiting(rt: Runtime, queue: str) -> list[str]:
    return [str(job_id) for job_id in Queue(queue, connection=rt.redis).get_job_ids()]


@pytest.fixture
def at_once(rt: Runtime, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    """The jobs run on `rt`, and bots move without a thinking delay."""
    monkeypatch.setattr(jobs, "runtime", lambda: rt)
    monkeypatch.setattr(rt.svc.settings, "bot_delay", 0.0)
    return rt


def test_a_thinking_bot_decides_only_on_the_bots_queue(
    at_once: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    rt, queues = at_once, decided_on(monkeypatch)
    room_id = strong_game(rt.svc.store)
    version = version_of(rt, room_id)
    burst(rt, QUEUE)  # the start's bot turn, queued by `serve`: sent on, not played
    assert queues == [] and version_of(rt, room_id) == version
    assert [job.split("-")[0] for job in waiting(rt, BOT_QUEUE)] == [JobKind.BOT_THINK]
    burst(rt, BOT_QUEUE)  # each thinking bot's decision, a job of its own
    assert queues and set(queues) == {BOT_QUEUE}
    assert version_of(rt, room_id) > version
    room = rt.svc.store.load(room_id)
    assert room is not None and not room.bots_waiting()  # Ana's turn (or the hand's end)


def test_a_bots_worker_killed_mid_decision_loses_no_turn(
    at_once: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    rt, queues = at_once, decided_on(monkeypatch)
    room_id = strong_game(rt.svc.store)
    burst(rt, QUEUE)
    assert waiting(rt, BOT_QUEUE)
    rt.redis.delete(f"rq:queue:{BOT_QUEUE}")  # its job lost with the worker that held it
    grace = rt.svc.settings.sweep_grace
    later = time.time() + grace + 1
    assert sweeper.sweep_once(rt.svc.store, later, grace) == 1  # the room's bot is overdue
    burst(rt, QUEUE)  # the sweeper's bot turn, sent on to the bots' queue
    assert queues == [] and waiting(rt, BOT_QUEUE)
    burst(rt, BOT_QUEUE)
    assert queues and set(queues) == {BOT_QUEUE}
    room = rt.svc.store.load(room_id)
    assert room is not None and not room.bots_waiting()


def version_of(rt: Runtime, room_id: str) -> int:
    room = rt.svc.store.load(room_id)
    assert room is not None
    return room.version


# ----- in processes: `burro worker --bots` as `burro local` starts it -------------------


@pytest.mark.e2e
def test_strong_bots_wait_for_a_bots_worker_and_lose_nothing(tmp_path: Path) -> None:
    """The stack's bots' worker killed: a table of strong bots waits, its turns kept (the
    sweeper queues them again); one started again plays them, bots with a thinking delay
    too (its scheduler moves their turns), and the game goes on."""
    env = {"BURRO_SWEEP_EVERY": "1", "BURRO_SWEEP_GRACE": "2"}
    with local_emulator() as emu, make_stack(emu, tmp_path, bot_delay=0.2, env=env) as stack:
        stack.kill("bots0")
        chat = open_table(emu, stack, "Ana", bots=2)
        store_of(stack).update(room_in(stack, chat).id, strong_bots)
        start(emu, stack, "Ana", chat)
        emu.wait_for(partial(bots_or_ana, emu, stack, chat), what="a turn")
        if my_turn(emu, stack, "Ana", chat):  # Ana leads: her card makes the bots' turns
            play_a_card(emu, stack, "Ana", chat)
        emu.wait_for(partial(swept_to_bots, stack, chat), what="a bot's turn on burro-bots")
        stuck = room_in(stack, chat)
        assert stuck.bots_waiting()  # nobody else played it
        stack.start_bot_worker(0)
        emu.wait_for(lambda: room_in(stack, chat).version > stuck.version or None, what="a bot")
        for _ in range(2):  # and the game goes on, the bots playing each time
            emu.wait_for(partial(ana_to_play, emu, stack, chat), what="Ana's turn", timeout=60)
            if room_in(stack, chat).status != "playing":
                break
            tapped = play_a_card(emu, stack, "Ana", chat)
            emu.wait_for(partial(moved_past, stack, chat, tapped), what="Ana's card applied")


def bots_or_ana(emu: RunningEmulator, stack: Stack, chat: int) -> bool | None:
    return bool(room_in(stack, chat).bots_waiting()) or my_turn(emu, stack, "Ana", chat) or None


def swept_to_bots(stack: Stack, chat: int) -> bool | None:
    """A bot's turn is due and its job waits on the bots' queue (sent on from `burro` by
    a worker, the sweeper's, or the move's own)."""
    waiting_there = Queue(BOT_QUEUE, connection=store_of(stack).jobs).count
    return (bool(room_in(stack, chat).bots_waiting()) and waiting_there > 0) or None


def moved_past(stack: Stack, chat: int, version: int) -> bool | None:
    return room_in(stack, chat).version > version or None


def ana_to_play(emu: RunningEmulator, stack: Stack, chat: int) -> bool | None:
    over = room_in(stack, chat).status != "playing"
    return over or my_turn(emu, stack, "Ana", chat) or None


# ----- `burro local` starts the bots' worker again when it dies ---------------------------


def test_burro_local_starts_a_dead_bots_worker_again() -> None:
    started: list[str] = []

    class Dead:
        def poll(self) -> int | None:
            return -9

    class LocalStack:
        def __init__(self) -> None:
            self.processes = {"bots0": Dead(), "worker0": Dead()}

        def start_bot_worker(self, index: int = 0) -> None:
            started.append(f"bots{index}")

        def start_worker(self, index: int = 0) -> None:
            started.append(f"worker{index}")

    now = [100.0]
    reviver = Reviver(LocalStack(), lambda: now[0])  # type: ignore[arg-type]
    assert reviver.revive() == []  # found dead: started after a pause
    now[0] += FIRST_PAUSE
    assert sorted(reviver.revive()) == ["bots0", "worker0"]
    assert sorted(started) == ["bots0", "worker0"]
