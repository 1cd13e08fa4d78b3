"""What one player may know of the passing game, and what everyone may know.

Renderers and bots only ever receive a view. A player sees their own four cards, the
card they have chosen, and what they passed and received at each pass; of the others,
only who has chosen, who responded, letters and calls. A hand's cards become public in
one case only: the caller of a real ¡Burro! shows their four of a kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cuartetos.cards import matching
from engine.cuartetos.game import deadline, legal_actions, phase, to_move, word
from engine.cuartetos.rules import CuartetosRules
from engine.cuartetos.sim import BURRO, CAP, direction_name, next_in
from engine.cuartetos.state import GameState, HandState, to_seconds
from engine.kernel.rules import LETTERS


@dataclass(frozen=True)
class CallView:
    caller: int
    word: str  # REAL_WORD ("Burro") or the fake word: players must read it
    at: float  # the call's receive time
    responded: tuple[int, ...]  # seats that responded, first to last by receive time


@dataclass(frozen=True)
class HandSummary:
    """How a finished hand ended, for everyone."""

    hand_no: int
    reason: str  # burro, cap, removed, game_over
    caller: int | None  # the real caller (burro)
    out: tuple[int, ...]  # the pile: caller, then responders by receive time
    losers: tuple[int, ...]  # took the hand-ending letter
    letters: tuple[tuple[int, str], ...]  # every letter of the hand: (seat, reason)
    shown: tuple[str, ...]  # the caller's four of a kind
    matching: tuple[int, ...]  # cap: each seat's largest group of one rank
    rotations: int


@dataclass(frozen=True)
class PublicView:
    """What the whole table sees."""

    rules: CuartetosRules
    seats: int
    hand_no: int
    dealer: int
    direction: str  # clockwise (to the left) / anticlockwise (to the right)
    players: tuple[int, ...]  # seats dealt in this hand
    removed: tuple[int, ...]  # seats removed for absence, in order
    letters: tuple[int, ...]  # per seat
    phase: str  # choose, call, over
    rotation: int  # passes made in this hand
    word: str  # the fake word allowed while choosing now
    waiting: tuple[int, ...]  # seats yet to choose, or (a call open) yet to respond
    chosen: tuple[int, ...]  # seats that have chosen their card for this pass
    deadline: float | None  # when the server may close this phase
    call: CallView | None
    fakes_left: tuple[int, ...]  # per seat, in this hand (0 or 1 by default)
    fakes_used: tuple[int, ...]  # fake calls each seat made in the game
    fooled: tuple[int, ...]  # times each seat responded to a fake
    idle: tuple[int, ...]  # rotations in a row with no action of one's own
    absences: tuple[int, ...]
    hand_letters: tuple[tuple[int, str], ...]  # letters given in this hand: (seat, reason)
    step: int  # actions applied in this hand (names a decision point)
    last_hand: HandSummary | None  # the hand before this one
    hand_result: HandSummary | None  # this hand's, once it is over (the game's last)
    game_over: bool
    end: str  # letters or too_few_players
    winners: tuple[int, ...]
    losers: tuple[int, ...]

    def letters_of(self, seat: int) -> str:
        """A seat's letters as a word so far: "", "B", "BU", ... "BURRO"."""
        return LETTERS[: self.letters[seat]]


@dataclass(frozen=True)
class PlayerView(PublicView):
    """What `seat` sees: the public view plus their own cards, passes and actions."""

    seat: int
    hand: tuple[str, ...]  # own four cards, by rank then suit
    my_choice: str  # the card chosen for this pass, "" if none yet
    gives_to: int  # the seat own cards go to in this hand
    gets_from: int  # the seat own cards come from
    passed: tuple[str, ...]  # own card given at each pass, oldest first
    received: tuple[str, ...]  # own card received at each pass, oldest first
    legal: tuple[str, ...]  # own legal actions now, sorted


def public_view(game: GameState) -> PublicView:
    return PublicView(**_public_fields(game))


def player_view(game: GameState, seat: int) -> PlayerView:
    if not 0 <= seat < game.seats:
        raise ValueError(f"no seat {seat} at a table of {game.seats}")
    hand = game.hand
    dealt = seat in hand.players
    return PlayerView(
        **_public_fields(game),
        seat=seat,
        hand=hand.hands[seat],
        my_choice=hand.chosen[seat],
        gives_to=next_in(hand.players, seat, hand.direction) if dealt else -1,
        gets_from=next_in(hand.players, seat, -hand.direction) if dealt else -1,
        passed=hand.passed[seat],
        received=hand.received[seat],
        legal=tuple(legal_actions(game, seat)),
    )


def summary(hand: HandState) -> HandSummary:
    caller = hand.caller if hand.caller >= 0 else None
    return HandSummary(
        hand_no=hand.standing.hand_no,
        reason=hand.end,
        caller=caller,
        out=hand.out,
        losers=hand.losers,
        letters=tuple((x.seat, x.reason) for x in hand.letters),
        shown=hand.hands[hand.caller] if hand.end == BURRO and caller is not None else (),
        matching=tuple(matching(h) for h in hand.hands) if hand.end == CAP else (),
        rotations=hand.rotation,
    )


def _public_fields(game: GameState) -> dict[str, Any]:
    hand, rules, st = game.hand, game.rules, game.standing
    call = None
    if hand.call is not None:
        c = hand.call
        call = CallView(c.caller, c.word, to_seconds(c.at), c.in_receive_order())
    return {
        "rules": rules,
        "seats": game.seats,
        "hand_no": game.hand_no,
        "dealer": hand.dealer,
        "direction": direction_name(hand.direction),
        "players": hand.players,
        "removed": st.removed,
        "letters": st.letters,
        "phase": phase(game),
        "rotation": hand.rotation,
        "word": word(game),
        "waiting": to_move(game),
        "chosen": tuple(s for s in hand.players if hand.chosen[s]),
        "deadline": deadline(game),
        "call": call,
        "fakes_left": tuple(
            max(0, min(rules.fakes_per_hand - f, rules.fakes_per_game - g))
            for f, g in zip(hand.fakes, st.fakes_used, strict=True)
        ),
        "fakes_used": st.fakes_used,
        "fooled": st.fooled,
        "idle": st.idle,
        "absences": st.absences,
        "hand_letters": tuple((x.seat, x.reason) for x in hand.letters),
        "step": len(hand.actions),
        "last_hand": summary(game.past[-1]) if game.past else None,
        "hand_result": summary(hand) if hand.end else None,
        "game_over": game.over,
        "end": game.end,
        "winners": game.winners,
        "losers": game.losers,
    }
