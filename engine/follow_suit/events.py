"""What an action caused, as immutable events (cards as codes).

Some events carry a card only its player may see (a drawn card, a toppled tent):
`redact(event, viewer)` gives the version another player may be shown.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Event:
    seat: int


@dataclass(frozen=True)
class CardPlayed(Event):
    card: str


@dataclass(frozen=True)
class CardDrawn(Event):
    card: str | None  # None when redacted for another player
    pile: str | None = None  # "left" / "right" in Burro em Pé


@dataclass(frozen=True)
class TentToppled(Event):
    count: int  # cards taken up, the one being drawn included
    cards: tuple[str, ...] = ()  # empty when redacted


@dataclass(frozen=True)
class Passed(Event):
    pass


@dataclass(frozen=True)
class CardsPickedUp(Event):
    """Cards of the trick taken into a hand (Cangkul's pick-up, Brazil's take the table):
    they were played face up, so everyone knows them."""

    cards: tuple[str, ...]


@dataclass(frozen=True)
class TrickWon(Event):
    """`seat` won the trick; `leader` leads the next one (-1 when the hand ended)."""

    cards: tuple[str, ...]
    leader: int


@dataclass(frozen=True)
class PlayerOut(Event):
    place: int  # 1 for the first out


@dataclass(frozen=True)
class HandOver(Event):
    """`seat` is the burro, or -1. `reason`: burro, no_burro, first_out or trick_cap."""

    winner: int
    out: tuple[int, ...]
    reason: str


@dataclass(frozen=True)
class ScoreChanged(Event):
    score: int


@dataclass(frozen=True)
class HandStarted(Event):
    """A new hand was dealt by `seat` (the dealer); `leader` leads."""

    hand_no: int
    leader: int


@dataclass(frozen=True)
class GameEnded(Event):
    """`seat` is -1; winners and losers share their places."""

    winners: tuple[int, ...]
    losers: tuple[int, ...]


def redact(event: Event, viewer: int | None) -> Event:
    """The event as `viewer` may see it (None: the public)."""
    if event.seat == viewer:
        return event
    if isinstance(event, CardDrawn):
        return replace(event, card=None)
    if isinstance(event, TentToppled):
        return replace(event, cards=())
    return event
