"""The `random` level: a uniformly random legal action, seeded."""

from __future__ import annotations

from engine.follow_suit.bots.base import decision_rng, forced
from engine.follow_suit.views import PlayerView


class RandomBot:
    level = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: PlayerView) -> str:
        only = forced(view)
        if only is not None:
            return only
        return decision_rng(self.seed, view).choice(view.legal)
