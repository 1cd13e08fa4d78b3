"""What an action caused, as immutable events (cards as codes, times as float seconds).

A chosen or received card is seen only by its player: `redact(event, viewer)` gives the
version anyone else may be shown. Everything else is public, the word of a call included
(reading it is the point of the game).
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Event:
    seat: int  # -1 for table-wide events


@dataclass(frozen=True)
class HandStarted(Event):
    """`seat` dealt hand `hand_no`; cards pass in `direction` among `players`."""

    hand_no: int
    direction: str  # clockwise / anticlockwise
    players: tuple[int, ...]


@dataclass(frozen=True)
class RotationStarted(Event):
    """Choosing opens for pass number `rotation` (1-based); `word` is its fake word."""

    rotation: int
    word: str


@dataclass(frozen=True)
class CardChosen(Event):
    card: str | None  # None when redacted
    auto: bool = False  # chosen by `close` for a seat that did not choose in time


@dataclass(frozen=True)
class CardsPassed(Event):
    """Everyone's chosen card went to the next player."""

    rotation: int


@dataclass(frozen=True)
class CardReceived(Event):
    card: str | None  # None when redacted
    giver: int


@dataclass(frozen=True)
class Called(Event):
    """`seat` shouted `word` (¡Burro! with four of a kind, or a fake): respond or not."""

    word: str
    at: float


@dataclass(frozen=True)
class FalseCall(Event):
    """¡Burro! without four of a kind: a letter, and the hand goes on."""


@dataclass(frozen=True)
class Responded(Event):
    at: float


@dataclass(frozen=True)
class CallResolved(Event):
    """The call of `seat` is settled: who responded (by receive time), who did not, and
    who took a letter for it."""

    word: str
    responders: tuple[int, ...]
    missing: tuple[int, ...]
    losers: tuple[int, ...]


@dataclass(frozen=True)
class LetterGiven(Event):
    letters: int  # the seat's letters now
    reason: str


@dataclass(frozen=True)
class PlayerAbsent(Event):
    absences: int


@dataclass(frozen=True)
class PlayerRemoved(Event):
    pass


@dataclass(frozen=True)
class HandOver(Event):
    """The hand ended (`seat` -1). `caller` made the real call (else -1); `out` is the
    pile of hands, first to last; `shown` the caller's four cards; `matching` the largest
    group of one rank per seat when the rotation cap ended it."""

    reason: str
    caller: int
    out: tuple[int, ...]
    losers: tuple[int, ...]
    shown: tuple[str, ...] = ()
    matching: tuple[int, ...] = ()


@dataclass(frozen=True)
class GameEnded(Event):
    winners: tuple[int, ...]
    losers: tuple[int, ...]
    reason: str  # letters or too_few_players


def redact(event: Event, viewer: int | None) -> Event:
    """The event as `viewer` may see it (None: the public)."""
    if event.seat == viewer:
        return event
    if isinstance(event, CardChosen | CardReceived) and event.card is not None:
        return replace(event, card=None)
    return event
