"""The `strong` level: Monte Carlo search over determinizations.

Each iteration deals the unseen cards at random, consistently with what the seat knows
(see `sampling`) and, of a few deals, preferring one in which the others' play is what
the tips would have played from the hands it gives them (`leads`: each one's whole past
where drawing is strict, else their recent leads), then tries every
legal action on that same deal and plays each to the end, every seat following the tips
(`rollout`, with a little randomness). Trying all actions on one deal compares them
under the same luck, which cuts the noise far more than independent samples would.

The searched move is the best mean outcome, with one guard measured in the arena:
when following suit, the tips' move (win with the highest card, else shed the lowest)
is hard to beat and the differences are small, so the search overrides it only when
its move is better by two standard errors of the paired difference. Leads, where
the choice matters most, are the search's own.

A void seat in the tent choosing between its two halves is not searched: both hold
unseen cards and a topple takes both, so the choice is the tips' (the taller half)
and a search would only weigh noise, at the cost of a whole budget.

The budget is a number of rollouts and, optionally, a time cap. With the rollouts
binding (arena, tests) a decision depends only on the seed and the view.
"""

from __future__ import annotations

import math
import time

from engine.follow_suit.actions import decode, encode
from engine.follow_suit.bots.base import Budget, decision_rng, forced
from engine.follow_suit.bots.heuristic import decide, draw_choice
from engine.follow_suit.bots.knowledge import Knowledge
from engine.follow_suit.bots.leads import lead_checks
from engine.follow_suit.bots.rollout import play_out, step
from engine.follow_suit.bots.sampling import determinize
from engine.follow_suit.bots.tips import DEFAULT_WEIGHTS
from engine.follow_suit.hand import BURRO, FIRST_OUT, NO_BURRO, HandSim
from engine.follow_suit.views import PlayerView
from engine.kernel.cards import JOKER

DEFAULT_BUDGET = Budget()


class SearchBot:
    level = "strong"

    def __init__(
        self,
        seed: int = 0,
        budget: Budget = DEFAULT_BUDGET,
        epsilon: float = 0.1,
        habits: bool = True,
        lead_z: float = 0.0,
        follow_z: float = 2.0,
        lead_tries: int = 8,
    ) -> None:
        self.seed = seed
        self.budget = budget
        self.epsilon_in_1024 = round(epsilon * 1024)  # random moves in the rollouts
        self.habits = habits  # sample with the follow habits (see `knowledge`)
        # How many standard errors a searched move must gain over the tips' move to be
        # played instead, when leading and otherwise (0: always the searched move).
        self.lead_z = lead_z
        self.follow_z = follow_z
        # Deals tried, per sample, for one in which the others' recent leads are the
        # tips' leads (1: any deal; see `leads`).
        self.lead_tries = lead_tries

    def choose(self, view: PlayerView) -> str:
        only = forced(view)
        if only is not None:
            return only
        if all(a.startswith("draw") for a in view.legal):
            return draw_choice(view)  # the tent's halves: nothing tells them apart
        know = Knowledge(view)
        codec = know.codec
        actions = distinct_actions(know, [encode(a, codec) for a in view.legal])
        if len(actions) == 1:
            return decode(actions[0], codec)
        results = self.evaluate(know, actions)
        best = max(actions, key=lambda a: sum(results[a]))
        z = self.lead_z if not view.trick or know.led < 0 else self.follow_z
        if z:
            tip = representative(actions, encode(decide(know, DEFAULT_WEIGHTS), codec))
            if best != tip and not clearly_better(results[best], results[tip], z):
                best = tip
        return decode(best, codec)

    def evaluate(self, know: Knowledge, actions: list[int]) -> dict[int, list[float]]:
        """Each action's outcomes for the seat to move, one per sampled deal: every
        action is tried on each deal."""
        rng = decision_rng(self.seed, know.view)
        randbelow = rng._randbelow  # type: ignore[attr-defined]  # the fastest seeded source
        cap = self.budget.seconds
        deadline = None if cap is None else time.perf_counter() + cap
        results: dict[int, list[float]] = {a: [] for a in actions}
        checks = lead_checks(know) if self.lead_tries > 1 else []
        for _ in range(max(1, self.budget.rollouts // len(actions))):
            if deadline is not None and results[actions[0]] and time.perf_counter() > deadline:
                break
            deal = determinize(know, rng, self.habits, checks, self.lead_tries)
            for action in actions:
                sim = deal.clone()
                voids = know.voids[:]
                step(sim, action, voids)
                play_out(sim, randbelow, self.epsilon_in_1024, voids)
                results[action].append(outcome(sim, know.seat))
        return results


def representative(actions: list[int], action: int) -> int:
    """The action of `actions` that plays like `action` (see `distinct_actions`)."""
    if action in actions:
        return action
    return max(a for a in actions if a < action and a // 13 == action // 13)


def clearly_better(best: list[float], other: list[float], z: float) -> bool:
    """Whether `best` beats `other` on the deals both were tried on by more than `z`
    standard errors of the paired difference."""
    diffs = [b - o for b, o in zip(best, other, strict=False)]
    n = len(diffs)
    mean = sum(diffs) / n
    spread = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
    return mean > z * math.sqrt(spread / n)


def distinct_actions(know: Knowledge, actions: list[int]) -> list[int]:
    """The actions with only one of each set that plays alike: cards of a suit between
    which no card still in play ranks (the 3 and the 4 when no other hand, the stock
    nor the trick on the table holds a card between them) are the same card for the
    rest of the hand. The lowest stays."""
    in_play = know.outside | (know.gone & ~know.discard)  # the trick's cards count
    out: list[int] = []
    previous = -1
    for action in sorted(actions):
        alike = (
            previous >= 0
            and action < JOKER
            and action // 13 == previous // 13
            and not in_play & ((1 << action) - (1 << (previous + 1)))
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
