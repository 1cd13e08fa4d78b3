"""Passing games to JSON and back, losslessly (the service keeps games in Redis so)."""

from __future__ import annotations

from engine.cuartetos.state import GameState
from engine.kernel.storage import JsonCodec

_CODEC = JsonCodec(GameState, "passing game")
dumps = _CODEC.dumps  # a whole game: rules, standing, every hand's deck and actions
loads = _CODEC.loads
