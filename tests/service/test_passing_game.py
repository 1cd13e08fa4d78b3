"""Passing Burro (`cuartetos`) played whole through the emulator, against the clock.

The family plays in the group "Family" with a bot: Ben and Carla choose their cards
on their private keyboards, Ana (who never opened a private chat) through the inline
query; everyone answers calls with the group's big response button. A script makes
the moments of the issue happen, in order, whenever the game allows them: a fake call
nobody falls for, a fake call two fall for, a false ¡Burro!, a player who lets the
time run out; real calls come as hands are won. Then the game plays to its end.

The product runs in this process (inproc.running_service): windows are short
(`pass_window`, `response_window`) and bots act at once; when the game waits for a
window to close, the test lets the jobs settle and moves the service's clock on to
the window's end instead of waiting it out. Tests wait on conditions, never sleep.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial

import pytest

from emulator.config import fast_config
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage, EmulatorError
from engine.cuartetos import GameState as PassingGame
from engine.cuartetos import legal_actions, to_move
from engine.cuartetos.cards import is_four_of_a_kind, rank_of
from service.infra.keys import user_hints_key
from service.table.cuartetos.table import FAKE_CALL, FALSE_BURRO
from service.table.outcome import Outcome
from service.table.room import LogLine, Room
from tests.service.inproc import Hook, running_service
from tests.service.play import (
    BOT_ID,
    GROUP,
    Backend,
    action_button,
    assert_no_passing_leaks,
    room_in,
    store_of,
)

PASS_WINDOW, RESPONSE_WINDOW = 6.0, 2.5  # seconds
INLINE = "Ana"  # plays through the inline query, never in private


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    folder = tmp_path_factory.mktemp("passing")
    # On a Bot API before ephemeral messages: "🃏 My cards" is inline mode's list (the
    # hand shown in the group itself: test_hand_in_group).
    with running_service(
        folder,
        emulator=fast_config(bot_api="10.1"),
        pass_window=PASS_WINDOW,
        response_window=RESPONSE_WINDOW,
    ) as running:
        yield running


@pytest.fixture
def emu(stack: Hook) -> Iterator[RunningEmulator]:
    yield stack.emu
    assert stack.worker is not None
    stack.worker.check()  # no job raised


# ----- pressing buttons as the family --------------------------------------------------


def find_button(emu: RunningEmulator, chat: str, data: str) -> ChatMessage | None:
    for message in reversed(emu.messages_in(chat)):
        if any(b.value == data for row in message.buttons for b in row):
            return message
    return None


@dataclass
class Table:
    """A passing game in a chat, seen from the test: the room in Redis, and the family's
    hands on the buttons."""

    emu: RunningEmulator
    stack: Backend
    chat: int
    chat_name: str  # the group, or the player's name for a one-to-one game
    seen: dict[tuple[object, ...], LogLine] = field(default_factory=dict)
    response_labels: set[str] = field(default_factory=set)  # the big buttons pressed

    def room(self) -> Room:
        room = room_in(self.stack, self.chat)
        for line in room.log:  # the log keeps a few lines: collect them as they come
            about = line.model_dump()
            self.seen[tuple(sorted((k, str(v)) for k, v in about.items()))] = line
        return room

    def game(self, room: Room) -> PassingGame:
        assert isinstance(room.game, PassingGame)
        return room.game

    def seat(self, room: Room, name: str) -> int:
        return next(i for i, s in enumerate(room.seats) if s.name == name)

    def human(self, room: Room, seat: int) -> bool:
        return room.seats[seat].user_id is not None

    def press(self, room: Room, name: str, token: str) -> None:
        """Press a button of the current phase: a response in the group (or the one-to-one
        chat), a choice on the player's private keyboard or through the inline query."""
        data = f"{room.id}.{room.phase_version}.{token}"
        if name == INLINE and token != "r":
            answer = self.emu.inline_query(name, GROUP, f"g{room.id}")
            assert answer.is_personal
            if data not in {r.id for r in answer.results}:
                return  # the phase moved on meanwhile (a bot called): look again
            self.emu.choose_inline_result(name, answer, data)
            self.emu.wait_for(
                lambda: self.room().version > room.version or None, what=f"{name}'s {token}"
            )
            return
        chat = self.chat_name if token == "r" else name

        def button() -> ChatMessage | str | None:
            found = find_button(self.emu, chat, data)
            moved = self.room().phase_version != room.phase_version
            return found or ("moved on" if moved else None)

        message = self.emu.wait_for(button, what=f"{name}'s button {data} in {chat}")
        if isinstance(message, ChatMessage):
            if token == "r":
                found = [b.text for row in message.buttons for b in row if b.value == data]
                self.response_labels.update(found)
            with contextlib.suppress(EmulatorError):  # redrawn for a newer phase meanwhile
                self.emu.tap(name, message, data)

    def wait_for_change(self, room: Room, timeout: float) -> None:
        """Until the bots move, or else the window closes: once nothing is left to run
        before the window's end, the clock is moved on to it."""
        assert isinstance(self.stack, Hook), "the game is played in-process"
        worker = self.stack.worker
        assert worker is not None

        def moved() -> bool | None:
            return self.room().version > room.version or None

        if moved():
            return
        worker.settle()
        if not moved() and room.deadline is not None:
            worker.reach(room.deadline)
        self.emu.wait_for(moved, timeout=timeout, what="the bots, or the window to close")

    def lines(self, kind: str) -> list[LogLine]:
        return [line for line in self.seen.values() if line.kind == kind]


