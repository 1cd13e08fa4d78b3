"""The story test (issue #37): whole games of every follow-suit preset, played through the
table core (bots and two humans, who press now and then or let their time run out, at a
live and a slow pace), their hands shown as the outbox shows them: each message's story
begins where its reader last looked (service.ui.story.begin), in a chat that edits its
messages and in one where every message is new. For every human, the stories they were
shown add up to exactly what the hand records hold for them: every card drawn for them
(with the engine's counts), every card played for them, every trick of their hands; and
nothing another player may not see."""

from __future__ import annotations

import heapq
import json
import random
import re
import zlib
from dataclasses import dataclass, field

import pytest

from engine.cuartetos import events as cev
from engine.cuartetos.records import read_record as read_cuartetos
from engine.cuartetos.replay import _apply as apply_action
from engine.follow_suit import events as ev
from engine.follow_suit.records import read_record
from engine.follow_suit.replay import _step
from service.table import games, lobby, play
from service.table.lobby import Actor
from service.table.log import last_seq
from service.table.outcome import Job, Outcome
from service.table.room import Room, RoomSettings
from service.ui import games as screens
from service.ui.screens import TablePainter
from service.ui.story import Cursor, begin
from tests.service.test_table_contract import FakePlatform, check_secrets, queue_jobs, run_job

ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")
START = 1_800_000_000.0
PRESETS = ("spanish", "spanish48", "brazilian", "portuguese", "burro_em_pe", "cangkul")
DRAWN = re.compile(r"^🫳 You drew (\d+) cards?: (.*)$")
DRAWN_UNNAMED = re.compile(r"^🫳 You drew (\d+) cards?\.$")
PLAYED_FOR = re.compile(r"^🤖 (.*) was played for you\.$")
ANY = "A card"  # an earlier hand's card, not named
CURSOR0 = Cursor(-1, -1, 0.0)
TRICK = re.compile(r" won the trick\.$")
FOLDED = re.compile(r"^… \d+ earlier moves?$")


@dataclass
class Reader:
    """What one human was shown: each message's last story (an edit replaces it)."""

    cursor: Cursor | None = None
    stories: list[list[str]] = field(default_factory=list)
    acted: float | None = None

    def show(self, lines: list[str], start: int, anew: bool) -> None:
        """A message's story: `anew`, one begun after the last one's (else, the same
        message's, edited: what it showed, and more)."""
        if self.stories and not anew:
            self.stories[-1] = lines
        else:
            self.stories.append(lines)

    def told(self) -> list[str]:
        return [line for story in self.stories for line in story]


@dataclass
class Expected:
    """What the hand records hold for one human seat."""

    drawn: list[str] = field(default_factory=list)
    played_for: list[str] = field(default_factory=list)
    tricks: int = 0
    tricks_in: int = 0


def cases() -> list[object]:
    live = [(preset, 1, "live", True) for preset in PRESETS]
    slow = [
        pytest.param(preset, seed, "slow", edits)
        for preset in PRESETS
        for seed, edits in ((2, False), (3, True))
    ]
    return [*live, *slow]


@pytest.mark.parametrize(("preset", "seed", "pace", "edits"), cases())
def test_each_human_is_told_exactly_what_happened_to_them(
    preset: str, seed: int, pace: str, edits: bool
) -> None:
    settings = RoomSettings(preset=preset, turn_timeout=60 if pace == "live" else 12 * 3600)
    room = lobby.create_room(-100, None, ANA, START, settings=settings)
    lobby.join(room, BEN)
    lobby.add_bot(room, ANA)
    lobby.add_bot(room, ANA)
    room.seed = (1 << 127) | zlib.crc32(f"{preset}{seed}".encode())  # the same deals each run
    readers = {1: Reader(), 2: Reader()}
    own: set[tuple[int, int, int]] = set()  # (hand, action index, seat) of a human's press
    rnd, clock = random.Random(f"{preset}{seed}"), [START]
    pending: list[tuple[float, int, Job]] = []
    outcome = lobby.start(room, ANA, START, 1.5)
    for step in range(5000):
        show(room, outcome, readers, edits, clock[0])
        queue_jobs(pending, outcome, step)
        if room.status != "playing":
            break
        outcome = next_change(
            room, pending, clock, rnd, own, readers, 1.0 if pace == "live" else 0.4
        )
    assert room.status == "over"
    for user, reader in readers.items():
        seat = room.seat_of(user)
        assert seat is not None
        check_told(reader.told(), expected(room, seat, own))


