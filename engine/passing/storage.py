"""Passing games to JSON and back, losslessly (the service keeps games in Redis so)."""

from __future__ import annotations

from pydantic import TypeAdapter, ValidationError

from engine.errors import RecordError
from engine.passing.state import GameState

_ADAPTER: TypeAdapter[GameState] = TypeAdapter(GameState)


def dumps(game: GameState) -> bytes:
    """Compact JSON of a whole game: rules, standing, every hand's deck and actions."""
    return _ADAPTER.dump_json(game)


def loads(data: bytes | str) -> GameState:
    """A game from `dumps` output; RecordError if it is not one."""
    try:
        return _ADAPTER.validate_json(data)
    except ValidationError as exc:
        raise RecordError(f"not a stored passing game: {exc.errors()[0]['msg']}") from None
