"""The `heuristic` level (also called `easy`): the seed texts' tips, as rules.

The tips themselves live in `tips` (shared with the search's rollouts); this bot
feeds them what its view shows and what it infers (`knowledge`): voids seen through
draws and passes, and the cards already played. For the rest:

- After a joker lead we set the suit but cannot win: lead low in the best suit.
- Void when following: play the joker if we may (it wins and spares a dig), else draw.
- Optional drawing: never draw while we can play. In the tent, draw from the taller
  half: both halves are unseen cards and a topple takes both, so nothing else tells
  them apart.
"""

from __future__ import annotations

from engine.follow_suit.bots import tips
from engine.follow_suit.bots.base import forced
from engine.follow_suit.bots.knowledge import Knowledge
from engine.follow_suit.views import PlayerView
from engine.kernel.cards import JOKER


class HeuristicBot:
    level = "heuristic"

    def __init__(self, seed: int = 0, weights: tips.Weights = tips.DEFAULT_WEIGHTS) -> None:
        self.seed = seed  # unused: the heuristic is deterministic
        self.weights = weights

    def choose(self, view: PlayerView) -> str:
        only = forced(view)
        if only is not None:
            return only
        return decide(Knowledge(view), self.weights)


def decide(know: Knowledge, weights: tips.Weights) -> str:
    view = know.view
    codec = know.codec
    plays = sorted(codec.index_of[a[5:]] for a in view.legal if a.startswith("play:"))
    if not view.trick or know.led < 0:  # a lead, or the card after a joker lead
        return _play(know, tips.lead(lead_context(know), weights, low=bool(view.trick)))
    follow = [c for c in plays if c != JOKER]
    if follow:
        best = max(c for _, c in know.trick)
        return _play(know, tips.follow(follow, best, last=len(view.to_play) == 1))
    if JOKER in plays:
        return _play(know, JOKER)
    return draw_choice(view)


def lead_context(know: Knowledge) -> tips.LeadContext:
    view = know.view
    opponents = [
        (know.hidden_counts[s], know.voids[s], tips.suits_of(know.known[s]))
        for s in know.active_opponents()
    ]
    return tips.LeadContext(
        hand=know.hand,
        outside=know.outside,
        unseen=know.unseen,
        opponents=opponents,
        stock=view.stock,
        pickup=view.rules.empty_stock != "pass",
        optional=view.rules.drawing == "optional",
    )


def _play(know: Knowledge, card: int) -> str:
    return "play:" + know.codec.code_of[card]


def draw_choice(view: PlayerView) -> str:
    """Draw (the taller tent half, left on a tie), or pass if that is all there is."""
    if "draw" in view.legal:
        return "draw"
    halves = [a for a in ("draw:left", "draw:right") if a in view.legal]
    if halves:
        left, right = view.piles if len(view.piles) == 2 else (1, 0)
        return "draw:right" if right > left and "draw:right" in halves else halves[0]
    return view.legal[0]