def show(
    room: Room,
    outcome: Outcome,
    readers: dict[int, Reader],
    edits: bool,
    now: float,
    whole: bool = False,
) -> None:
    """Render each human's hand as the outbox would, its story from their cursor
    (`whole`: every line of the message is kept, not only its first part's)."""
    platform = FakePlatform()
    for target in sorted(outcome.sync):
        kind, _, rest = target.partition(":")
        if kind != "hand":
            continue
        user = int(rest.split(":")[0])
        seat, reader = room.seat_of(user), readers[user]
        assert seat is not None
        anew = not edits or target.endswith(":new") or reader.cursor is None
        start = begin(reader.cursor, anew, reader.acted, room.log)
        painter = screens.painter(room, "en")
        assert isinstance(painter, TablePainter)
        painter.after = start
        message = platform.show(target, painter.hand(seat))
        check_secrets(room, message, seat)
        lines = message["text"].splitlines() if whole else story_of(message["text"])
        reader.show(lines, start, start != (reader.cursor or CURSOR0).start)
        reader.cursor = Cursor(start, last_seq(room.log), now)


def story_of(text: str) -> list[str]:
    """A hand message's story: its lines before the first blank one, if it has one."""
    head, sep, _rest = text.partition("\n\n")
    return head.splitlines() if sep else []


def next_change(
    room: Room,
    pending: list[tuple[float, int, Job]],
    clock: list[float],
    rnd: random.Random,
    own: set[tuple[int, int, int]],
    readers: dict[int, Reader],
    eager: float,
) -> Outcome:
    """A human presses a legal move (`eager`: how often, when it is theirs), else the
    next job comes due; the action pressed is noted as the presser's own."""
    game = play.game(room)
    humans = play.waiting_humans(room)
    if humans and rnd.random() < eager:
        seat = rnd.choice(humans)
        user = room.seats[seat].user_id
        assert user is not None
        clock[0] += 1.0
        before = actions_so_far(room)
        action = rnd.choice(game.legal_actions(room.game, seat))
        change = play.press(room, room.phase_version, user, action, clock[0], 1.5)
        assert not isinstance(change, Outcome), change.popup
        outcome = change(room)
        readers[user].acted = clock[0]
        made = [action for action in new_actions(room, before) if action[2] == seat]
        own.update(made[:1])  # the press itself: the forced moves after it are made for them
        return outcome
    while pending:
        at, _, job = heapq.heappop(pending)
        clock[0] = max(clock[0], at)
        done = run_job(room, job, clock[0])
        if done is not None:
            return done
    raise AssertionError("nothing left to happen, and the game is not over")


def actions_so_far(room: Room) -> tuple[int, int]:
    """(the hand in play, how many actions it has)."""
    hand = play.game(room).finished_hands(room.game)
    return hand, len(games.hand_record(room, hand)["actions"])


def new_actions(room: Room, before: tuple[int, int]) -> list[tuple[int, int, int]]:
    """The actions made since `before`, as (hand, index, seat)."""
    hand, count = before
    last = play.game(room).finished_hands(room.game)
    last = last if room.status == "playing" else last - 1
    made = []
    for index in range(hand, last + 1):
        actions = games.hand_record(room, index)["actions"]
        first = count if index == hand else 0
        made += [(index, k, a["seat"]) for k, a in enumerate(actions) if k >= first]
    return made


