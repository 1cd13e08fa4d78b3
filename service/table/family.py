"""The family of Burro games as the chat sees it: every preset a table can choose, by
name or alias, and what a new table of one starts with. The games themselves are
found in `engine.registry`; each one's table ways in `service.table.tables`."""

from __future__ import annotations

from typing import Any

from engine import registry
from engine.kernel.errors import RulesError
from service.settings import Settings
from service.table.games import game_of
from service.table.room import Room, RoomSettings
from service.table.tables import table_of


def preset_names() -> list[str]:
    """Every preset a table can choose, game by game."""
    return list(registry.preset_names())


def preset_named(name: str) -> str | None:
    """The preset a name or alias means (`donkey` -> `cangkul`), or None."""
    try:
        return registry.find_game(name)[1]
    except RulesError:
        return None


def initial_options(preset: str, settings: Settings, group: bool = True) -> dict[str, Any]:
    """Rule options a new table of `preset` starts with (in a group, or a private chat),
    from the environment."""
    return table_of(preset).initial_options(settings, group)


def rules_for(preset: str) -> Any:
    return RoomSettings(preset=preset).rules()


def finished_hands(room: Room) -> int:
    """How many hands of the room's game are over."""
    if room.game is None:
        return 0
    return game_of(room.settings.preset).finished_hands(room.game)


def hand_record(room: Room, index: int) -> dict[str, Any]:
    """The `burro-record/1` record of hand `index` (0-based) of the room's game."""
    return game_of(room.settings.preset).hand_record(room.game, index)
