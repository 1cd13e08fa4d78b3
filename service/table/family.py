"""The seam between the two families of Burro: follow-suit (`spanish` … `cangkul`) and
passing (`cuartetos`). A room's family is its preset's; the few places that differ ask
here instead of branching on preset names, and each family keeps its own modules
(`service.table.moves`/`service.ui.screens`, `service.table.cuartetos.*`)."""

from __future__ import annotations

from typing import Any

from engine.cuartetos import PASSING_PRESETS, PassingRules
from engine.cuartetos import GameState as PassingGame
from engine.cuartetos.records import hand_record as passing_hand_record
from engine.cuartetos.rules import PASSING_ALIASES
from engine.follow_suit import records as follow_records
from engine.follow_suit.game import GameState
from engine.follow_suit.rules import ALIASES, PRESETS, Rules
from service.infra.settings import Settings
from service.table.cuartetos import lobby as passing_lobby
from service.table.room import Room, RoomSettings
from service.ui import games
from service.ui.i18n import Translator


def preset_names() -> list[str]:
    """Every preset a table can choose, follow-suit first."""
    return [*PRESETS, *PASSING_PRESETS]


def preset_named(name: str) -> str | None:
    """The preset a name or alias means (`donkey` -> `cangkul`), or None."""
    name = name.lower()
    for known, aliases in ((PRESETS, ALIASES), (PASSING_PRESETS, PASSING_ALIASES)):
        canonical = aliases.get(name, name)
        if canonical in known:
            return canonical
    return None


def painter(room: Room, lang: str, bot_username: str = "burro_bot") -> games.Screens:
    """The room's screens: see `service.ui.games.painter`, which callers should use."""
    return games.painter(room, lang, bot_username)


def initial_options(preset: str, settings: Settings, group: bool = True) -> dict[str, Any]:
    """Rule options a new table of `preset` starts with (in a group, or a private chat),
    from the environment."""
    if preset in PASSING_PRESETS:
        return passing_lobby.initial_options(settings, group)
    return {}


def rules_for(preset: str) -> Rules | PassingRules:
    return RoomSettings(preset=preset).rules()


def rules_text(rules: Rules | PassingRules, tr: Translator) -> str:
    """A rule set told: see `service.ui.games.rules_text`, which callers should use."""
    return games.rules_text(rules, tr)


def finished_hands(game: GameState | PassingGame) -> int:
    """How many hands of the game are over (a passing game's last one stays in play)."""
    if isinstance(game, PassingGame):
        return len(game.past) + (1 if game.hand.end else 0)
    return len(game.past)


def hand_record(game: GameState | PassingGame, index: int) -> dict[str, Any]:
    """The `burro-record/1` record of finished hand `index` (0-based)."""
    if isinstance(game, PassingGame):
        return passing_hand_record(game, index if index < len(game.past) else None)
    return follow_records.hand_record(game, index)
