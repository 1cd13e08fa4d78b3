"""The rollouts' quick path for leads plays exactly as the generic loop would: the
same moves from the same random numbers, in every rule mix."""

from __future__ import annotations

import random

import pytest

from engine.follow_suit.bots.rollout import greedy_action, play_out
from engine.follow_suit.game import new_game
from engine.follow_suit.hand import HandSim
from engine.follow_suit.rules import make_rules
from tests.bots.tables import MIXES, seat_range


def the_same_policy(sim: HandSim, acts: list[int], voids: list[int]) -> int:
    """`greedy_action` under another name: `play_out` takes its generic loop for it."""
    return greedy_action(sim, acts, voids)


@pytest.mark.parametrize(("preset", "options"), MIXES)
def test_the_quick_lead_plays_as_the_generic_loop(preset: str, options: dict[str, object]) -> None:
    rules = make_rules(preset, options)
    low, high = seat_range(rules)
    for seed in range(12):
        seats = low + seed % (high - low + 1)
        game = new_game(rules, seats, seed=seed)
        played = []
        for policy in (greedy_action, the_same_policy):
            sim = HandSim.thaw(game.table, game.hand)  # keeps its actions
            play_out(sim, policy, random.Random(seed)._randbelow, 256, [0] * seats)  # type: ignore[attr-defined]
            played.append((sim.actions, sim.end, sim.burro, sim.winner))
        assert played[0] == played[1]
        assert played[0][0], "a hand was played"
