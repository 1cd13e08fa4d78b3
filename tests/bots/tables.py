"""Shared helpers for the bot tests: rule mixes, cheap bot budgets, views of positions."""

from __future__ import annotations

from typing import Any

from engine.follow_suit.bots.base import Budget
from engine.follow_suit.game import GameState
from engine.follow_suit.hand import HandSim
from engine.follow_suit.rules import PRESETS
from engine.follow_suit.views import PlayerView, player_view

# Every preset, plus the options that change what a bot must handle.
MIXES: list[tuple[str, dict[str, Any]]] = [
    *((name, {}) for name in PRESETS),
    ("brazilian", {"empty_stock": "take_the_table"}),
    ("spanish", {"simultaneous_out": "last_to_play_loses"}),
    ("burro_em_pe", {"topple_chance": 0.3}),
    ("cangkul", {"deck": "french52_joker"}),
    ("cangkul", {"deck": "french52_joker", "joker_play": "must_when_void"}),
    ("cangkul", {"deck": "french52_joker", "joker_play": "only_when_void", "drawing": "optional"}),
    ("cangkul", {"hand_end": "last_holder_loses", "scoring": "penalty", "trick_cap": 80}),
]

# The strong bot with a tiny, clock-free budget: quick and reproducible.
SMALL = Budget(rollouts=12, seconds=None)


def seat_range(rules: Any) -> tuple[int, int]:
    most = min(rules.max_players, (rules.deck_size - 1) // rules.hand_size)
    return rules.min_players, most


def game_of(sim: HandSim) -> GameState:
    """A game whose hand in play is `sim` (for views of scripted positions)."""
    n = sim.t.n
    return GameState(sim.t.rules, n, 1, 1, (0,) * n, sim.freeze(), ())


def view_of(sim: HandSim, seat: int | None = None) -> PlayerView:
    """The view of the seat to move (or of `seat`) in a scripted position."""
    return player_view(game_of(sim), sim.to_move() if seat is None else seat)
