"""The `strong` level: Monte Carlo search over determinizations.

Each iteration deals the unseen cards at random, consistently with what the seat
knows (see `sampling`), then tries every legal action on that same deal and plays
each to the end with a fast rollout policy. The action with the best mean outcome
wins. Trying all actions on one deal compares them under the same luck, which cuts
the noise far more than independent samples would.

The budget is a number of rollouts and, optionally, a time cap. With the rollouts
binding (arena, tests) a decision depends only on the seed and the view.
"""

from __future__ import annotations

import time

from engine.actions import decode, encode
from engine.bots.knowledge import Knowledge
from engine.bots.registry import Budget, decision_rng, forced
from engine.bots.rollout import greedy_action, play_out, step
from engine.bots.sampling import determinize
from engine.cards import JOKER
from engine.hand import BURRO, FIRST_OUT, NO_BURRO, HandSim
from engine.views import PlayerView

DEFAULT_BUDGET = Budget()


class SearchBot:
    level = "strong"

    def __init__(
        self,
        seed: int = 0,
        budget: Budget = DEFAULT_BUDGET,
        greedy_rollouts: bool = True,
        epsilon: float = 0.1,
        habits: bool = True,
    ) -> None:
        self.seed = seed
        self.budget = budget
        self.greedy = greedy_rollouts
        self.epsilon_in_1024 = round(epsilon * 1024)
        self.habits = habits

    def choose(self, view: PlayerView) -> str:
        only = forced(view)
        if only is not None:
            return only
        know = Knowledge(view)
        codec = know.codec
        actions = distinct_actions(know, [encode(a, codec) for a in view.legal])
        if len(actions) == 1:
            return decode(actions[0], codec)
        means = self.evaluate(know, actions)
        best = max(range(len(actions)), key=lambda i: means[i])
        return decode(actions[best], codec)

    def evaluate(self, know: Knowledge, actions: list[int]) -> list[float]:
        """The mean outcome of each action for the seat to move, all actions tried on
        each sampled deal."""
        rng = decision_rng(self.seed, know.view)
        randbelow = rng._randbelow  # type: ignore[attr-defined]  # the fastest seeded source
        policy = greedy_action if self.greedy else None
        cap = self.budget.seconds
        deadline = None if cap is None else time.perf_counter() + cap
        totals = [0.0] * len(actions)
        samples = 0
        while samples * len(actions) < self.budget.rollouts or samples == 0:
            if deadline is not None and samples and time.perf_counter() > deadline:
                break
            deal = determinize(know, rng, self.habits)
            for i, action in enumerate(actions):
                sim = deal.clone()
                voids = know.voids[:]
                step(sim, action, voids)
                play_out(sim, policy, randbelow, self.epsilon_in_1024, voids)
                totals[i] += outcome(sim, know.seat)
            samples += 1
        return [t / samples for t in totals]


def distinct_actions(know: Knowledge, actions: list[int]) -> list[int]:
    """The actions with only one of each set that plays alike: cards of a suit between
    which no card still out of our hand ranks (the 3 and the 4 when the others hold no
    card between them) are the same card for the rest of the hand. The lowest stays."""
    out: list[int] = []
    previous = -1
    for action in sorted(actions):
        alike = (
            previous >= 0
            and action < JOKER
            and action // 13 == previous // 13
            and not know.outside & ((1 << action) - (1 << (previous + 1)))
            and (know.known[know.seat] >> action & 1) == (know.known[know.seat] >> previous & 1)
        )
        if not alike:
            out.append(action)
        previous = action if action < JOKER else -1
    return out


def outcome(sim: HandSim, seat: int) -> float:
    """1 for a good hand for `seat` (not the burro, or the winner), 0 for a bad one;
    a hand stopped by the trick cap is half."""
    if sim.end == BURRO:
        return 0.0 if sim.burro == seat else 1.0
    if sim.end == FIRST_OUT:
        return 1.0 if sim.winner == seat else 0.0
    return 1.0 if sim.end == NO_BURRO else 0.5
