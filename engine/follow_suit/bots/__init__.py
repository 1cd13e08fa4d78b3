"""Bot opponents for every follow-suit preset, and the arena that measures them.

    from engine.follow_suit.bots import make_bot
    action = make_bot("strong", seed).choose(player_view(game, seat))

A bot sees only the `PlayerView` it is given (its own hand, the public table and this
hand's public history) and returns one of `view.legal`. It keeps nothing between
calls, so the same seed and view always give the same action, and one bot object
may serve any seat.

Levels: `random` (a seeded uniformly random legal action), `easy` (a beginner: longest
suit first, no counting, and slips, `easy`), `heuristic` (the seed texts' tips as rules,
`heuristic` and `tips`), `strong` (Monte Carlo search over
deals consistent with what the seat knows, `search`, `sampling`, `knowledge`).
"""

from engine.follow_suit.bots.base import Bot, Budget
from engine.follow_suit.bots.registry import LEVELS, make_bot

__all__ = ["LEVELS", "Bot", "Budget", "make_bot"]