def heuristic_card(hand: tuple[str, ...]) -> str:
    """A card of the rank held fewest of: the family plays sensibly."""
    counts = Counter(rank_of(c) for c in hand)
    return min(hand, key=lambda c: (counts[rank_of(c)], c))


# ----- the script ----------------------------------------------------------------------


@dataclass
class Step:
    kind: str  # fake, false, timeout
    who: str
    fooled: tuple[str, ...] | None = ()  # who falls for a fake; None: whoever may (bots)
    begun: tuple[int, int] | None = None  # (hand, round) the step was set going in


def play(table: Table, script: list[Step], until_done: bool = False) -> Room:
    """Play until the game is over (or, `until_done`, the script is): the script's steps
    when the game allows them, else sensible play (pass the fewest-held rank, call
    ¡Burro! with four of a kind, answer real calls, never fakes unless scripted)."""
    for _ in range(3000):
        room = table.room()
        if room.status == "over" or (until_done and not script):
            return room
        game = table.game(room)
        hand, call = game.hand, game.hand.call
        step = script[0] if script else None
        humans = [s for s in to_move(game) if table.human(room, s)]
        letters = game.standing.letters
        names = [s.name for s in room.seats]
        here = (game.hand_no, hand.rotation)
        if call is not None:
            ours = step is not None and step.kind == "fake" and step.begun is not None
            scripted = (step.fooled or ()) if ours and step is not None else ()
            fooled = [s for s in humans if names[s] in scripted]
            responders = humans if call.real else fooled
            if responders:
                # While the script runs, the one with fewest letters is last to respond
                # (nobody loses too soon); then the one with the most (the game ends).
                pick = min if script else max
                last = pick(responders, key=lambda s: (letters[s], s))
                first = next((s for s in responders if s != last), last)
                table.press(room, names[first], "r")
            else:
                table.wait_for_change(room, RESPONSE_WINDOW + 10)
            continue
        if step is not None and step.begun is not None:
            if step.kind == "fake":  # its call is over
                if step.fooled is None:  # not scripted: whoever fell for it (bots may)
                    step.fooled = fooled_by(table, table.seat(room, step.who))
                check_step(table, step)
                script.pop(0)
                continue
            if step.kind == "timeout" and step.begun != here:
                if table_shows_timeout(table, step):
                    script.pop(0)
                    continue
                step.begun = None  # a call ended the round before its time: again
        holdout = None
        if step is not None and step.kind == "timeout":
            step.begun = step.begun or here
            holdout = table.seat(room, step.who)
        for seat in humans:
            if seat == holdout:
                continue
            name, cards = names[seat], hand.hands[seat]
            legal = legal_actions(game, seat)
            if step is not None and step.who == name and step.begun is None:
                if step.kind == "fake" and any(a.startswith("fake:") for a in legal):
                    table.press(room, name, "f")
                    after = table.game(table.room()).hand.call
                    if after is not None and after.caller == seat:
                        step.begun = here
                    break
                if step.kind == "false" and not is_four_of_a_kind(cards):
                    table.press(room, name, "b")
                    if any(line.seat == seat for line in table.lines("false_call")):
                        script.pop(0)  # else a bot called first: try again
                    break
            if is_four_of_a_kind(cards):
                table.press(room, name, "b")
            else:
                table.press(room, name, "c" + heuristic_card(cards))
            break
        else:
            table.wait_for_change(room, PASS_WINDOW + 10)
    raise AssertionError("the game did not end")


