"""Follow-suit games to JSON and back, losslessly (the service keeps games in Redis so)."""

from __future__ import annotations

from engine.follow_suit.game import GameState
from engine.kernel.storage import JsonCodec

_CODEC = JsonCodec(GameState, "game")
dumps = _CODEC.dumps  # a whole game: rules, scores, every hand's deck and actions
loads = _CODEC.loads
