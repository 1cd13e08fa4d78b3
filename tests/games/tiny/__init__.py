"""Tiny, a test-only game: the smallest complete member of the Burro family, and the
example to copy when adding a game (docs/interfaces.md, "Adding a game").

The rules. A 12-card pack: A, K, Q in four suits. Two to four players, three cards each
(the rest of the pack stays face down). The seat left of the dealer leads; in turn each
plays a card face up. When everyone has played, the highest card takes a point (A over
K over Q, ties of rank by suit: S, H, D, C) and its player leads next. Once the hands
are empty the deal passes left and a new hand is dealt. The first to `target` points
(the preset's one option, 3) wins; everyone else loses.

The files follow the real games' layout: `game.py` (rules, state, moves, views),
`records.py` (`burro-record/1` records and their replay), `arena.py` (bots against
each other, for `burro arena`), `definition.py` (the `Game` the registry holds, and
the bots).
"""

from tests.games.tiny.definition import GAME

__all__ = ["GAME"]
