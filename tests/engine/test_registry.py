"""engine.registry: the games by name in a fixed order, found by preset or alias."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tests.games  # noqa: F401  (registers the test-only games)
from cli.replay import replay_file
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


def test_burro_replay_replays_any_registered_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = TINY.new_game(TINY.make_rules("tiny", {}), 2, 5, 0.0)
    for _ in range(4):
        (seat,) = TINY.to_act(state)
        state, _ = TINY.apply(state, seat, TINY.legal_actions(state, seat)[0], 0.0)
    path = tmp_path / "tiny.record.json"
    path.write_text(json.dumps(TINY.hand_record(state, 0)), encoding="utf-8")
    assert replay_file(path, trace_mode=True) == 0
    *steps, last = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["step"] for line in steps] == [0, 1, 2, 3]
    assert last["result"]["finished"] is False
    assert replay_file(path, trace_mode=False) == 0
    assert capsys.readouterr().out.startswith("Tiny, first to 3: hand 1.")
