"""Burro's rules engine: pure, deterministic, no I/O.

The public API is immutable: `new_game`, `apply`, `legal_actions`, `player_view`,
`public_view`, records. The hot path (`engine.hand.HandSim`) is a mutable simulator on
bit sets that bots clone and play out; the public API wraps it.
"""

from engine.errors import IllegalAction, RulesError
from engine.game import GameState, apply, legal_actions, new_game, to_move
from engine.rules import PRESETS, Rules, make_rules
from engine.views import PlayerView, PublicView, player_view, public_view

__all__ = [
    "PRESETS",
    "GameState",
    "IllegalAction",
    "PlayerView",
    "PublicView",
    "Rules",
    "RulesError",
    "apply",
    "legal_actions",
    "make_rules",
    "new_game",
    "player_view",
    "public_view",
    "to_move",
]
