"""The passing game's bots and arena: legal, pure, each level as described."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from engine.cuartetos.arena import ArenaConfig, main, play_game, run_arena
from engine.cuartetos.bots import LEVELS, make_bot, unanswered_chance
from engine.cuartetos.cards import plan_pass
from engine.cuartetos.game import word
from engine.cuartetos.rules import make_rules
from engine.cuartetos.views import PlayerView, player_view
from engine.kernel.stats import wilson
from tests.cuartetos.tables import ODD_CARDS, act, table


def view_after(*moves: str, seat: int = 0, **options: Any) -> PlayerView:
    game, _ = act(table(**options), *moves)
    return player_view(game, seat)


def test_heuristic_passes_the_rank_it_holds_fewest_of() -> None:
    rnd = random.Random(1)
    assert plan_pass(("AS", "AH", "AD", "7C"), rnd) == "7C"
    assert {plan_pass(("AS", "AH", "KD", "KC"), random.Random(k))[0] for k in range(40)} == {
        "A",
        "K",
    }
    assert make_bot("heuristic", 3).pick(view_after()) == "pass:7C"


def test_every_level_calls_at_once_with_four_of_a_kind() -> None:
    view = view_after(*ODD_CARDS)
    assert view.hand == ("AS", "AH", "AD", "AC")
    for level in LEVELS:
        assert make_bot(level, 9).pick(view) == "burro"


def test_every_level_responds_to_a_real_call() -> None:
    view = view_after(*ODD_CARDS, "2:burro@2.0")
    for level in LEVELS:
        bot = make_bot(level, 4)
        assert bot.reaction(view) == "respond" and bot.choose(view) == "respond"
        assert bot.pick(view) is None


def fooled_share(level: str) -> float:
    views = [view_after(f"{k % 4 + 1}:fake@1.0", seed=k) for k in range(60)]
    answers = [make_bot(level, k).reaction(v) for k in range(10) for v in views]
    return answers.count("respond") / len(answers)


def test_only_the_weak_levels_fall_for_fake_calls() -> None:
    assert fooled_share("heuristic") == 0 and fooled_share("strong") == 0
    assert 0.2 < fooled_share("easy") < 0.45
    assert 0.4 < fooled_share("random") < 0.6


def test_nothing_to_do_is_none() -> None:
    view = view_after("0:pass:7C@1.0")  # seat 0 has chosen
    assert view.legal == ()
    assert all(make_bot(level, 1).choose(view) is None for level in LEVELS)
    calling = view_after("3:fake@1.0", seat=3)
    assert all(make_bot(level, 1).choose(calling) is None for level in LEVELS)


def test_bots_are_pure_functions_of_seed_and_view() -> None:
    view = view_after()
    for level in LEVELS:
        choices = {make_bot(level, 77).pick(view) for _ in range(5)}
        assert len(choices) == 1
    assert len({make_bot("random", k).pick(view) for k in range(30)}) > 1


def test_strong_fakes_only_when_it_should_pay() -> None:
    view = view_after(absent_after=9)
    fake = "fake:" + word(table())
    fooled = dataclasses.replace(view, fakes_used=(0, 3, 0, 0, 0), fooled=(0, 0, 3, 3, 0))
    assert unanswered_chance(fooled) < 0.2
    assert fake in [make_bot("strong", k).pick(fooled) for k in range(40)]
    wary = dataclasses.replace(view, fakes_used=(0, 3, 3, 0, 0), fooled=(0, 0, 0, 0, 0))
    assert unanswered_chance(wary) > 0.2
    assert fake not in [make_bot("strong", k).pick(wary) for k in range(200)]
    last_letter = dataclasses.replace(fooled, letters=(4, 0, 0, 0, 0))
    assert fake not in [make_bot("strong", k).choose(last_letter) for k in range(200)]


@pytest.mark.parametrize("seats", [3, 5, 8])
def test_bots_play_whole_games_legally(seats: int) -> None:
    """`play_game` raises if a bot picks an illegal action; every game ends."""
    rules = make_rules("cuartetos")
    for k in range(3):
        players = [make_bot(LEVELS[(s + k) % len(LEVELS)], k * 10 + s) for s in range(seats)]
        game, times = play_game(rules, seats, k, k % seats, players, random.Random(k))
        assert game.over and game.losers
        assert all(times)


def test_arena_reports_loser_rates_in_burro_arena_shape() -> None:
    config = ArenaConfig(seats=4, bots=("strong", "heuristic", "easy", "random"), games=24, seed=3)
    report = run_arena(config).to_json()
    assert set(report) >= {"preset", "seats", "games", "metric", "undecided", "chance_rate", "bots"}
    assert report["games"] == 24 and report["metric"] == "loser"
    assert [b["seat_bot"] for b in report["bots"]] == ["strong", "heuristic", "easy", "random"]
    for entry in report["bots"]:
        assert set(entry) >= {
            "seat_bot",
            "rate",
            "ci95",
            "observations",
            "decision_ms_mean",
            "decision_ms_p95",
            "decisions",
        }
        assert entry["observations"] == 24  # each level played every seat of every deal
        low, high = entry["ci95"]
        assert 0 <= low <= entry["rate"] <= high <= 1
    assert 0.24 <= report["chance_rate"] <= 0.5
    again = run_arena(config).to_json()
    assert [b["rate"] for b in again["bots"]] == [b["rate"] for b in report["bots"]]


def test_wilson_interval() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(20, 100)
    assert low == pytest.approx(0.1333, abs=1e-3) and high == pytest.approx(0.2888, abs=1e-3)


def test_arena_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seats", "3", "--bots", "strong,easy,random", "--games", "3", "--json"]) == 0
    out, _ = capsys.readouterr()
    assert json.loads(out)["games"] == 3
    assert main(["--seats", "3", "--bots", "strong,easy", "--quiet"]) == 2
    assert main(["--seats", "3", "--bots", "strong,easy,genius", "--quiet"]) == 2
    assert "genius" in capsys.readouterr().err


def test_burro_arena_runs_cuartetos(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main as burro

    argv = ["arena", "--preset", "cuartetos", "--seats", "3", "--bots", "strong,easy,random"]
    assert burro([*argv, "--games", "3", "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["preset"] == "cuartetos" and report["metric"] == "loser"
