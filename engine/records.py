"""Any game's record, `burro-record/1`: the preset names the game that reads it."""

from __future__ import annotations

import json

from engine.cuartetos.records import PassingRecord, read_passing_record
from engine.cuartetos.rules import is_passing
from engine.follow_suit.records import Record, read_record


def read_any_record(text: str) -> Record | PassingRecord:
    """A record of either family: a passing-game preset (`cuartetos`) is read by
    `engine.cuartetos.records`, anything else as above."""

    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    rules = data.get("rules") if isinstance(data, dict) else None
    preset = rules.get("preset") if isinstance(rules, dict) else None
    if isinstance(preset, str) and is_passing(preset):
        return read_passing_record(text)
    return read_record(text)
