"""The rollouts' quick path for leads plays exactly as the generic loop would (the legal
actions listed, a random one now and then, else `greedy_action`): the same moves from
the same random numbers, in every rule mix."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.follow_suit.bots.rollout import greedy_action, play_out, step
from engine.follow_suit.game import new_game
from engine.follow_suit.hand import HandSim
from engine.follow_suit.rules import make_rules
from tests.bots.tables import MIXES, seat_range

EPSILON_IN_1024 = 256  # many random moves: each path draws its numbers often


def generic_play_out(
    sim: HandSim, randbelow: Callable[[int], int], epsilon_in_1024: int, voids: list[int]
) -> None:
    """`play_out` as it was: every step lists its legal actions first."""
    while not sim.end:
        acts = sim.legal()
        if len(acts) == 1:
            action = acts[0]
        elif epsilon_in_1024 and randbelow(1024) < epsilon_in_1024:
            action = acts[randbelow(len(acts))]
        else:
            action = greedy_action(sim, acts, voids)
        step(sim, action, voids)


@pytest.mark.parametrize(("preset", "options"), MIXES)
def test_the_quick_lead_plays_as_the_generic_loop(preset: str, options: dict[str, object]) -> None:
    rules = make_rules(preset, options)
    low, high = seat_range(rules)
    for seed in range(12):
        seats = low + seed % (high - low + 1)
        game = new_game(rules, seats, seed=seed)
        played = []
        for playing in (play_out, generic_play_out):
            sim = HandSim.thaw(game.table, game.hand)  # keeps its actions
            randbelow = random.Random(seed)._randbelow  # type: ignore[attr-defined]
            playing(sim, randbelow, EPSILON_IN_1024, [0] * seats)
            played.append((sim.actions, sim.end, sim.burro, sim.winner))
        assert played[0] == played[1]
        assert played[0][0], "a hand was played"
