"""A tip: the move the seed texts' tips suggest to one player now, and why.

A game works it out from the player's own view alone (`Game.tip`), so a tip can never
tell what the player may not see; its screens put the reason into words (`reason` is
one of the game's own keys, the other fields what those words name).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tip:
    action: str  # one of the view's legal actions
    reason: str  # why: a key of the game's reasons (its screens word each)
    card: str = ""  # the card the reason names, as a code ("" none)
    suit: str = ""  # a suit letter it names ("" none)
    rank: str = ""  # a rank it names ("" none)
    count: int = 0  # a number it names (cards of a rank held)
