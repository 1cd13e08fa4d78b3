"""Presets live with their games (issue #30): the shared room, table and screens name
none; each game's table module gives its presets' looks and each game's screens their
names, all found through the registries (`service.table.games`, `service.ui.games`)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest

from engine.cuartetos.definition import GAME as CUARTETOS
from engine.follow_suit.definition import GAME as FOLLOW_SUIT
from engine.kernel.rules import SuitStyle
from engine.registry import known_names
from service.table import games as table_games
from service.table.room import RoomSettings
from service.ui import games
from service.ui.cuartetos import CuartetosPainter
from service.ui.follow_suit import FollowSuitPainter

ROOT = Path(__file__).resolve().parents[2]
SHARED = (
    "service/ui/screens.py",
    "service/ui/news.py",
    "service/ui/intents.py",
    "service/table/room.py",
    "service/table/lobby.py",
    "service/table/play.py",
    "service/table/outcome.py",
)


def string_constants(path: Path) -> set[str]:
    """The string literals of a module's code (docstrings and comments aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in docstrings
    }


@pytest.mark.parametrize("module", SHARED)
def test_the_shared_modules_name_no_preset(module: str) -> None:
    # A suit style may share a preset's word ("spanish"): it is a look, not a game.
    presets = {name.casefold() for name in known_names()} - set(get_args(SuitStyle))
    named = {s for s in string_constants(ROOT / module) if s.casefold() in presets}
    assert not named, f"{module} names presets {sorted(named)}: they belong to their game"


def test_every_built_in_preset_has_a_name_from_its_own_game() -> None:
    assert set(FollowSuitPainter.preset_names) == set(FOLLOW_SUIT.presets)
    assert set(CuartetosPainter.preset_names) == set(CUARTETOS.presets)
    listed = {**FollowSuitPainter.preset_names, **CuartetosPainter.preset_names}
    assert listed == games.PRESET_NAMES


@pytest.mark.parametrize(
    ("preset", "options", "style"),
    [
        ("spanish", {}, "spanish"),  # the preset's looks (service.table.follow_suit)
        ("spanish48", {}, "spanish"),
        ("spanish", {"suit_style": "french"}, "french"),  # the table's choice wins
        ("brazilian", {}, "french"),
        ("cuartetos", {}, "spanish"),  # the engine's own
    ],
)
def test_a_rooms_rules_have_its_presets_looks_beneath_its_options(
    preset: str, options: dict[str, str], style: str
) -> None:
    rules = table_games.rules_of(RoomSettings(preset=preset, options=options))
    assert (rules.preset, rules.suit_style) == (preset, style)
    if not options:
        assert rules == table_games.rules_for(preset)


def test_the_default_preset_comes_from_the_registry() -> None:
    assert RoomSettings().preset == table_games.DEFAULT_PRESET == table_games.preset_names()[0]
