"""The table's contract, run against every registered game (the test game `tiny` too):
a whole game is played through the table core (`service.table.lobby` and `play`, its
jobs run on a fake clock) and shown through a fake platform, which renders every
screen the outbox would send. Checked at every step: each player's buttons are exactly
their legal moves, no screen shows a card its reader may not know, stale presses change
nothing, and the game ends with every chat told."""

from __future__ import annotations

import heapq
import json
import random
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

import pytest

import tests.games  # noqa: F401  (registers the test games)
from engine.registry import games
from service.infra.store import decode_room, encode_room
from service.platforms.base import Capabilities
from service.table import lobby, packed_games, play
from service.table.games import table_of
from service.table.lobby import Actor
from service.table.outcome import Job, JobKind, Outcome
from service.table.room import Room, RoomSettings
from service.ui import games as screens
from service.ui.intents import Move, Press
from service.ui.screens import Screen
from tests.engine.test_contract import strings

ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "es")
START = 1_800_000_000.0


@dataclass
class FakePlatform:
    """A chat platform that keeps every message it is given, rendered its own way."""

    name: str = "fake"
    sent: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def capabilities(self) -> Capabilities:
        return Capabilities(True, True, 100, 8, 64, False, False)

    def render(self, screen: Screen) -> dict[str, Any]:
        rows = [[(b.label, b.intent) for b in row] for row in screen.rows]
        return {"text": screen.text, "buttons": rows}

    def show(self, target: str, screen: Screen) -> dict[str, Any]:
        message = self.render(screen)
        self.sent.setdefault(target, []).append(message)
        return message


def cases() -> list[tuple[str, str]]:
    return [(game.name, preset) for game in games() for preset in game.presets]


@pytest.mark.parametrize(("game_name", "preset"), cases())
def test_a_whole_game_through_the_table_and_a_fake_platform(game_name: str, preset: str) -> None:
    room = new_table(preset)
    platform, clock = FakePlatform(), [START]
    pending: list[tuple[float, int, Job]] = []
    outcome = lobby.start(room, ANA, START, 1.5)
    assert playing(room), outcome.popup
    rnd = random.Random(preset)
    for step in range(3000):
        deliver(room, outcome, platform)
        queue_jobs(pending, outcome, step)
        if not playing(room):
            break
        outcome = next_change(room, pending, clock, rnd)
    assert room.status == "over" and play.game(room).result(room.game) is not None
    assert platform.sent.get("news"), "the end was told in the group"
    assert {f"news:{u}" for u in room.humans()} <= set(platform.sent)
    check_kept_packed(room)


def check_kept_packed(room: Room) -> None:
    """The ended room is stored as its game's packed moves, and loads as it was."""
    stored = encode_room(room)
    assert "packed_game" in json.loads(zlib.decompress(stored))
    packed_games._recent.clear()  # as another process loads it: replayed
    assert decode_room(stored) == room


def playing(room: Room) -> bool:
    return room.status == "playing"


def new_table(preset: str) -> Room:
    """A group table of `preset`: Ana and Ben, and bots up to the preset's fewest."""
    table = table_of(preset)
    settings = RoomSettings(preset=preset, options=table.initial_options(None, True))
    room = lobby.create_room(-100, None, ANA, START, settings=settings)
    lobby.join(room, BEN)
    least = play.game(room).presets[preset].players[0]
    while len(room.seats) < max(least, 3):
        lobby.add_bot(room, ANA)
    return room


def deliver(room: Room, outcome: Outcome, platform: FakePlatform) -> None:
    """Render what the outbox would send for the outcome's targets, and check it."""
    painter_of = {lang: screens.painter(room, lang) for lang in ("en", "es")}
    for target in sorted(outcome.sync):
        kind, _, rest = target.partition(":")
        if kind == "hand":
            user = int(rest.split(":")[0])
            seat = room.seat_of(user)
            assert seat is not None
            lang = room.seats[seat].lang
            message = platform.show(target, painter_of[lang].hand(seat))
            check_buttons(room, seat, message)
            check_secrets(room, message, seat)
        elif kind in ("table", "nudge"):
            painter = painter_of["en"]
            screen = painter.table() if kind == "table" else painter.nudge()
            check_secrets(room, platform.show(target, screen), None)
        elif kind == "news":
            text = "\n".join(painter_of["en"].news_lines())
            check_secrets(room, platform.show(target, Screen(text)), None)


