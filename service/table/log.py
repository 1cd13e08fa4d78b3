"""A room's log: the story of the hand, each line of one kind, each with its place.

Every line has a sequence number (`seq`), so each reader (the group's table, a player's
hand) can be told what happened since the line they last saw (service.ui.story). A line
may carry cards only its seat may see (`cards`: drawn for them, received): only that
seat's screens show them. A run of draws by one seat is one line: the engine's count.
The log keeps this hand's lines and the last one's (`append` trims it); a reader whose
last look was before the first line kept is told how many lines they missed.

The kinds are stored in Redis as their values (rooms written before this enum existed
hold the same strings), so a value never changes; a new kind is a new member. A stored
line of a kind not listed here is refused when its room loads: every kind ever written
is one of these.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from operator import attrgetter
from typing import Protocol

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
    RECEIVED = "received"  # passing game: a card passed to a seat (its `cards`, private)


# At most this many lines are kept (a long hand's oldest go first, told as a count).
MAX_LINES = 400


class LogLine(BaseModel):
    """An event, kept to tell each reader what happened since they last looked."""

    model_config = ConfigDict(extra="forbid")

    kind: LogKind
    seat: int = -1
    card: str | None = None  # a played (public) card
    count: int = 0
    hand_no: int = 0
    order: list[int] = Field(default_factory=list)  # a hand's result: seats in the order out
    word: str = ""  # passing game: the word of a call
    losers: list[int] = Field(default_factory=list)  # passing game: who took a letter for it
    seq: int = 0  # its place in the story (a run of draws: its last draw's)
    cards: list[str] = Field(default_factory=list)  # seen by `seat` only: drawn, received
    forced: bool = False  # done for a player: their only move, or their time ran out

    def first(self) -> int:
        """The first place this line takes: a run of n draws takes n."""
        return self.seq - self.count + 1 if self.kind == LogKind.DRAW else self.seq


class Logged(Protocol):
    """What holds a log (a room)."""

    log: list[LogLine]


_SEQ = attrgetter("seq")


def last_seq(log: Sequence[LogLine]) -> int:
    return max(map(_SEQ, log), default=0)


def append(room: Logged, line: LogLine, hand_no: int) -> None:
    """Add a line of hand `hand_no` with the next place; a draw right after the same
    seat's draw extends it. Lines stored without a place get theirs first."""
    log = numbered(room.log) if 0 in map(_SEQ, room.log) else list(room.log)
    seq = last_seq(log) + 1
    last = log[-1] if log else None
    if (
        line.kind == LogKind.DRAW
        and last is not None
        and last.kind == LogKind.DRAW
        and last.seat == line.seat
        and last.hand_no == hand_no
        and last.forced == line.forced
    ):
        merged = {"count": last.count + line.count, "cards": [*last.cards, *line.cards]}
        log[-1] = last.model_copy(update={**merged, "seq": last.seq + line.count})
    else:
        span = line.count if line.kind == LogKind.DRAW else 1  # `first`: the places it takes
        log.append(line.model_copy(update={"hand_no": hand_no, "seq": seq + span - 1}))
    # A log whose last line is of this hand was trimmed for it by that line's append:
    # only this hand's lines came since.
    trim = last is None or last.hand_no != hand_no
    room.log = trimmed(log, hand_no) if trim else log[-MAX_LINES:]


def numbered(log: list[LogLine]) -> list[LogLine]:
    """The log with a place for every line (one stored before lines had places has
    none)."""
    seq = last_seq(log)
    out = []
    for line in log:
        if line.seq == 0:
            seq += 1
            line = line.model_copy(update={"seq": seq})
        out.append(line)
    return out


# The last hand's lines told once it is over (a reader who had not seen the others is
# told them as a count: service.ui.story.missed): what was done for a player, the cards
# drawn, tricks, who went out, results.
DROPPED_WHEN_OVER = (LogKind.PLAY, LogKind.PASS, LogKind.PICKUP, LogKind.TOPPLE)


def trimmed(log: list[LogLine], hand_no: int) -> list[LogLine]:
    """This hand's lines and what the last hand's tell a player, at most MAX_LINES."""
    kept = [
        line
        for line in log
        if line.hand_no == hand_no
        or (line.hand_no == hand_no - 1 and (line.forced or line.kind not in DROPPED_WHEN_OVER))
    ]
    return kept[-MAX_LINES:]
