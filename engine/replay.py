"""Replaying any game's record: the trace (docs/interfaces.md section 4) and the story."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.cuartetos.records import PassingRecord
from engine.cuartetos.replay import story as passing_story
from engine.cuartetos.replay import trace as passing_trace
from engine.follow_suit.records import Record
from engine.follow_suit.replay import story, trace


def trace_of(record: Record | PassingRecord) -> Iterator[dict[str, Any]]:
    """The trace of a record of either family."""
    if isinstance(record, Record):
        return trace(record)

    return passing_trace(record)


def story_of(record: Record | PassingRecord) -> Iterator[str]:
    """The story of a record of either family."""
    if isinstance(record, Record):
        return story(record)

    return passing_story(record)
