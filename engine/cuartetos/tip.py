"""A player's tip in the passing game, from their own four cards alone: with four of a
kind, call ¡Burro! at once; else pass a card of the rank held fewest of (the bots'
`plan_pass`), keeping the rank closest to four. While a call is open there is no time
to read a tip: none then.

Where `plan_pass` breaks ties at random, the tip takes the first card in the hand's
order: any of them is as good (the suit never matters).
"""

from __future__ import annotations

from collections import Counter

from engine.cuartetos.cards import is_four_of_a_kind, rank_of
from engine.cuartetos.views import PlayerView
from engine.kernel.tip import Tip

# The reasons a tip gives (service.ui.cuartetos words each).
CALL = "call"  # four of a kind: call ¡Burro! now
NEARLY = "nearly"  # three of a kind: pass the odd card, one more wins
KEEP = "keep"  # pass a card of the rank held fewest of, keep collecting `rank`
ANY = "any"  # four ranks, one card each: no rank is ahead yet
REASONS = (CALL, NEARLY, KEEP, ANY)


def tip(view: PlayerView) -> Tip | None:
    """The tip for the view's seat now; None when it has no card to choose."""
    if view.phase != "choose" or not view.legal or not view.hand:
        return None
    if is_four_of_a_kind(view.hand) and "burro" in view.legal:
        return Tip("burro", CALL, rank=rank_of(view.hand[0]), count=4)
    counts = Counter(rank_of(c) for c in view.hand)
    fewest = min(counts.values())
    card = next(c for c in view.hand if counts[rank_of(c)] == fewest)
    action = "pass:" + card
    if action not in view.legal:
        return None
    kept = max(counts, key=lambda r: (counts[r], r != rank_of(card)))
    most = counts[kept]
    if most == 1:
        return Tip(action, ANY, card)
    return Tip(action, NEARLY if most == 3 else KEEP, card, rank=kept, count=most)
