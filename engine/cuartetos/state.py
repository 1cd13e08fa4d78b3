"""The passing game's state: frozen dataclasses of tuples, so a state can be shared,
compared, stored as JSON and never changed behind anyone's back.

Times are integer microseconds of the server's clock (`at` seconds x 10**6, rounded):
integers survive JSON, ISO 8601 and back exactly, where float seconds would not.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cuartetos.rules import REAL_WORD, CuartetosRules

SYSTEM = -1  # the seat of the server's own actions (`close`)


def to_micros(seconds: float) -> int:
    return round(seconds * 1_000_000)


def to_seconds(micros: int) -> float:
    return micros / 1_000_000


@dataclass(frozen=True)
class Call:
    """An open call: ¡Burro! (word REAL_WORD) or a fake word, waiting for responses."""

    caller: int
    word: str
    at: int  # receive time of the call (µs)
    responses: tuple[tuple[int, int], ...] = ()  # (seat, receive time µs), as applied

    @property
    def real(self) -> bool:
        return self.word == REAL_WORD

    def in_receive_order(self) -> tuple[int, ...]:
        """The responders, first to last by receive time (ties: the order applied)."""
        order = sorted(range(len(self.responses)), key=lambda k: (self.responses[k][1], k))
        return tuple(self.responses[k][0] for k in order)


@dataclass(frozen=True)
class Letter:
    seat: int
    reason: str  # slowest, false_call, fooled, fake_unanswered, absent, fewest


@dataclass(frozen=True)
class Standing:
    """What the game carries from hand to hand, per seat (a record carries it as "game")."""

    hand_no: int  # 1 for the first hand: odd hands pass to the right under "alternate"
    letters: tuple[int, ...]
    fakes_used: tuple[int, ...]  # fake calls made in the game
    idle: tuple[int, ...]  # rotations in a row with no action of one's own
    absences: tuple[int, ...]  # times found absent
    removed: tuple[int, ...]  # seats removed for absence, in order
    fooled: tuple[int, ...]  # times each seat responded to a fake call (public)

    @classmethod
    def first(cls, seats: int) -> Standing:
        zeros = (0,) * seats
        return cls(1, zeros, zeros, zeros, zeros, (), zeros)


@dataclass(frozen=True)
class HandState:
    """One hand (one deal), frozen. Per-seat tuples have an entry for every seat; a seat
    not dealt in (removed) has an empty hand."""

    standing: Standing  # the game as this hand was dealt
    dealer: int
    direction: int  # +1: clockwise, seat i passes to i+1; -1: anticlockwise (to the right)
    players: tuple[int, ...]  # seats dealt in, in seat order
    seed: int  # the hand's own randomness: fake words, the cards `close` passes
    deck: tuple[str, ...]  # the pack before dealing, top first
    dealt_at: int  # µs
    hands: tuple[tuple[str, ...], ...]  # sorted codes
    rotation: int  # passes made so far
    chosen: tuple[str, ...]  # per seat: the card chosen this rotation, "" if none yet
    acted: tuple[bool, ...]  # per seat: any action of one's own this rotation
    fakes: tuple[int, ...]  # fake calls made this hand
    call: Call | None  # the call waiting for responses
    phase_at: int  # µs: when choosing (or the open call) began; deadlines count from it
    passed: tuple[tuple[str, ...], ...]  # per seat: the card given at each pass
    received: tuple[tuple[str, ...], ...]  # per seat: the card received at each pass
    letters: tuple[Letter, ...]  # letters given during this hand, in order
    end: str  # "" while playing; else burro, cap, removed or game_over
    caller: int  # the seat whose real ¡Burro! ended the hand, else -1
    out: tuple[int, ...]  # real call: the caller, then the responders by receive time
    losers: tuple[int, ...]  # seats given the hand-ending letter (slowest, fewest)
    actions: tuple[tuple[int, str, int], ...]  # (seat, action, receive time µs)


@dataclass(frozen=True)
class GameState:
    rules: CuartetosRules
    seats: int
    seed: int  # the game's secret key: every hand's pack and seed are drawn from it (keyed)
    standing: Standing  # now (letters change during a hand)
    hand: HandState  # the hand in play (the last one once the game is over)
    past: tuple[HandState, ...]  # finished hands, oldest first
    over: bool = False
    end: str = ""  # why the game ended: letters or too_few_players
    winners: tuple[int, ...] = ()  # fewest letters among the seats still playing
    losers: tuple[int, ...] = ()

    @property
    def hand_no(self) -> int:
        return self.standing.hand_no

    @property
    def playing(self) -> tuple[int, ...]:
        """Seats still in the game."""
        return tuple(s for s in range(self.seats) if s not in self.standing.removed)
