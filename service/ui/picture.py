"""A table as a picture: what one reader may see of it, for the front ends that draw
cards (Telegram's widget in the chat, the table's web view) rather than write them.

A painter builds it from the engine's views only, as it builds a screen (`Screens.
picture`), so it holds nothing its reader may not see: their own cards, the others'
counts, the cards on the table. Every word in it is already translated; the drawing
code adds none of its own (a card's name for screen readers aside, which it is given).

`pack` turns it into the one compact JSON text both front ends draw from
(`service/cards/table.js`): within a widget's 1,024 bytes of `chat_data` for the chat,
whole for the view.

    {"v":1,"s":"e","t":"Family","k":"k3j9x0qa.17.",          style e(spanish)/f(rench)
     "p":[["Ana",5,"BU",3],…],                              seats: name, cards, score, flags
     "m":[[0,"7H"],…],"q":[12],"w":1,                       middle, stock piles, passes to
     "h":[["7H","p7H"],["2S",0],…],                         hand: code, tap (0: not now)
     "a":[["🂠 Draw","d",2],…],                             other moves: label, tap, tone
     "u":"Your turn until 18:00.","y":["Ben played 5♥."],   status, story (oldest first)
     "n":{"7H":"7 of hearts",…},"o":0}                      card names, game over

A tap is a press's text (`service.ui.tokens`: `<room>.<version>.<token>`) that the
front end sends back as a button's press is sent: `k` + the tap, so the shared start of
every tap is written once. The fields, packed:

    v  the form's version (FORMAT)        s  "e" Spanish suits, "f" French
    t  the title (game, hand)             k  what every tap starts with ("" if they differ)
    p  seats: [name, cards, score, flags] (flags: ACTING 1, YOU 2, OUT 4, BOT 8)
    m  the cards on the table: [seat, code]
    q  the stock's piles (none, one, or a tent's two)
    w  (only when set) the seat the reader's chosen card goes to
    h  the reader's hand in order: [code, tap or 0]
    a  other moves: [label, tap, tone] (tone: 0 plain, 1 go, 2 call, 3 danger)
    u  the status line                    y  the story, oldest line first
    n  each shown card's name             o  1 once the game is over

Every key but `w` is always there (table.js counts on it).

`moves` sorts a hand screen's buttons into the hand's taps and the other moves, so a
picture's taps are its text hand's presses (the same stale check and dedupe).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal, Protocol

from service.ui import spans, tokens
from service.ui.intents import Move, Press

# How a move stands out: service.ui.screens.Tone (the screens import this module, so it
# names the same literal rather than importing it).
Tone = Literal["go", "call", "danger"]


class Button(Protocol):
    """A screen's button as `moves` reads it (service.ui.screens.Button)."""

    @property
    def label(self) -> str: ...
    @property
    def intent(self) -> object: ...
    @property
    def tone(self) -> Tone | None: ...


MAX_WIDGET_DATA: Final = 1024  # bytes of a widget's chat_data (Bot API 10.4)
FORMAT: Final = 1  # "v": the packed form's version, for a widget sent before a change

# A seat's flags, added up
ACTING: Final = 1  # to act now
YOU: Final = 2  # the reader's own seat
OUT: Final = 4  # out of this hand (no cards left, or removed)
BOT: Final = 8  # a bot plays it

TONES: Final[dict[Tone | None, int]] = {None: 0, "go": 1, "call": 2, "danger": 3}


@dataclass(frozen=True)
class SeatPicture:
    name: str  # as the table names them
    cards: int  # cards in their hand
    score: str  # letters ("BU") or points ("12"); "" when the game keeps none
    flags: int = 0  # ACTING | YOU | OUT | BOT


@dataclass(frozen=True)
class Action:
    """A move the reader can make now: its words, and the press it sends."""

    label: str
    tap: str  # the press's text (service.ui.tokens.text)
    tone: Tone | None = None


@dataclass(frozen=True)
class HandCard:
    code: str  # the engine's card code
    tap: str | None = None  # the press playing (or passing) it now; None: not now


