"""A preset: a game's named rule set, as data (each game lists its own)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.kernel.errors import RulesError


def check_players(preset: str, least: int, most: int, seats: int) -> None:
    """Raise RulesError naming the preset's player range if `seats` is outside it."""
    if not least <= seats <= most:
        raise RulesError(f"{preset} is for {least} to {most} players, not {seats}")


@dataclass(frozen=True)
class Preset:
    name: str
    players: tuple[int, int]
    options: dict[str, Any]
    aliases: tuple[str, ...] = ()
    source: str = ""
