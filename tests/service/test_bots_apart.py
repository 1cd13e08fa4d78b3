"""A table of strong bots thinking does not hold up another table's move (issue #40):
their decisions run on the bots' own queue and worker (`burro-bots`, `burro worker
--bots`), apart from the jobs that apply people's moves and send the chats.

The product runs in this process (inproc.running_service: the webhook, a worker on each
queue). The strong bots' thinking is made slow and observable: their decision waits on
an Event the test sets, so "while they think" is a fact, not a matter of timing."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage
from service.infra.queue import BOT_QUEUE
from service.table import play
from service.table.outcome import Outcome
from service.table.room import Room
from tests.service.inproc import WAIT_AT_MOST, Hook, running_service
from tests.service.play import action_button, game_buttons, room_in, store_of, waiting_work
from workers import jobs


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


def open_table(emu: RunningEmulator, stack: Hook, who: str, bots: int) -> int:
    """`who`'s one-to-one game against `bots` bots, in the lobby still: its chat."""
    emu.send_message(who, who, "/play")
    lobby = emu.wait_for_message(who, in_lobby)
    chat = lobby.chat_id
    for seats in range(3, bots + 2):  # the lobby comes with one bot
        emu.tap(who, lobby, action_button(lobby, "B") or "")
        emu.wait_for(partial(seated, stack, chat, seats), what="a bot more")
        lobby = emu.wait_for_message(who, in_lobby)
    return chat


def in_lobby(message: ChatMessage) -> bool:
    """The lobby's message (its Start button, in whatever language)."""
    return action_button(message, "S") is not None


def seated(stack: Hook, chat: int, seats: int) -> bool | None:
    return len(room_in(stack, chat).seats) >= seats or None


def start(emu: RunningEmulator, who: str) -> None:
    lobby = emu.wait_for_message(who, in_lobby)
    emu.tap(who, lobby, action_button(lobby, "S") or "")


def my_turn(emu: RunningEmulator, stack: Hook, who: str, chat: int) -> bool:
    """Whether `who`'s chat shows the buttons of the room's current phase."""
    mark = f".{room_in(stack, chat).version}."
    return any(mark in str(b.value) for b in game_buttons(emu.last_message(who)))


def play_a_card(emu: RunningEmulator, stack: Hook, who: str, chat: int) -> int:
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
    start(emu, "Ana")
    emu.wait_for(
        lambda: thinking.begun.is_set() or my_turn(emu, stack, "Ana", table_a) or None,
        what="Ana's turn or a strong bot thinking",
    )
    if not thinking.begun.is_set():  # Ana leads: her card sets the bots thinking
        play_a_card(emu, stack, "Ana", table_a)
    emu.wait_for(lambda: thinking.begun.is_set() or None, what="a strong bot thinking")
    held_at = room_in(stack, table_a).version

    # Table B, meanwhile: Ben starts his game and plays a card.
    start(emu, "Ben")
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