def expected(room: Room, seat: int, own: set[tuple[int, int, int]]) -> Expected:
    """What the hand records hold for `seat`: the cards drawn for it, those played for it
    (by a press that was not its own), the tricks of its hands and those it played in."""
    painter = screens.painter(room, "en")
    out = Expected()
    for hand in range(play.game(room).finished_hands(room.game)):
        record = read_record(json.dumps(games.hand_record(room, hand)))
        sim = record.start()
        in_trick = False
        for k, (mover, action) in enumerate(record.actions):
            sim.events = []
            _step(sim, k, mover, action)
            for event in sim.events:
                if isinstance(event, ev.CardDrawn) and event.seat == seat and event.card:
                    out.drawn.append(painter.card(event.card))
                elif isinstance(event, ev.CardPlayed) and event.seat == seat:
                    in_trick = True
                    if (hand, k, seat) not in own:
                        out.played_for.append(painter.card(event.card))
                elif isinstance(event, ev.TrickWon):
                    out.tricks += 1
                    out.tricks_in += in_trick
                    in_trick = False
    return out


def check_told(told: list[str], want: Expected) -> None:
    """The lines told add up to what the records hold, nothing folded away of it. An
    earlier hand's cards are not named (they may be in another's hand again): those
    lines are counted, each card matching any."""
    drawn: list[str] = []
    for line in told:
        found = DRAWN.match(line)
        if found:
            cards = found[2].split(" · ")
            assert int(found[1]) == len(cards), line  # the count is the cards told
            drawn += cards
        elif found := DRAWN_UNNAMED.match(line):
            drawn += [ANY] * int(found[1])
    assert len(drawn) == len(want.drawn)
    assert all(d in (c, ANY) for d, c in zip(drawn, want.drawn, strict=True)), drawn
    played = [m[1] for line in told if (m := PLAYED_FOR.match(line))]
    assert len(played) == len(want.played_for)
    assert all(p in (c, ANY) for p, c in zip(played, want.played_for, strict=True)), played
    tricks = sum(1 for line in told if TRICK.search(line))
    assert tricks == want.tricks >= want.tricks_in


RECEIVED = re.compile(r"^🫴 .* passed you (.*)\.$")


@pytest.mark.parametrize(("seed", "edits"), [(1, True), (2, False)])
def test_each_human_is_told_every_card_passed_to_them(seed: int, edits: bool) -> None:
    """Cuartetos: every card passed to a human is told on their own screen, once, and
    only there."""
    room = lobby.create_room(-100, None, ANA, START, settings=RoomSettings(preset="cuartetos"))
    lobby.join(room, BEN)
    lobby.add_bot(room, ANA)
    lobby.add_bot(room, ANA)
    room.seed = (1 << 127) | seed
    readers = {1: Reader(), 2: Reader()}
    rnd, clock = random.Random(seed), [START]
    pending: list[tuple[float, int, Job]] = []
    outcome = lobby.start(room, ANA, START, 1.5)
    for step in range(5000):
        show(room, outcome, readers, edits, clock[0], whole=True)
        queue_jobs(pending, outcome, step)
        if room.status != "playing":
            break
        outcome = next_change(room, pending, clock, rnd, set(), readers, 0.5)
    assert room.status == "over"
    for user, reader in readers.items():
        seat = room.seat_of(user)
        assert seat is not None
        told = [m[1] for line in reader.told() if (m := RECEIVED.match(line))]
        want = received(room, seat)
        assert want and len(told) == len(want)
        assert all(t in (c, ANY) for t, c in zip(told, want, strict=True)), told


def received(room: Room, seat: int) -> list[str]:
    """The cards passed to `seat` in the game's hand records."""
    painter = screens.painter(room, "en")
    cards = []
    for hand in range(play.game(room).finished_hands(room.game)):
        record = read_cuartetos(json.dumps(games.hand_record(room, hand)))
        game = record.start()
        for k, (mover, action, at) in enumerate(record.actions):
            game, events = apply_action(game, k, mover, action, at)
            cards += [
                painter.card(e.card)
                for e in events
                if isinstance(e, cev.CardReceived) and e.seat == seat and e.card
            ]
    return cards
