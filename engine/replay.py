"""Replaying any game's record: the trace (docs/interfaces.md section 4) and the story,
told by the game that read it (`engine.records.read_game_record`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.kernel.protocol import Game


def trace_of(game: Game, record: Any) -> Iterator[dict[str, Any]]:
    """The trace of a record `game` read."""
    return game.trace(record)


def story_of(game: Game, record: Any) -> Iterator[str]:
    """The story of a record `game` read."""
    return game.story(record)
