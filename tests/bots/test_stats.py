"""The arena's statistics, checked on outcomes known in advance."""

from __future__ import annotations

import pytest

import engine.follow_suit.bots.arena as arena
from engine.follow_suit.bots.arena import ArenaConfig, run_arena
from engine.follow_suit.bots.base import Bot
from engine.follow_suit.rules import Rules
from engine.kernel.arena import rotated
from engine.kernel.stats import HandResult, level_stats, percentile, wilson


@pytest.mark.parametrize(
    ("hits", "n", "low", "high"),
    [  # Wilson 95% intervals as published (e.g. Newcombe 1998, table I; R binom.wilson)
        (0, 10, 0.0, 0.2775),
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
    ],
)
def test_wilson_interval_matches_published_values(
    hits: int, n: int, low: float, high: float
) -> None:
    lo, hi = wilson(hits, n)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(20, 0, -1)]
    assert percentile(values, 95) == 19.0
    assert percentile(values, 50) == 10.0
    assert percentile([7.0], 95) == 7.0
    assert percentile([], 95) == 0.0


def test_level_stats_count_seats_of_decided_hands_only() -> None:
    results = [
        HandResult(("strong", "random", "random"), 1),
        HandResult(("random", "strong", "random"), 0),
        HandResult(("random", "random", "strong"), None),  # no burro: counts for nobody
        HandResult(("strong", "random", "random"), 2),
    ]
    strong, randoms = level_stats(results, {"strong": [1.0, 3.0], "random": []})
    assert (strong.level, strong.observations, strong.scored) == ("strong", 3, 0)
    assert (randoms.level, randoms.observations, randoms.scored) == ("random", 6, 3)
    assert randoms.rate == 0.5 and strong.rate == 0.0
    assert strong.ci95 == wilson(0, 3)
    assert strong.decision_ms_mean == 2.0 and strong.decision_ms_p95 == 3.0
    assert randoms.decisions == 0


def test_rotation_seats_every_bot_everywhere() -> None:
    bots = ("strong", "heuristic", "random", "random")
    seatings = [rotated(bots, r) for r in range(4)]
    for seat in range(4):
        assert sorted(s[seat] for s in seatings) == sorted(bots)


def test_arena_report_on_scripted_outcomes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake table where the random bot is always the burro, except that every
    third hand has no burro, and each decision 'takes' 2 ms on a fake clock."""
    hands: list[tuple[str, ...]] = []

    def fake_hand(
        rules: Rules,
        seats: int,
        seed: int,
        dealer: int,
        players: list[Bot],
        timings: list[list[float]],
        clock: object = None,
    ) -> int | None:
        levels = tuple(p.level for p in players)
        hands.append(levels)
        for seat in range(seats):
            timings[seat].append(2.0 if levels[seat] == "random" else 0.5)
        if len(hands) % 3 == 0:
            return None
        return levels.index("random")

    monkeypatch.setattr(arena, "play_hand", fake_hand)
    config = ArenaConfig("spanish", 3, ("random", "heuristic", "heuristic"), games=10, seed=1)
    report = run_arena(config)
    assert report.games == 12  # rounded up to whole rotations: 4 deals of 3
    assert [h.index("random") for h in hands] == [0, 2, 1] * 4  # every seat in turn
    assert report.undecided == 4
    randoms, heuristics = report.levels
    assert (randoms.observations, randoms.scored, randoms.rate) == (8, 8, 1.0)
    assert (heuristics.observations, heuristics.scored, heuristics.rate) == (16, 0, 0.0)
    assert randoms.ci95 == wilson(8, 8)
    assert randoms.decision_ms_mean == 2.0 and heuristics.decision_ms_p95 == 0.5
    data = report.to_json()
    assert data["chance_rate"] == pytest.approx(1 / 3)
    assert data["metric"] == "burro"
    assert [b["seat_bot"] for b in data["bots"]] == ["random", "heuristic"]
    assert data["bots"][0]["ci95"] == list(wilson(8, 8))


def test_a_real_arena_adds_up() -> None:
    config = ArenaConfig("cangkul", 2, ("heuristic", "random"), games=6, seed=4)
    report = run_arena(config)
    assert report.metric == "win" and report.games == 6
    decided = report.games - report.undecided
    assert sum(s.observations for s in report.levels) == decided * 2
    assert sum(s.scored for s in report.levels) == decided  # one winner per decided hand
    assert all(s.decisions > 0 for s in report.levels)


def test_processes_sharing_the_deals_give_the_same_rates() -> None:
    config = ArenaConfig("spanish", 4, ("heuristic", "random", "random", "random"), 40, seed=9)
    one, two = run_arena(config), run_arena(config, jobs=2)
    assert one.games == two.games == 40 and one.undecided == two.undecided
    for a, b in zip(one.levels, two.levels, strict=True):
        assert (a.level, a.observations, a.scored, a.decisions) == (
            b.level,
            b.observations,
            b.scored,
            b.decisions,
        )
