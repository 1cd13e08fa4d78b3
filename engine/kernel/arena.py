"""What `burro arena` asks of a game (`Game.arena`) and what it gets back.

Each game runs its own arena (how its bots meet, what a game of it is); the command
line only builds an `ArenaRequest` and prints the `ArenaReport`. A report's JSON has
one shape for every game (docs/interfaces.md section 7): at least `REPORT_KEYS`, and
under `bots` one entry per level with at least `LEVEL_KEYS` (`stats.level_entry`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

Progress = Callable[[int, int], None]  # (games done, games in all)

REPORT_KEYS = frozenset({"preset", "seats", "games", "metric", "undecided", "chance_rate", "bots"})
LEVEL_KEYS = frozenset(
    {
        "seat_bot",
        "rate",
        "ci95",
        "observations",
        "decision_ms_mean",
        "decision_ms_p95",
        "decisions",
    }
)
TIMING_KEYS = frozenset({"decision_ms_mean", "decision_ms_p95"})  # wall-clock: vary by run


@dataclass(frozen=True)
class ArenaRequest:
    """Bots of `bots` (a level per seat, before rotation) play `games` games of `preset`
    from `seed`. A game ignores what does not apply to it (the passing game has no
    rollouts, no clock cap and one process)."""

    preset: str  # the canonical preset (`registry.find_game`'s)
    seats: int
    bots: tuple[str, ...]
    games: int  # rounded up to whole rotations of the bots
    seed: int
    options: dict[str, Any] = field(default_factory=dict)  # the table's rule options
    rollouts: int | None = None  # a searching bot's rollouts per decision; None: its default
    cap_seconds: float | None = None  # also cap its thinking time (not reproducible)
    jobs: int = 1  # processes sharing the games (same results, sooner)


class ArenaReport(Protocol):
    """An arena's results: for people, and as one JSON object."""

    def lines(self) -> list[str]: ...

    def to_json(self) -> dict[str, Any]: ...


def rotated(bots: tuple[str, ...], rotation: int) -> tuple[str, ...]:
    """The level at each seat in a rotation: the bots move one seat on each time, so
    every level plays every seat of the same deals and the luck of the cards cancels."""
    n = len(bots)
    return tuple(bots[(seat + rotation) % n] for seat in range(n))
