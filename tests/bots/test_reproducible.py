"""A bot's choice depends only on its seed and the view: whole hands replay exactly."""

from __future__ import annotations

import pytest

from engine.follow_suit.bots.base import Budget
from engine.follow_suit.bots.registry import LEVELS, make_bot
from engine.follow_suit.game import apply, new_game, to_move
from engine.follow_suit.rules import make_rules
from engine.follow_suit.views import player_view
from tests.bots.tables import SMALL


def hand_actions(preset: str, seats: int, level: str, seed: int, budget: Budget) -> list[str]:
    """The actions of one hand played by fresh bots of one level."""
    game = new_game(make_rules(preset), seats, 99)
    players = [make_bot(level, seed + s, budget) for s in range(seats)]
    actions = []
    while not game.past and (seat := to_move(game)) is not None:
        action = players[seat].choose(player_view(game, seat))
        actions.append(action)
        game, _ = apply(game, seat, action)
    return actions


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("preset", "seats"), [("spanish", 4), ("cangkul", 3), ("burro_em_pe", 3)])
def test_same_seed_same_hand(level: str, preset: str, seats: int) -> None:
    budget = Budget(rollouts=40, seconds=None)
    first = hand_actions(preset, seats, level, 7, budget)
    assert hand_actions(preset, seats, level, 7, budget) == first


def test_asking_twice_gives_the_same_answer_and_seeds_matter() -> None:
    game = new_game(make_rules("spanish"), 4, 5)
    seat = to_move(game)
    assert seat is not None
    view = player_view(game, seat)
    for level in LEVELS:
        bot = make_bot(level, 3, SMALL)
        assert len({bot.choose(view) for _ in range(3)}) == 1  # no memory between calls
    randoms = {make_bot("random", seed).choose(view) for seed in range(30)}
    assert len(randoms) > 1


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("grandmaster")
