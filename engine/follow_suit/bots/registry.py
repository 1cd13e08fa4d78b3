"""The bot levels by name, and what every bot looks like to its callers.

A bot is a pure function of its seed and a `PlayerView`: `choose(view)` returns one of
`view.legal`. It keeps no memory between calls (what it needs of the hand it rebuilds
from `view.history`), so one bot object can play any seat of any game, and the same
seed and view always give the same action.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.follow_suit.bots.base import Bot, Budget


def _factories() -> dict[str, Callable[[int, Budget | None], Bot]]:
    from engine.follow_suit.bots.easy import EasyBot
    from engine.follow_suit.bots.heuristic import HeuristicBot
    from engine.follow_suit.bots.random_bot import RandomBot
    from engine.follow_suit.bots.search import SearchBot

    return {
        "random": lambda seed, _: RandomBot(seed),
        "easy": lambda seed, _: EasyBot(seed),
        "heuristic": lambda seed, _: HeuristicBot(seed),
        "strong": lambda seed, budget: SearchBot(seed, budget) if budget else SearchBot(seed),
    }


LEVELS: tuple[str, ...] = ("random", "easy", "heuristic", "strong")


def make_bot(level: str, seed: int = 0, budget: Budget | None = None) -> Bot:
    """A bot of a level (`random`, `easy`, `heuristic`, `strong`) with its seed;
    `budget` sets how long the strong bot thinks (others ignore it)."""
    factories = _factories()
    if level not in factories:
        raise ValueError(f"unknown bot level {level!r}; levels are: {', '.join(LEVELS)}")
    return factories[level](seed, budget)
