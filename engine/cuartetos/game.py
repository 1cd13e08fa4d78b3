"""The passing game's public API: immutable, pure, and told the time.

    game = new_game(make_rules("cuartetos"), seats=5, seed=42, at=now)
    game, events = apply(game, seat, "pass:7S", at=now)
    game, events = apply(game, SYSTEM, "close", at=now)   # a window's time is up

`apply` checks in a fixed order and raises the first typed refusal that applies: the
game is over; the action names nothing; the seat is not playing (or is the server
acting out of place); then the phase (a call open or not), the card, the limits and the
time. Times are the server's receive times in float seconds; the engine never reads a
clock, so the same actions at the same times always give the same game.
"""

from __future__ import annotations

import math

from engine.cuartetos import errors as perr
from engine.cuartetos import events as ev
from engine.cuartetos.rules import CuartetosRules
from engine.cuartetos.sim import Sim, deal_hand, pack_for, shuffled_deal, word_for
from engine.cuartetos.state import SYSTEM, GameState, Standing, to_micros, to_seconds
from engine.kernel import errors
from engine.kernel.protocol import History
from engine.kernel.rng import keyed


def new_game(
    rules: CuartetosRules,
    seats: int,
    seed: int,
    dealer: int = 0,
    at: float = 0.0,
    deck: list[str] | None = None,
) -> GameState:
    """A new game started at time `at`; the first hand is dealt from `deck` if given
    (top first), else shuffled by `seed`."""
    rules.check_seats(seats)
    if not 0 <= dealer < seats:
        raise errors.RulesError(f"dealer must be a seat from 0 to {seats - 1}")
    standing = Standing.first(seats)
    start = to_micros(_time(at))
    if deck is None:
        hand = shuffled_deal(rules, seats, seed, standing, dealer, start)
    else:
        if sorted(deck) != sorted(pack_for(rules, seats)):
            raise errors.RulesError(f"the deck must be the {seats}-player pack, each card once")
        hand = deal_hand(rules, seats, standing, dealer, list(deck), keyed(seed, 1, 1), start)
    return GameState(rules, seats, seed, standing, hand, ())


# ----- reading the state ---------------------------------------------------------------


def word(game: GameState) -> str:
    """The fake word allowed while choosing now."""
    return word_for(game.rules, game.hand.seed, game.hand.rotation)


def deadline(game: GameState) -> float | None:
    """When the server may `close` the current phase (float seconds), None when over."""
    due = _deadline_micros(game)
    return None if due is None else to_seconds(due)


def _deadline_micros(game: GameState) -> int | None:
    if game.over:
        return None
    hand = game.hand
    window = game.rules.response_window if hand.call else game.rules.pass_window
    return hand.phase_at + to_micros(window)


def phase(game: GameState) -> str:
    """`choose`, `call` (a response window is open) or `over`."""
    if game.over:
        return "over"
    return "call" if game.hand.call else "choose"


def legal_actions(game: GameState, seat: int) -> list[str]:
    """The actions `seat` may take now, sorted as strings (the server's seat -1: `close`).
    Time is not looked at: a response after the window, or a `close` before the
    deadline, is listed but refused by `apply`."""
    if game.over:
        return []
    hand = game.hand
    if seat == SYSTEM:
        return ["close"]
    if seat not in hand.players:
        return []
    if hand.call is not None:
        call = hand.call
        done = seat == call.caller or any(s == seat for s, _ in call.responses)
        return [] if done else ["respond"]
    if hand.chosen[seat]:
        return []
    acts = ["pass:" + c for c in hand.hands[seat]]
    acts.append("burro")
    if _fakes_left(game, seat):
        acts.append("fake:" + word(game))
    return sorted(acts)


def to_move(game: GameState) -> tuple[int, ...]:
    """The seats that still have something to do in this phase: those yet to choose a
    card, or (a call open) those yet to respond. Empty when the game is over."""
    if game.over:
        return ()
    hand = game.hand
    if hand.call is not None:
        answered = {s for s, _ in hand.call.responses} | {hand.call.caller}
        return tuple(s for s in hand.players if s not in answered)
    return tuple(s for s in hand.players if not hand.chosen[s])


def _fakes_left(game: GameState, seat: int) -> bool:
    rules = game.rules
    return (
        game.hand.fakes[seat] < rules.fakes_per_hand
        and game.standing.fakes_used[seat] < rules.fakes_per_game
    )


