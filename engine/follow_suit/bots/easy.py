"""The `easy` level: a beginner at the family table, who knows the rules but not yet
the tips, and now and then plays without thinking.

It makes the mistakes a person learning the game makes (`Mistakes`, chances per
decision):

- It does not count who lacks what: it leads as the tips do (its long suit, a card
  nobody can beat to keep the lead) but never weighs the voids it has seen.
- Now and then it plays any card it may, leading or following: a slip (`slip`).
- Following, it sometimes plays high when it cannot win, or low when it could: it
  misreads the trick (`misread`). When it can win it plays its highest card, never
  the cheapest winner.
- With a joker and no card of the led suit, it keeps the joker for later half the
  time and draws instead (`hoard`).

So easy loses more than the heuristic (which plays the tips) and the strong bot (which
searches); its rates against them are in BENCHMARKS.md ("Bots that teach").
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.follow_suit.bots import tips
from engine.follow_suit.bots.base import decision_rng, forced
from engine.follow_suit.bots.heuristic import draw_choice, lead_context
from engine.follow_suit.bots.knowledge import Knowledge
from engine.follow_suit.hand import table_for
from engine.follow_suit.views import PlayerView
from engine.kernel.cards import JOKER, CardCodec


@dataclass(frozen=True)
class Mistakes:
    """How often the beginner errs, as chances per decision (measured in the arena:
    with these, easy is about halfway between random play and the heuristic)."""

    slip: float = 0.05  # any legal card
    misread: float = 0.15  # following: the wrong end of its cards of the led suit
    hoard: float = 0.5  # void with a joker: draw rather than play it


NO_COUNTING = tips.Weights(void_cost=0.0, singleton_early=0.0, singleton_late=0.0)


class EasyBot:
    level = "easy"

    def __init__(self, seed: int = 0, mistakes: Mistakes = Mistakes()) -> None:
        self.seed = seed
        self.mistakes = mistakes

    def choose(self, view: PlayerView) -> str:
        only = forced(view)
        if only is not None:
            return only
        rng = decision_rng(self.seed, view)
        plays = [a for a in view.legal if a.startswith("play:")]
        if plays and rng.random() < self.mistakes.slip:
            return rng.choice(plays)
        if not view.trick or not view.led:  # a lead, or the card after a joker lead
            return _lead(view)
        return _follow(view, plays, rng, self.mistakes)


def _lead(view: PlayerView) -> str:
    """The tips' lead, but weighing only the length of its suits and its top cards:
    no thought of who lacks what."""
    know = Knowledge(view)
    card = tips.lead(lead_context(know), NO_COUNTING, low=bool(view.trick))
    return "play:" + know.codec.code_of[card]


def _follow(view: PlayerView, plays: list[str], rng: random.Random, mistakes: Mistakes) -> str:
    codec = codec_of(view)
    cards = sorted(codec.index_of[a[5:]] for a in plays)
    follow = [c for c in cards if c != JOKER]
    if follow:
        best = max(codec.index_of[c] for _, c in view.trick)
        if best == JOKER or follow[-1] < best:
            card = follow[-1] if rng.random() < mistakes.misread else follow[0]  # cannot win
        else:
            card = follow[0] if rng.random() < mistakes.misread else follow[-1]  # can win
        return "play:" + codec.code_of[card]
    if JOKER in cards and not (rng.random() < mistakes.hoard and _can_draw(view)):
        return "play:" + codec.code_of[JOKER]
    return draw_choice(view)


def _can_draw(view: PlayerView) -> bool:
    return any(a.startswith("draw") for a in view.legal)


def codec_of(view: PlayerView) -> CardCodec:
    return table_for(view.rules, view.seats).codec
