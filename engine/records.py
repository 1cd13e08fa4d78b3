"""Any game's record, `burro-record/1`: its `rules.preset` names the game that reads it
(found in `engine.registry`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, StrictStr

from engine.kernel.errors import RecordError, RulesError
from engine.kernel.protocol import Game
from engine.kernel.records import parse_document
from engine.registry import find_game


class _RulesPart(BaseModel):
    model_config = ConfigDict(extra="allow")  # the options: the game's own to check
    preset: StrictStr


class _Envelope(BaseModel):
    """What every game's record shares: the format and the preset; the rest is the game's."""

    model_config = ConfigDict(extra="ignore")
    rules: _RulesPart


def read_game_record(text: str) -> tuple[Game, Any]:
    """The game a record's preset names, and the record as that game reads it (whose
    `trace` and `story` replay it). RecordError names the first problem in one line."""
    envelope = parse_document(text, _Envelope)
    try:
        game, _ = find_game(envelope.rules.preset)
    except RulesError as exc:
        raise RecordError(str(exc)) from None
    return game, game.read_record(text)


def read_any_record(text: str) -> Any:
    """A record of any registered game, as its game's `read_record` returns it."""
    return read_game_record(text)[1]
