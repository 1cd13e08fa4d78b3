"""Action strings (docs/interfaces.md section 2) and the engine's action ints, both ways."""

from __future__ import annotations

from engine.follow_suit.hand import DRAW, DRAW_LEFT, DRAW_RIGHT, PASS
from engine.kernel import errors
from engine.kernel.cards import CardCodec

_NAMED = {"draw": DRAW, "draw:left": DRAW_LEFT, "draw:right": DRAW_RIGHT, "pass": PASS}
_NAMES = {code: name for name, code in _NAMED.items()}


def encode(action: str, codec: CardCodec) -> int:
    """The int of an action string; UnknownAction / UnknownCard if it names nothing."""
    if action in _NAMED:
        return _NAMED[action]
    kind, _, card = action.partition(":")
    if kind != "play" or not card:
        raise errors.UnknownAction(f"unknown action {action!r}")
    index = codec.index_of.get(card)
    if index is None:
        raise errors.UnknownCard(f"there is no card {card!r} in this deck")
    return index


def decode(action: int, codec: CardCodec) -> str:
    """The action string of an int."""
    return _NAMES.get(action) or "play:" + codec.code_of[action]