def history(game: GameState) -> History:
    """The game as its start and its moves, each at its receive time (a deadline's
    `close` is the server's, seat SYSTEM)."""
    hands = (*game.past, game.hand)  # the last hand stays the hand in play, ended or not
    moves = tuple((seat, a, to_seconds(at)) for hand in hands for seat, a, at in hand.actions)
    first = hands[0]
    start = to_seconds(first.dealt_at)
    rules = game.rules
    return History(rules.preset, rules.options(), game.seats, game.seed, first.dealer, start, moves)


# ----- acting --------------------------------------------------------------------------


def parse(game: GameState, action: str) -> tuple[str, str, str]:
    """(kind, argument, canonical action string), or UnknownAction / UnknownCard."""
    if action in ("burro", "respond", "close"):
        return action, "", action
    kind, colon, arg = action.partition(":")
    if kind == "pass" and colon:
        if arg not in pack_for(game.rules, len(game.hand.players)):
            raise errors.UnknownCard(f"there is no card {arg!r} at this table")
        return "pass", arg, action
    if kind == "fake":
        wanted = word(game)
        said = arg.strip().strip("¡!").strip() if colon else wanted
        if said.casefold() != wanted.casefold():
            raise perr.WrongWord(f"this round's word is {wanted!r}, not {said!r}")
        return "fake", wanted, "fake:" + wanted
    raise errors.UnknownAction(f"unknown action {action!r}")


def check(game: GameState, seat: int, action: str, at: float) -> tuple[str, str, str]:
    """Parse `action` and check that `seat` may take it at `at`; the first refusal raises."""
    if game.over:
        raise errors.GameOver()
    _time(at)
    kind, arg, canonical = parse(game, action)
    hand = game.hand
    if (seat == SYSTEM) != (kind == "close"):
        raise perr.ServerOnly(
            "only the server closes a window" if seat != SYSTEM else "the server only closes"
        )
    if kind == "close":
        due = _deadline_micros(game)
        assert due is not None
        if to_micros(at) < due:
            raise perr.TooEarly(f"the window closes at {to_seconds(due):.6f}, not before")
        return kind, arg, canonical
    if seat not in hand.players:
        raise perr.NotPlaying()
    if hand.call is not None:
        return _check_response(game, seat, kind, at), arg, canonical
    if kind == "respond":
        raise perr.NoCall()
    if hand.chosen[seat]:
        raise perr.AlreadyChosen()
    if kind == "pass" and arg not in hand.hands[seat]:
        raise errors.NotInHand()
    if kind == "fake" and not _fakes_left(game, seat):
        raise perr.NoFakeLeft(f"one fake call per hand and {game.rules.fakes_per_game} per game")
    return kind, arg, canonical


def _check_response(game: GameState, seat: int, kind: str, at: float) -> str:
    call = game.hand.call
    assert call is not None
    if kind != "respond":
        raise perr.CallOpen()
    if seat == call.caller:
        raise perr.OwnCall()
    if any(s == seat for s, _ in call.responses):
        raise perr.AlreadyResponded()
    if to_micros(at) > call.at + to_micros(game.rules.response_window):
        raise perr.TooLate()
    return kind


def apply(game: GameState, seat: int, action: str, at: float) -> tuple[GameState, list[ev.Event]]:
    """Apply `seat`'s action received at `at` (float seconds): the new state and the
    events it caused. Raises a typed `IllegalAction` and changes nothing if refused."""
    kind, arg, canonical = check(game, seat, action, at)
    sim = Sim(game)
    sim.step(seat, kind, arg, canonical, to_micros(at))
    return sim.freeze(), sim.events


def close_window(game: GameState, at: float) -> tuple[GameState, list[ev.Event]]:
    """The server's `close` at `at`: resolves an open call, or passes for the slow."""
    return apply(game, SYSTEM, "close", at)


MAX_TIME = 1e11  # seconds after 1970: up to the year 5138, well inside ISO 8601 records


def _time(at: float) -> float:
    """A receive time in seconds since 1970 (a server's clock), finite and within reach."""
    if isinstance(at, bool) or not isinstance(at, int | float):
        raise perr.BadTime(f"a receive time in seconds is needed, not {at!r}")
    if not (math.isfinite(at) and 0 <= at < MAX_TIME):
        raise perr.BadTime(f"{at!r} is not a receive time in seconds")
    return float(at)