@dataclass(frozen=True)
class Picture:
    style: Literal["spanish", "french"]
    title: str  # the game and hand (the table's name too, for a reader at more than one)
    seats: tuple[SeatPicture, ...]  # in seat order
    middle: tuple[tuple[int, str], ...] = ()  # cards on the table: (seat, code)
    piles: tuple[int, ...] = ()  # the stock's piles: (), (stock,) or (left, right)
    towards: int | None = None  # the seat the reader's chosen card goes to (passing)
    hand: tuple[HandCard, ...] = ()  # the reader's cards, in the hand's order
    actions: tuple[Action, ...] = ()  # the reader's other moves (draw, pass, ¡Burro!…)
    status: str = ""  # one line: whose turn, what to do
    story: tuple[str, ...] = ()  # the last moves, oldest first
    names: tuple[tuple[str, str], ...] = ()  # (code, name) of each card shown: read aloud
    over: bool = False  # the game is over


# The moves that name a card of the reader's hand: play it (follow-suit), pass it (passing)
CARD_VERBS: Final = ("play", "pass")


def moves(rows: Sequence[Sequence[Button]]) -> tuple[dict[str, str], tuple[Action, ...]]:
    """A hand screen's buttons as a picture's taps: each card's (by its code) and the
    other moves, in the screen's order. Buttons that press nothing of the room's (a
    link, a list) are not moves and stay out."""
    cards: dict[str, str] = {}
    others: list[Action] = []
    for button in (b for row in rows for b in row):
        if not isinstance(button.intent, Press):
            continue
        tap = tokens.text(button.intent)
        what = button.intent.what
        verb, _colon, code = what.action.partition(":") if isinstance(what, Move) else ("", "", "")
        if verb in CARD_VERBS and code:
            cards[code] = tap
        else:
            others.append(Action(button.label, tap, button.tone))
    return cards, tuple(others)


def hand_cards(codes: Sequence[str], taps: dict[str, str]) -> tuple[HandCard, ...]:
    return tuple(HandCard(code, taps.get(code)) for code in codes)


def one_line(text: str) -> str:
    """A screen's words as a picture's line: without marks (service.ui.spans), on one line."""
    return " ".join(spans.plain(text).split())


def pack(picture: Picture, limit: int | None = MAX_WIDGET_DATA) -> str:
    """The picture as the front ends' JSON (the module's doc), within `limit` bytes
    (None: whole). What gives way, in order: the story from its oldest line, the card
    names, then names and labels cut short. ValueError if even that does not fit."""
    text = _dumps(picture)
    if limit is None or _size(text) <= limit:
        return text
    for smaller in _shrinking(picture):
        text = _dumps(smaller)
        if _size(text) <= limit:
            return text
    raise ValueError(f"a picture does not fit in {limit} bytes: {_size(text)}")


def _shrinking(picture: Picture) -> list[Picture]:
    """Ever smaller pictures: fewer story lines, no card names, shorter words."""
    steps = [replace(picture, story=picture.story[i:]) for i in range(1, len(picture.story) + 1)]
    bare = replace(picture, story=(), names=())
    steps.append(bare)
    for width in (16, 10, 6):
        steps.append(_cut_words(bare, width))
    return steps


def _cut_words(picture: Picture, width: int) -> Picture:
    seats = tuple(replace(s, name=_cut(s.name, width)) for s in picture.seats)
    actions = tuple(replace(a, label=_cut(a.label, width)) for a in picture.actions)
    return replace(
        picture,
        seats=seats,
        actions=actions,
        title=_cut(picture.title, width),
        status=_cut(picture.status, width * 4),
    )


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _dumps(picture: Picture) -> str:
    taps = [c.tap for c in picture.hand if c.tap] + [a.tap for a in picture.actions]
    start = _shared_start(taps)
    packed: dict[str, object] = {
        "v": FORMAT,
        "s": "e" if picture.style == "spanish" else "f",
        "t": picture.title,
        "k": start,
        "p": [[s.name, s.cards, s.score, s.flags] for s in picture.seats],
        "m": [[seat, code] for seat, code in picture.middle],
        "q": list(picture.piles),
        "h": [[c.code, c.tap[len(start) :] if c.tap else 0] for c in picture.hand],
        "a": [[a.label, a.tap[len(start) :], TONES[a.tone]] for a in picture.actions],
        "u": picture.status,
        "y": list(picture.story),
        "n": dict(picture.names),
        "o": int(picture.over),
    }
    if picture.towards is not None:
        packed["w"] = picture.towards
    return json.dumps(packed, ensure_ascii=False, separators=(",", ":"))


def _shared_start(taps: Sequence[str]) -> str:
    """The `<room>.<version>.` every tap starts with, or "" when they differ."""
    if not taps:
        return ""
    start = taps[0][: taps[0].rfind(".") + 1]
    return start if all(tap.startswith(start) for tap in taps) else ""


def _size(text: str) -> int:
    return len(text.encode("utf-8"))
