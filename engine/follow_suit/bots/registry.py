"""The bot levels by name, and what every bot looks like to its callers.

A bot is a pure function of its seed and a `PlayerView`: `choose(view)` returns one of
`view.legal`. It keeps no memory between calls (what it needs of the hand it rebuilds
from `view.history`), so one bot object can play any seat of any game, and the same
seed and view always give the same action.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from engine.follow_suit.views import PlayerView
from engine.kernel.rng import derive


@dataclass(frozen=True)
class Budget:
    """How long the strong bot thinks per decision: a number of rollouts, and a wall-clock
    cap (None: none, so the rollouts alone bind and a decision is reproducible)."""

    rollouts: int = 1200
    seconds: float | None = 0.2


class Bot(Protocol):
    level: str

    def choose(self, view: PlayerView) -> str:
        """One of `view.legal` for the seat the view belongs to."""
        ...


def decision_rng(seed: int, view: PlayerView) -> random.Random:
    """The randomness of one decision, fixed by the bot's seed and the decision point
    (a hand's history grows by one with every action, so its length names the point)."""
    return random.Random(derive(seed, view.hand_no, view.seat, len(view.history)))


def forced(view: PlayerView) -> str | None:
    """The only legal action, if there is just one (bots answer it without thinking)."""
    if not view.legal:
        raise ValueError(f"seat {view.seat} has nothing to do: it is not their turn")
    return view.legal[0] if len(view.legal) == 1 else None


def _factories() -> dict[str, Callable[[int, Budget | None], Bot]]:
    from engine.follow_suit.bots.heuristic import HeuristicBot
    from engine.follow_suit.bots.random_bot import RandomBot
    from engine.follow_suit.bots.search import SearchBot

    return {
        "random": lambda seed, _: RandomBot(seed),
        "easy": lambda seed, _: HeuristicBot(seed),
        "heuristic": lambda seed, _: HeuristicBot(seed),
        "strong": lambda seed, budget: SearchBot(seed, budget) if budget else SearchBot(seed),
    }


LEVELS: tuple[str, ...] = ("random", "easy", "heuristic", "strong")


def make_bot(level: str, seed: int = 0, budget: Budget | None = None) -> Bot:
    """A bot of a level (`random`, `easy` = `heuristic`, `strong`) with its seed;
    `budget` sets how long the strong bot thinks (others ignore it)."""
    factories = _factories()
    if level not in factories:
        raise ValueError(f"unknown bot level {level!r}; levels are: {', '.join(LEVELS)}")
    return factories[level](seed, budget)