def check_buttons(room: Room, seat: int, message: dict[str, Any]) -> None:
    """A player's buttons are their legal moves, each once, drawn for this phase."""
    moves = [
        intent
        for row in message["buttons"]
        for _, intent in row
        if isinstance(intent, Press) and isinstance(intent.what, Move)
    ]
    game = play.game(room)
    legal = set(game.legal_actions(room.game, seat)) if room.status == "playing" else set()
    shown = {m.what.action for m in moves}  # type: ignore[union-attr]
    assert shown <= legal | {a.partition(":")[0] for a in legal}, (shown, legal)
    assert len(moves) == len(shown)


def check_secrets(room: Room, message: dict[str, Any], reader: int | None) -> None:
    """No card another seat holds shows, unless the reader's own view knows it."""
    game = play.game(room)
    view = game.public_view(room.game) if reader is None else game.player_view(room.game, reader)
    known = strings(view)
    text = message["text"] + " " + " ".join(label for row in message["buttons"] for label, _ in row)
    painter = screens.painter(room, "en")
    for seat in range(len(room.seats)):
        if seat == reader:
            continue
        for card in game.hand(room.game, seat):
            if card in known:
                continue
            label = re.escape(painter.card(card))
            assert not re.search(rf"(^|[\s:(]){label}($|[\s.,)])", text), (reader, card)


def queue_jobs(pending: list[tuple[float, int, Job]], outcome: Outcome, step: int) -> None:
    for n, job in enumerate(outcome.jobs):
        heapq.heappush(pending, (job.at, step * 1000 + n, job))


def next_change(
    room: Room, pending: list[tuple[float, int, Job]], clock: list[float], rnd: random.Random
) -> Outcome:
    """A human presses one of their buttons (now and then a stale one first); else the
    next job comes due on the fake clock."""
    game = play.game(room)
    humans = play.waiting_humans(room)
    if humans and rnd.random() < 0.8:
        seat = rnd.choice(humans)
        user = room.seats[seat].user_id
        assert user is not None
        clock[0] += 1.0
        stale = play.press(room, room.phase_version - 1, user, "pass", clock[0], 1.5)
        assert isinstance(stale, Outcome) and stale.popup is not None
        action = rnd.choice(game.legal_actions(room.game, seat))
        change = play.press(room, room.phase_version, user, action, clock[0], 1.5)
        assert not isinstance(change, Outcome), change.popup
        return change(room)
    while pending:
        at, _, job = heapq.heappop(pending)
        clock[0] = max(clock[0], at)
        outcome = run_job(room, job, clock[0])
        if outcome is not None:
            return outcome
    raise AssertionError("nothing left to happen, and the game is not over")


def run_job(room: Room, job: Job, now: float) -> Outcome | None:
    """What the job's worker function does with the room (None: nothing, it is moot)."""
    phase, _, seat = job.arg.partition(":")
    if job.kind is JobKind.SYNC or str(room.phase_version) != phase:
        return None
    if job.kind is JobKind.BOT_TURN and int(seat) in room.bots_waiting():
        action = play.bot_action(room, int(seat))
        return play.bot_turn(room, int(seat), action, now, 1.5)
    if job.kind is JobKind.DEADLINE:
        return play.expire(room, now, 1.5)
    if job.kind is JobKind.TURN_TIMEOUT and play.waiting_humans(room):
        seat_out = play.waiting_humans(room)[0]
        action = play.bot_action(room, seat_out, "heuristic")
        assert action is not None
        return play.time_out(room, seat_out, action, now, 1.5)
    if job.kind is JobKind.REMIND:
        return play.remind(room)
    return None