def fooled_by(table: Table, caller: int) -> tuple[str, ...]:
    """Who fell for the latest fake call of `caller`, by name."""
    room = table.room()
    told = [line for line in table.lines("fake_call") if line.seat == caller]
    return tuple(room.seats[s].name for s in told[-1].order) if told else ()


def table_shows_timeout(table: Table, step: Step) -> bool:
    room = table.room()
    seat = table.seat(room, step.who)
    return any(line.seat == seat for line in table.lines("timeout"))


def check_step(table: Table, step: Step) -> None:
    """The table's log tells what the step made happen."""
    room = table.room()
    seat = table.seat(room, step.who)
    if step.kind == "fake":
        fooled = {table.seat(room, n) for n in step.fooled or ()}
        told = [
            line
            for line in table.lines("fake_call")
            if line.seat == seat and set(line.order) == fooled
        ]
        assert told, f"no fake call by {step.who} that {step.fooled or 'nobody'} fell for"
        losers = set(told[-1].losers)
        assert losers == (fooled or {seat})


# ----- the games -----------------------------------------------------------------------


def tap_current(emu: RunningEmulator, stack: Backend, user: str, chat: int, token: str) -> None:
    """Tap a lobby or settings button once the chat shows the room's current version."""
    room = room_in(stack, chat)
    data = f"{room.id}.{room.version}.{token}"
    where = GROUP if chat < 0 else user
    message = emu.wait_for(lambda: find_button(emu, where, data), what=f"the button {data}")
    emu.tap(user, message, data)
    emu.wait_for(lambda: room_in(stack, chat).version > room.version or None, what=token)


def has_seats(stack: Backend, chat: int, seats: int) -> bool | None:
    return len(room_in(stack, chat).seats) == seats or None


def open_table(emu: RunningEmulator, stack: Backend) -> Table:
    """Ana opens a cuartetos table; Ben and Carla join (through the deep link the first
    time); a bot sits down; Ana starts."""
    emu.send_message("Ana", GROUP, "/burro cuartetos")
    lobby = emu.wait_for_message(GROUP, lambda m: action_button(m, "S") is not None)
    chat = lobby.chat_id
    for seated, user in enumerate(("Ben", "Carla"), start=2):
        room = room_in(stack, chat)  # the lobby as it is now: a join edits it
        data = f"{room.id}.{room.version}.J"
        message = emu.wait_for(partial(find_button, emu, GROUP, data), what=f"{user}'s join")
        tap = emu.tap(user, message, data)
        if tap.answer is not None and tap.answer.url:
            emu.open_link(user, tap.answer.url)  # never started the bot: deep link
        emu.wait_for(partial(has_seats, stack, chat, seated), what=f"{user} seated")
    tap_current(emu, stack, "Ana", chat, "B")  # a bot sits down
    store_of(stack).update(room_in(stack, chat).id, fixed_seed)
    tap_current(emu, stack, "Ana", chat, "S")
    assert room_in(stack, chat).status == "playing"
    return Table(emu, stack, chat, GROUP)


def fixed_seed(room: Room) -> Outcome:
    """The same deals every run (bots and the family then mostly play the same game)."""
    room.seed = (1 << 127) | 20240611  # a full-size key: a small one is replaced as legacy
    return Outcome(changed=True)


