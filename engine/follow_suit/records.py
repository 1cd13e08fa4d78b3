"""Game records, `burro-record/1` (docs/interfaces.md section 3): one hand, replayable exactly.

`read_record` checks a document as a whole and raises `RecordError` with one line
naming the problem; `hand_record` exports any hand of a game, finished or running.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr

from engine.follow_suit.actions import decode
from engine.follow_suit.game import GameState, start_hand
from engine.follow_suit.hand import HandSim, HandState, Table, table_for
from engine.follow_suit.rules import Rules, make_rules
from engine.kernel.errors import RecordError
from engine.kernel.records import FORMAT, RulesPart, deck_problem, parse_document, record_rules


class _ActionPart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: StrictInt
    action: StrictStr
    at: StrictStr | None = None  # the passing game's receive time


class _RecordDoc(BaseModel):
    model_config = ConfigDict(extra="ignore")
    format: Literal["burro-record/1"]
    rules: RulesPart
    seats: StrictInt
    dealer: StrictInt
    deck: list[StrictStr]
    actions: list[_ActionPart]
    seed: StrictInt | None = None


@dataclass(frozen=True)
class Record:
    """A checked record: the rules, the table and the actions to replay."""

    rules: Rules
    seats: int
    dealer: int
    deck: tuple[str, ...]
    seed: int | None
    actions: tuple[tuple[int, str], ...]

    @property
    def table(self) -> Table:
        return table_for(self.rules, self.seats)

    def start(self) -> HandSim:
        """The hand as dealt, ready for the first action."""
        return start_hand(self.table, self.dealer, list(self.deck), self.seed or 0)


def read_record(text: str) -> Record:
    """Parse and check a record's JSON text."""
    return _check(parse_document(text, _RecordDoc))


def _check(doc: _RecordDoc) -> Record:
    rules = record_rules(make_rules, doc.rules, doc.seats)
    if not 0 <= doc.dealer < doc.seats:
        raise RecordError(f"dealer {doc.dealer} is not a seat from 0 to {doc.seats - 1}")
    pack = table_for(rules, doc.seats).codec.pack()
    if sorted(doc.deck) != sorted(pack):
        raise RecordError(deck_problem(doc.deck, pack, f"{rules.deck} deck"))
    if rules.needs_seed and doc.seed is None:
        raise RecordError(
            "this game draws on randomness (the tent's topple_chance): 'seed' is required"
        )
    return Record(
        rules=rules,
        seats=doc.seats,
        dealer=doc.dealer,
        deck=tuple(doc.deck),
        seed=doc.seed,
        actions=tuple((a.seat, a.action) for a in doc.actions),
    )


def hand_record(game: GameState, index: int | None = None) -> dict[str, Any]:
    """The record of hand `index` (0-based, of the finished ones), or of the hand in play."""
    hand = game.hand if index is None else game.past[index]
    return record_of(game.rules, game.seats, hand)


def record_of(rules: Rules, seats: int, hand: HandState) -> dict[str, Any]:
    codec = table_for(rules, seats).codec
    record: dict[str, Any] = {
        "format": FORMAT,
        "rules": {"preset": rules.preset, "options": rules.options()},
        "seats": seats,
        "dealer": hand.dealer,
        "deck": [codec.code_of[c] for c in hand.deck],
        "actions": [{"seat": s, "action": decode(a, codec)} for s, a in hand.actions],
    }
    if rules.needs_seed:
        record["seed"] = hand.seed
    return record
