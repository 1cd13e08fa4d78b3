"""A room's log: the recent public events the table message tells, each of one kind.

The kinds are stored in Redis as their values (rooms written before this enum existed
hold the same strings), so a value never changes; a new kind is a new member. A stored
line of a kind not listed here is refused when its room loads: every kind ever written
is one of these.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class LogKind(StrEnum):
    # the follow-suit game's events (service/table/follow_suit.py)
    PLAY = "play"
    DRAW = "draw"
    PASS = "pass"
    PICKUP = "pickup"
    TOPPLE = "topple"  # the tent fell over
    TRICK = "trick"
    OUT = "out"  # a player is out of cards
    # how a follow-suit hand ended (the first two name a seat)
    BURRO = "burro"
    WINNER = "winner"
    NO_BURRO = "no_burro"  # the engine's hand-end reasons, as they are
    TRICK_CAP = "trick_cap"
    # any game's turn played for a player by the table (service/table/play.py)
    TIMEOUT = "timeout"
    REMOVED = "removed"  # timed out too often: a bot takes the seat
    # the passing game's events (service/table/cuartetos/table.py)
    FALSE_CALL = "false_call"
    FAKE_CALL = "fake_call"
    REAL_CALL = "real_call"
    ABSENT = "absent"  # away too long: a letter
    LEFT = "left"  # away too often: out of the game
    CAP = "cap"  # a hand ended by its round cap


class LogLine(BaseModel):
    """A public event, kept to tell the table what happened lately."""

    model_config = ConfigDict(extra="forbid")

    kind: LogKind
    seat: int = -1
    card: str | None = None  # a played (public) card
    count: int = 0
    hand_no: int = 0
    order: list[int] = Field(default_factory=list)  # a hand's result: seats in the order out
    word: str = ""  # passing game: the word of a call
    losers: list[int] = Field(default_factory=list)  # passing game: who took a letter for it
