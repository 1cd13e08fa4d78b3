"""The arena's statistics: rates per bot level with 95% confidence intervals, and
decision times.

A hand's result is the seat it scored: the burro (last_holder_loses) or the winner
(first_out_wins). Each seat of a decided hand is one observation for the level that
played it; a hand with no burro or stopped by the trick cap counts for nobody. The
interval is Wilson's score interval for a binomial proportion (sound near 0 and 1 and
for small counts, where the normal approximation is not). Under pure chance every
seat of a decided hand scores with probability 1/seats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


@dataclass(frozen=True)
class HandResult:
    levels: tuple[str, ...]  # the bot level at each seat
    scored: int | None  # the burro's or the winner's seat; None when nobody scored


@dataclass(frozen=True)
class LevelStats:
    level: str
    observations: int  # seats played in decided hands
    scored: int  # of those, the burros (or wins)
    ci95: tuple[float, float]
    decisions: int  # timed decisions (with a real choice)
    decision_ms_mean: float
    decision_ms_p95: float

    @property
    def rate(self) -> float:
        return self.scored / self.observations if self.observations else 0.0


class LevelFigures(Protocol):
    """What every arena reports per bot level (here and in the passing game's arena)."""

    @property
    def level(self) -> str: ...
    @property
    def rate(self) -> float: ...
    @property
    def ci95(self) -> tuple[float, float]: ...
    @property
    def observations(self) -> int: ...
    @property
    def decisions(self) -> int: ...
    @property
    def decision_ms_mean(self) -> float: ...
    @property
    def decision_ms_p95(self) -> float: ...


def level_entry(s: LevelFigures) -> dict[str, Any]:
    """A level's entry in an arena's `--json` output (docs/interfaces.md)."""
    return {
        "seat_bot": s.level,
        "rate": s.rate,
        "ci95": list(s.ci95),
        "observations": s.observations,
        "decision_ms_mean": s.decision_ms_mean,
        "decision_ms_p95": s.decision_ms_p95,
        "decisions": s.decisions,
    }


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for `successes` out of `n` (0..1 when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # At p = 0 or 1 the interval touches the bound exactly; rounding must not move it off.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank percentile: the smallest value with at least q% at or below it."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def level_stats(
    results: Sequence[HandResult], decision_ms: dict[str, list[float]]
) -> list[LevelStats]:
    """One entry per level, in the order the levels first appear at the table."""
    levels: list[str] = []
    for result in results:
        levels.extend(lv for lv in result.levels if lv not in levels)
    out = []
    for level in levels:
        seen = hits = 0
        for result in results:
            if result.scored is None:
                continue
            for seat, lv in enumerate(result.levels):
                if lv == level:
                    seen += 1
                    hits += seat == result.scored
        times = decision_ms.get(level, [])
        out.append(
            LevelStats(
                level=level,
                observations=seen,
                scored=hits,
                ci95=wilson(hits, seen),
                decisions=len(times),
                decision_ms_mean=sum(times) / len(times) if times else 0.0,
                decision_ms_p95=percentile(times, 95),
            )
        )
    return out


@dataclass(frozen=True)
class ScoredReport:
    """The report of an arena whose games each score one seat or nobody: a hand's burro
    or winner, a game's one winner."""

    preset: str
    seats: int
    games: int
    metric: str  # "burro" or "win"
    undecided: int  # hands with no burro or stopped by the trick cap
    levels: list[LevelStats]

    @property
    def chance_rate(self) -> float:
        return 1 / self.seats

    def to_json(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "seats": self.seats,
            "games": self.games,
            "metric": self.metric,
            "undecided": self.undecided,
            "chance_rate": self.chance_rate,
            "bots": [level_entry(s) for s in self.levels],
        }

    def lines(self) -> list[str]:
        """The report for people."""
        what = "burro rate (lower is better)" if self.metric == "burro" else "win rate"
        out = [
            f"{self.preset}, {self.seats} seats, {self.games} games "
            f"({self.undecided} with nobody scored): {what}",
            f"pure chance: {self.chance_rate:.3f}",
            f"{'bot':<10} {'rate':>6}  {'95% CI (Wilson)':<17} {'seats':>6}"
            f"  {'ms mean':>8} {'ms p95':>8} {'choices':>8}",
        ]
        for s in self.levels:
            lo, hi = s.ci95
            out.append(
                f"{s.level:<10} {s.rate:6.3f}  [{lo:.3f}, {hi:.3f}]    {s.observations:6d}"
                f"  {s.decision_ms_mean:8.2f} {s.decision_ms_p95:8.2f} {s.decisions:8d}"
            )
        return out
