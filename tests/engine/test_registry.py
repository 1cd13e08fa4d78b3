"""engine.registry: the games by name in a fixed order, found by preset or alias."""

from __future__ import annotations

import pytest

import tests.games  # noqa: F401  (registers the test-only games)
from engine import registry
from engine.cuartetos.definition import GAME as CUARTETOS
from engine.follow_suit.definition import GAME as FOLLOW_SUIT
from engine.kernel.errors import RulesError
from engine.kernel.presets import Preset
from tests.games.tiny import GAME as TINY
from tests.games.tiny.definition import Tiny


def test_the_built_in_games_come_first_in_a_fixed_order() -> None:
    assert registry.games()[:2] == (FOLLOW_SUIT, CUARTETOS)
    assert TINY in registry.games()
    assert registry.preset_names()[:7] == (
        "spanish",
        "spanish48",
        "brazilian",
        "portuguese",
        "burro_em_pe",
        "cangkul",
        "cuartetos",
    )


@pytest.mark.parametrize(
    ("name", "game", "preset"),
    [
        ("spanish", FOLLOW_SUIT, "spanish"),
        ("Donkey", FOLLOW_SUIT, "cangkul"),
        ("CUARTETOS", CUARTETOS, "cuartetos"),
        ("high_card", TINY, "tiny"),
    ],
)
def test_a_preset_or_alias_in_any_case_finds_its_game(name: str, game: object, preset: str) -> None:
    assert registry.find_game(name) == (game, preset)


def test_an_unknown_name_lists_the_known_presets() -> None:
    with pytest.raises(RulesError, match="unknown preset 'poker'; known presets: spanish, "):
        registry.find_game("poker")
    with pytest.raises(ValueError, match="cuartetos, tiny, donkey"):
        registry.find_game("poker")


def test_register_refuses_a_clash_and_accepts_the_same_game_again() -> None:
    assert registry.register(TINY) is TINY
    twin = Tiny()
    with pytest.raises(ValueError, match="already registered"):
        registry.register(twin)
    for presets, aliases in (
        ({"Spanish": Preset("Spanish", (2, 4), {})}, {}),
        ({"other": Preset("other", (2, 4), {})}, {"DONKEY": "other"}),
    ):
        clash = Tiny()
        clash.name, clash.presets, clash.aliases = "clash", presets, aliases
        with pytest.raises(ValueError, match="already"):
            registry.register(clash)
    assert "clash" not in [g.name for g in registry.games()]