def test_group_game_with_calls_fakes_and_a_timeout(emu: RunningEmulator, stack: Hook) -> None:
    table = open_table(emu, stack)
    room = table.room()
    assert [s.bot is not None for s in room.seats] == [False, False, False, True]
    for seat in room.seats:  # no first-timers: their first ¡Burro! and fake act at once
        for told in (FALSE_BURRO, FAKE_CALL):
            if seat.user_id is not None:
                store_of(stack).redis.hset(user_hints_key(seat.user_id), told, "told")
    # The group's "🃏 My cards" opens Ana's hand as personal inline results.
    message = emu.wait_for_message(GROUP, lambda m: "🃏" in " ".join(m.button_texts))
    cards = next(b for row in message.buttons for b in row if b.value == f"g{room.id}")
    shown = emu.tap("Ana", message, (cards.row, cards.column)).inline_answer
    assert shown is not None and shown.is_personal and len(shown.results) >= 4

    script = [
        Step("fake", "Ana"),  # nobody falls for it: Ana takes the letter
        Step("fake", "Ben", fooled=("Ana", "Carla")),  # two fall for it
        Step("false", "Carla"),  # ¡Burro! without four of a kind
        Step("timeout", "Ben"),  # lets the time to choose run out
    ]
    # The group's table shows who has chosen: Ben does, the others not yet.
    ben = table.seat(room, "Ben")
    table.press(room, "Ben", "c" + heuristic_card(table.game(room).hand.hands[ben]))
    emu.wait_for_message(GROUP, lambda m: "✅ Ben:" in m.text and "⏳ Carla:" in m.text)

    played = play(table, script, until_done=True)
    assert played.status == "playing" and not script, f"not done: {script}"
    assert_no_passing_leaks(emu, stack, table.chat)
    room = play(table, script)  # on to the end

    game = table.game(room)
    assert game.over and len(game.losers) >= 1
    assert max(game.standing.letters) == game.rules.target
    real = table.lines("real_call")
    assert real, "no hand was won with ¡Burro!"
    assert all(line.losers for line in real)  # each names who was last (or too slow)
    assert room.seats[ben].timeouts >= 1
    # One big button for every call, real or fake: only the word tells them apart.
    assert all(re.fullmatch(r"🫳 ¡[A-Z]+!", label) for label in table.response_labels)
    assert "🫳 ¡BURRO!" in table.response_labels and len(table.response_labels) >= 2
    assert_no_passing_leaks(emu, stack, table.chat)
    final = emu.wait_for_message(
        GROUP, lambda m: m.sender_id == BOT_ID and action_button(m, "N") is not None
    )
    assert "🏁" in final.text
    emu.send_message("Carla", GROUP, "/export")  # the last hand's record, with receive times
    record = emu.wait_for_message(GROUP, lambda m: m.document is not None)
    assert record.document is not None
    assert record.document["file_name"] == f"burro-{room.id}-hand{game.hand_no}.json"


def test_one_to_one_against_bots_to_the_end(emu: RunningEmulator, stack: Hook) -> None:
    """Dan plays in private against two bots (one easy, sometimes fooled by fakes): his
    one message is the table, his cards and the response button."""
    emu.send_message("Dan", "Dan", "/play cuartetos")
    chat = emu.wait_for_message("Dan", lambda m: action_button(m, "S") is not None).chat_id
    for token in ("C", "o:bot", "o:bot", "o:done", "B", "S"):  # bots: good, then easy
        tap_current(emu, stack, "Dan", chat, token)
    table = Table(emu, stack, chat, "Dan")
    assert [s.bot for s in table.room().seats] == [None, "heuristic", "easy"]

    room = play(table, [Step("fake", "Dan", fooled=None)], until_done=True)  # the easy bot may fall
    room = play(table, [])
    game = table.game(room)
    assert game.over and max(game.standing.letters) == game.rules.target
    assert table.lines("real_call") and table.lines("fake_call")
    assert_no_passing_leaks(emu, stack, chat)
    final = emu.wait_for_message("Dan", lambda m: action_button(m, "N") is not None)
    assert "🏁" in final.text
