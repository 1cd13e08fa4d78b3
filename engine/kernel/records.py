"""The record envelope, `burro-record/1` (docs/interfaces.md section 3): every game's
hand records share it, each game checks its own fields."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, StrictStr, ValidationError

from engine.kernel.errors import RecordError, RulesError
from engine.kernel.rules import GameRules

FORMAT = "burro-record/1"
Doc = TypeVar("Doc", bound=BaseModel)
R = TypeVar("R", bound=GameRules)


class RulesPart(BaseModel):
    """A record's `rules`: a preset and the options on it (its game checks them)."""

    model_config = ConfigDict(extra="forbid")
    preset: StrictStr
    options: dict[str, Any] = {}


def parse_document(text: str, shape: type[Doc]) -> Doc:
    """A record's JSON text as `shape` (either family's document model), or RecordError
    naming the first problem in one line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    if data.get("format") != FORMAT:
        raise RecordError(f"'format' must be {FORMAT!r} (got {data.get('format')!r})")
    try:
        return shape.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise RecordError(f"{where}: {error['msg']}") from None


def record_rules(make_rules: Callable[[str, dict[str, Any]], R], part: RulesPart, seats: int) -> R:
    """A record's rule set, checked for its seats by its game's `make_rules` (a bad
    preset, option or seat count is a RecordError)."""
    try:
        rules = make_rules(part.preset, part.options)
        rules.check_seats(seats)
    except RulesError as exc:
        raise RecordError(str(exc)) from None
    return rules


def deck_problem(deck: list[str], pack: list[str], name: str) -> str:
    """What is wrong with a record's `deck`, which is not the `pack` (a card too many,
    twice, or missing): `name` names the pack ("spanish40 deck", "4-player pack")."""
    extra = sorted(set(deck) - set(pack))
    if extra:
        return f"deck: {extra[0]!r} is not a card of the {name}"
    duplicated = sorted({c for c in deck if deck.count(c) > 1})
    if duplicated:
        return f"deck: {duplicated[0]!r} appears more than once"
    missing = sorted(set(pack) - set(deck))
    return f"deck: {len(deck)} cards, the {name} has {len(pack)} (missing {missing[0]!r})"
