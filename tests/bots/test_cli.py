"""`burro arena`: one JSON object with --json, a table otherwise, exit 2 on bad input."""

from __future__ import annotations

import json

import pytest

import tests.games  # noqa: F401  (registers the test-only games)
from cli.main import main


def test_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "arena",
        "--preset",
        "spanish",
        "--seats",
        "2",
        "--bots",
        "strong,heuristic",
        "--games",
        "4",
        "--seed",
        "3",
        "--rollouts",
        "10",
        "--json",
    ]
    assert main(args) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["preset"] == "spanish" and data["seats"] == 2 and data["games"] == 4
    assert data["chance_rate"] == 0.5
    assert [b["seat_bot"] for b in data["bots"]] == ["strong", "heuristic"]
    for bot in data["bots"]:
        assert set(bot) >= {"seat_bot", "rate", "ci95", "decision_ms_mean", "decision_ms_p95"}
        assert bot["ci95"][0] <= bot["rate"] <= bot["ci95"][1]
    assert "4/4 games" in err  # the progress bar


def test_the_same_seed_gives_the_same_rates(capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "arena",
        "--preset",
        "cangkul",
        "--seats",
        "3",
        "--bots",
        "strong,random,heuristic",
        "--games",
        "3",
        "--rollouts",
        "8",
        "--json",
        "--quiet",
    ]
    main(args)
    first = json.loads(capsys.readouterr()[0])
    main(args)
    second = json.loads(capsys.readouterr()[0])
    rates = [(b["seat_bot"], b["rate"], b["ci95"]) for b in first["bots"]]
    assert rates == [(b["seat_bot"], b["rate"], b["ci95"]) for b in second["bots"]]


def test_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["arena", "--bots", "heuristic,random,random,random", "--games", "4", "--quiet"]
    assert main(args) == 0
    out = capsys.readouterr()[0]
    assert "burro rate" in out and "pure chance: 0.250" in out and "heuristic" in out


@pytest.mark.parametrize(
    "extra",
    [
        ["--bots", "heuristic,genius"],
        ["--bots", "heuristic,random,random"],  # three bots for two seats
        ["--seats", "12", "--bots", ",".join(["random"] * 12)],
        ["--options", '{"hand_size": 0}'],
        ["--options", "[1]"],
        ["--games", "0"],
    ],
)
def test_bad_input_exits_2(extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    args = ["arena", "--seats", "2", "--bots", "heuristic,random", "--games", "2", *extra]
    assert main(args) == 2
    assert capsys.readouterr()[1].startswith("burro arena: ")


def test_a_registered_game_plays_with_no_change_to_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["arena", "--preset", "high_card", "--seats", "2", "--bots", "greedy,random"]
    assert main([*args, "--games", "4", "--seed", "3", "--json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr()[0])
    assert (data["preset"], data["metric"], data["games"]) == ("tiny", "win", 4)
    assert [b["seat_bot"] for b in data["bots"]] == ["greedy", "random"]
    assert main([*args[:-1], "greedy,genius", "--quiet"]) == 2
    assert "genius" in capsys.readouterr()[1]
