"""Tiny's hand records, `burro-record/1` (the kernel's envelope), and their replay: the
trace of docs/interfaces.md section 4 and a story for people."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr

from engine.kernel import errors
from engine.kernel.records import FORMAT, parse_document
from tests.games.tiny.game import (
    PACK,
    Event,
    Hand,
    Rules,
    State,
    apply,
    deal,
    legal_actions,
    make_rules,
)


class _RulesPart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    preset: StrictStr
    options: dict[str, Any] = {}


class _GamePart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    hand_no: StrictInt
    points: list[StrictInt]


class _ActionPart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: StrictInt
    action: StrictStr


class _RecordDoc(BaseModel):
    model_config = ConfigDict(extra="ignore")
    rules: _RulesPart
    seats: StrictInt
    dealer: StrictInt
    deck: list[StrictStr]
    game: _GamePart
    actions: list[_ActionPart]


@dataclass(frozen=True)
class Record:
    rules: Rules
    seats: int
    hand: Hand  # as dealt; its actions are the ones to replay

    def start(self) -> State:
        """The hand as dealt, ready for the first action."""
        return deal(self.rules, self.seats, 0, replace(self.hand, actions=()))


def hand_record(rules: Rules, seats: int, hand: Hand) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "rules": {"preset": rules.preset, "options": rules.options()},
        "seats": seats,
        "dealer": hand.dealer,
        "deck": list(hand.deck),
        "game": {"hand_no": hand.hand_no, "points": list(hand.points)},
        "actions": [{"seat": s, "action": a} for s, a in hand.actions],
    }


def read_record(text: str) -> Record:
    """A checked record; RecordError names the first problem."""
    doc = parse_document(text, _RecordDoc)
    try:
        rules = make_rules(doc.rules.preset, doc.rules.options)
        deal(rules, doc.seats, 0, Hand(1, 0, PACK, (0,) * doc.seats))  # checks the seats
    except errors.RulesError as exc:
        raise errors.RecordError(str(exc)) from None
    if not 0 <= doc.dealer < doc.seats:
        raise errors.RecordError(f"dealer {doc.dealer} is not a seat")
    if sorted(doc.deck) != sorted(PACK):
        raise errors.RecordError("deck: the 12 cards, each once")
    points = doc.game.points
    if len(points) != doc.seats or not all(0 <= p < rules.target for p in points):
        raise errors.RecordError(f"game.points: one count from 0 to {rules.target - 1} per seat")
    actions = tuple((a.seat, a.action) for a in doc.actions)
    hand = Hand(doc.game.hand_no, doc.dealer, tuple(doc.deck), tuple(points), actions)
    return Record(rules, doc.seats, hand)


def trace(record: Record) -> Iterator[dict[str, Any]]:
    state = record.start()
    for k, (seat, action) in enumerate(record.hand.actions):
        playing = not state.over and not state.past
        movers = [state.turn] if playing else []
        legal = {str(s): legal_actions(state, s) for s in movers}
        hands = [len(h) for h in state.held]
        yield {"step": k, "to_move": movers, "legal": legal, "hands": hands, "stock": 0}
        state, _ = _replay(state, k, seat, action)
    winner = state.winners[0] if state.winners else None
    yield {"result": {"finished": bool(state.past), "burro": None, "winner": winner, "out": []}}


def story(record: Record) -> Iterator[str]:
    state = record.start()
    yield f"Tiny, first to {record.rules.target}: hand {record.hand.hand_no}."
    for seat, cards in enumerate(state.held):
        yield f"  seat {seat}: " + " ".join(cards)
    for k, (seat, action) in enumerate(record.hand.actions):
        state, events = _replay(state, k, seat, action)
        for event in events:
            if event.kind == "played":
                yield f"  seat {event.seat} plays {event.card}"
            elif event.kind == "round_won":
                yield f"  seat {event.seat} takes the round with {event.card}"
    yield "Points: " + " ".join(str(p) for p in state.points)
    if state.winners:
        yield f"Seat {state.winners[0]} wins the game."


def _replay(state: State, k: int, seat: int, action: str) -> tuple[State, list[Event]]:
    """Apply one record action, or ReplayStop naming the step, the seat and the action."""
    try:
        if state.over or state.past:
            raise errors.IllegalAction("the hand is over")
        return apply(state, seat, action)
    except errors.IllegalAction as exc:
        raise errors.ReplayStop(f"step {k}: seat {seat} cannot {action!r}: {exc}") from None
