"""Replaying a passing-game record: the trace of docs/interfaces.md section 4, generalized to
simultaneous moves, and a story for people.

Trace step lines keep the follow-suit shape: `to_move` lists every seat that still has
something to do (yet to choose a card, or, a call open, yet to respond), `legal` their
actions, `hands` the cards per seat (4, or 0 for a removed seat) and `stock` 0. The
server's `close` (seat -1) is not a seat to move: it may come at any step once the
phase's deadline has passed. The result line adds to `finished`, `burro` (the one seat
that took the hand-ending letter, else null), `winner` (the real caller) and `out` (the
pile: caller, then responders by receive time): `losers` (every seat that took the
hand-ending letter) and `letters` (each letter of the hand, with its reason).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.cuartetos import events as ev
from engine.cuartetos.game import apply, legal_actions, to_move
from engine.cuartetos.records import CuartetosRecord
from engine.cuartetos.sim import word_for
from engine.cuartetos.state import GameState, HandState
from engine.kernel import errors
from engine.kernel.cards import display
from engine.kernel.errors import ReplayStop

REASONS = {
    "slowest": "the slowest to respond",
    "false_call": "¡Burro! without four of a kind",
    "fooled": "fell for a fake call",
    "fake_unanswered": "a fake call nobody fell for",
    "absent": "absent",
    "fewest": "fewest matching cards at the rotation cap",
}


def trace(record: CuartetosRecord) -> Iterator[dict[str, Any]]:
    """The trace lines: a step line before each action, then the result line."""
    game = record.start()
    for k, (seat, action, at) in enumerate(record.actions):
        yield step_line(k, game)
        game, _ = _apply(game, k, seat, action, at)
    yield {"result": result(game)}


def step_line(k: int, game: GameState) -> dict[str, Any]:
    movers = to_move(game) if _playing(game) else ()
    return {
        "step": k,
        "to_move": list(movers),
        "legal": {str(s): legal_actions(game, s) for s in movers},
        "hands": [len(h) for h in game.hand.hands],
        "stock": 0,
    }


def _playing(game: GameState) -> bool:
    """Whether the record's hand is still being played (not ended, not the next hand)."""
    return not game.over and not game.past


def _the_hand(game: GameState) -> HandState:
    return game.past[0] if game.past else game.hand


def result(game: GameState) -> dict[str, Any]:
    hand = _the_hand(game)
    single = hand.losers[0] if len(hand.losers) == 1 else None
    return {
        "finished": bool(hand.end),
        "burro": single,
        "winner": hand.caller if hand.caller >= 0 else None,
        "out": list(hand.out),
        "losers": list(hand.losers),
        "letters": [{"seat": x.seat, "reason": x.reason} for x in hand.letters],
    }


def _apply(
    game: GameState, k: int, seat: int, action: str, at: int
) -> tuple[GameState, list[ev.Event]]:
    """Apply one record action, or raise ReplayStop saying why it cannot be."""
    try:
        if not _playing(game):
            raise errors.IllegalAction("the hand is over")
        return apply(game, seat, action, at / 1_000_000)
    except errors.IllegalAction as exc:
        raise ReplayStop(f"step {k}: seat {seat} cannot {action!r}: {exc}") from None


def story(record: CuartetosRecord) -> Iterator[str]:
    """The hand told for people: the deal, each pass and call, the letters, the result."""
    game = record.start()
    hand = game.hand
    way = "to the left (clockwise)" if hand.direction == 1 else "to the right (anticlockwise)"
    yield (
        f"Burro, {record.rules.preset}: hand {hand.standing.hand_no}, "
        f"{len(hand.players)} players, 4 cards each, dealer seat {record.dealer}, "
        f"cards pass {way}."
    )
    for seat in hand.players:
        yield f"  seat {seat}: " + " ".join(display(c) for c in hand.hands[seat])
    yield f"Pass 1 (this round's fake word: ¡{word_for(record.rules, record.seed, 0)}!)"
    start = record.dealt_at
    for k, (seat, action, at) in enumerate(record.actions):
        game, events = _apply(game, k, seat, action, at)
        clock = f"[{(at - start) / 1_000_000:7.2f}s]"
        for event in events:
            if isinstance(event, ev.HandStarted):
                break  # the next hand: not this record's
            line = _tell(event)
            if line:
                yield f"{clock} {line}"
    yield _tell_result(game)


def _tell(event: ev.Event) -> str:
    s = f"seat {event.seat}"
    match event:
        case ev.RotationStarted(rotation=n, word=word):
            return f"Pass {n} (this round's fake word: ¡{word}!)"
        case ev.CardChosen(auto=True):
            return f"  {s} did not choose in time: a card is chosen for them"
        case ev.CardReceived(card=card, giver=giver):
            return f"  seat {giver} passes {display(card or '?')} to {s}"
        case ev.Called(word=word):
            return f"  {s} calls ¡{word}!"
        case ev.FalseCall():
            return f"  {s} called ¡Burro! without four of a kind"
        case ev.Responded():
            return f"  {s} responds"
        case ev.CallResolved(responders=responders, missing=missing):
            order = ", ".join(f"seat {x}" for x in responders) or "nobody"
            silent = ", ".join(f"seat {x}" for x in missing)
            late = f"; no response from {silent}" if missing else ""
            return f"  responses, first to last: {order}{late}"
        case ev.LetterGiven(letters=n, reason=reason):
            return f"  {s} takes a letter ({REASONS.get(reason, reason)}): {'BURRO'[:n]}"
        case ev.PlayerAbsent():
            return f"  {s} is absent"
        case ev.PlayerRemoved():
            return f"  {s} is removed from the game"
        case ev.HandOver(shown=shown) if shown:
            return "  the caller shows " + " ".join(display(c) for c in shown)
        case ev.GameEnded(losers=losers):
            return "The game is over: " + ", ".join(f"seat {x}" for x in losers) + " lost."
    return ""


def _tell_result(game: GameState) -> str:
    hand = _the_hand(game)
    if not hand.end:
        return f"The record stops before the hand ends (after {hand.rotation} passes)."
    losers = ", ".join(f"seat {x}" for x in hand.losers) or "nobody"
    if hand.end == "burro":
        return f"Seat {hand.caller} had four of a kind; the burro of this hand: {losers}."
    if hand.end == "cap":
        return f"No call after {hand.rotation} passes: fewest matching cards: {losers}."
    if hand.end == "removed":
        return "A player was removed: the cards are dealt again without them."
    return "A letter ended the game during the hand."
