"""The passing Burro (`cuartetos`, docs/rules.md): pass a card at the same time as
everyone, collect four of a kind, shout "¡Burro!"; the slowest takes a letter.

Pure like the follow-suit engine: no I/O, no clock, no global randomness. The state is
frozen data; `apply(game, seat, action, at)` returns a new state and its events, or
raises a typed refusal. Every action carries `at`, the server's receive time in float
seconds; the engine orders responses by it and never reads a clock.

Actions, as strings (records and the chat use exactly these):
- `pass:<card>`: choose the card to pass (e.g. `pass:7S`). The pass happens when every
  player has chosen, or at `close`. A chosen card cannot be taken back.
- `burro`: call ¡Burro!. With four of a kind it opens the response window; without,
  the caller takes a letter and the hand goes on. Only while choosing (not after one's
  card is chosen, and not while a call is open: the first call received counts).
- `fake:<word>`: a fake call with this rotation's word (`fake` alone means it; `¡ !`
  and case are ignored). It opens the response window. One per hand, three per game.
- `respond`: put one's hand on the pile, for a real or a fake call alike.
- `close` (seat `SYSTEM` = -1, the server): the time is up. With a call open, it
  resolves the call; while choosing, the heuristic bot's card is chosen for each player
  who has not (ties broken by the hand's seed) and the pass happens. Refused before
  `deadline(game)`.

A real call resolves when everyone has responded or at `close`: whoever has not
responded takes a letter, or, if all did, the last by receive time. A fake call: every
responder takes a letter; if nobody responded (known at `close`), the caller does.
"""

from engine.cuartetos.game import (
    apply,
    close_window,
    deadline,
    legal_actions,
    new_game,
    phase,
    to_move,
    word,
)
from engine.cuartetos.rules import (
    PRESETS,
    REAL_WORD,
    CuartetosRules,
    make_rules,
)
from engine.cuartetos.state import SYSTEM, GameState
from engine.cuartetos.views import PlayerView, PublicView, player_view, public_view

__all__ = [
    "PRESETS",
    "REAL_WORD",
    "SYSTEM",
    "CuartetosRules",
    "GameState",
    "PlayerView",
    "PublicView",
    "apply",
    "close_window",
    "deadline",
    "legal_actions",
    "make_rules",
    "new_game",
    "phase",
    "player_view",
    "public_view",
    "to_move",
    "word",
]
