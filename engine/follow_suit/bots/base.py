"""What every follow-suit bot shares: its protocol, the search budget, and the two
helpers every level starts from (a decision's randomness, a forced answer)."""

from __future__ import annotations

import random
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
