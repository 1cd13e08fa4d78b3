"""Replaying a record: the machine trace of docs/interfaces.md section 4, and a story for people.

Both walk the record action by action through the same `HandSim`; an illegal action
stops the walk with a `ReplayStop` naming the step, the seat and the action.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.follow_suit import events as ev
from engine.follow_suit.actions import decode, encode
from engine.follow_suit.hand import HandSim
from engine.follow_suit.records import Record
from engine.follow_suit.refusals import refusal
from engine.kernel import errors
from engine.kernel.cards import display
from engine.kernel.errors import ReplayStop


def trace(record: Record) -> Iterator[dict[str, Any]]:
    """The trace lines: a step line before each action, then the result line."""
    sim = record.start()
    for k, (seat, action) in enumerate(record.actions):
        yield step_line(k, sim)
        _step(sim, k, seat, action)
    yield {"result": result(sim)}


def step_line(k: int, sim: HandSim) -> dict[str, Any]:
    mover = sim.to_move()
    codec = sim.t.codec
    legal = {str(mover): sorted(decode(a, codec) for a in sim.legal())} if mover >= 0 else {}
    return {
        "step": k,
        "to_move": [mover] if mover >= 0 else [],
        "legal": legal,
        "hands": [h.bit_count() for h in sim.hands],
        "stock": sim.stock_size(),
    }


def result(sim: HandSim) -> dict[str, Any]:
    return {
        "finished": sim.finished,
        "burro": sim.burro if sim.burro >= 0 else None,
        "winner": sim.winner if sim.winner >= 0 else None,
        "out": list(sim.out),
    }


def _step(sim: HandSim, k: int, seat: int, action: str) -> None:
    """Apply one record action, or raise ReplayStop saying why it cannot be."""
    where = f"step {k}: seat {seat} cannot {action!r}"
    try:
        if sim.finished:
            raise errors.IllegalAction("the hand is over")
        code = encode(action, sim.t.codec)
        if seat != sim.to_move():
            raise errors.NotYourTurn(f"it is seat {sim.to_move()}'s turn")
        if code not in sim.legal():
            raise refusal(sim, code)
    except errors.IllegalAction as exc:
        raise ReplayStop(f"{where}: {exc}") from None
    sim.step(code)


def story(record: Record) -> Iterator[str]:
    """The hand told for people: the deal, each trick, the result."""
    sim = record.start()
    rules, codec = record.rules, sim.t.codec
    yield (
        f"Burro, {rules.preset}: {record.seats} players, {rules.hand_size} cards each, "
        f"dealer seat {record.dealer}."
    )
    for seat in range(record.seats):
        yield f"  seat {seat}: " + " ".join(display(c) for c in codec.codes(sim.hands[seat]))
    yield f"  stock: {sim.stock_size()} cards"
    trick_no = 1
    yield f"Trick {trick_no}:"
    for k, (seat, action) in enumerate(record.actions):
        sim.events = []
        _step(sim, k, seat, action)
        for event in sim.events:
            line = _tell(event)
            if line:
                yield line
            if isinstance(event, ev.TrickWon) and event.leader >= 0:
                trick_no += 1
                yield f"Trick {trick_no}:"
    yield _tell_result(sim)


def _tell(event: ev.Event) -> str:
    s = f"seat {event.seat}"
    match event:
        case ev.CardPlayed(card=card):
            return f"  {s} plays {display(card)}"
        case ev.CardDrawn(card=card, pile=pile):
            side = f" from the {pile} half" if pile else ""
            return f"  {s} draws {display(card) if card else 'a card'}{side}"
        case ev.TentToppled(count=count):
            return f"  {s} knocks the tent over and takes all {count} cards"
        case ev.Passed():
            return f"  {s} passes"
        case ev.CardsPickedUp(cards=cards):
            return f"  {s} picks up " + " ".join(display(c) for c in cards)
        case ev.TrickWon(cards=cards):
            return f"  {s} wins the trick (" + " ".join(display(c) for c in cards) + ")"
        case ev.PlayerOut(place=place):
            return f"  {s} is out of cards (#{place})"
    return ""


def _tell_result(sim: HandSim) -> str:
    if not sim.finished:
        return f"The record stops before the hand ends ({sim.stock_size()} cards in the stock)."
    out = ", ".join(f"seat {s}" for s in sim.out) or "nobody"
    if sim.burro >= 0:
        return f"Seat {sim.burro} is the burro. Out in order: {out}."
    if sim.winner >= 0:
        return f"Seat {sim.winner} played their last card first and wins the hand."
    if sim.end == "trick_cap":
        return f"The hand was stopped after {sim.tricks} tricks (the safety cap): no result."
    return f"The last players went out in the same trick: no burro. Out in order: {out}."
