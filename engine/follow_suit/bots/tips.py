"""The seed texts' tips for better play, as choices on bit sets.

Shared by the `heuristic` bot (fed from a `PlayerView`) and the search bot's rollouts
(fed from a determinized `HandSim`, with only what the mover could see), so both play
the same way and a change to a tip reaches both.

- Lead your longest suit, and above all a suit the others lack: a player seen drawing
  or passing in it is void, and counting the cards played shows when a suit is nearly
  gone, so the others must dig in the stock (or pass, or pick up) while you shed.
- Keep a card in every suit while the stock is big; when it is nearly gone, hold
  few suits instead (lead your singletons).
- High cards win tricks, and winning means leading: lead a card nobody can beat,
  follow high to take the lead, or low when you cannot win.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import NamedTuple

from engine.kernel.cards import JOKER, SUIT_MASKS

# An opponent as a leader sees it: (its cards nobody has seen, suits it surely lacks
# among them, suits it is known to hold), the suits as bit sets.
Opponent = tuple[int, int, int]


@dataclass(frozen=True)
class Weights:
    """How much each tip counts when choosing the suit to lead."""

    length: float = 1.0  # per card held in the suit
    void_cost: float = 1.0  # per expected card an opponent draws (or misses) for lack of it
    boss: float = 1.5  # our top card of the suit beats every card still out: we keep the lead
    singleton_early: float = -1.0  # leading our last card of a suit voids us while drawing hurts
    singleton_late: float = 1.0  # with the stock nearly gone, fewer suits held is better


DEFAULT_WEIGHTS = Weights()


class LeadContext(NamedTuple):
    """What a leader weighs: its hand, the cards still out of it (in other hands or the
    stock), the unseen ones among them, the opponents still in, and the stock. (A
    named tuple: rollouts build one per lead, and tuples are the cheapest to build.)"""

    hand: int
    outside: int
    unseen: int
    opponents: list[Opponent]
    stock: int
    pickup: bool  # a void player with the stock gone takes cards (Cangkul, take the table)
    optional: bool  # optional drawing: the card found is not played at once


_M0, _M1, _M2, _M3 = SUIT_MASKS[:4]


def suits_of(cards: int) -> int:
    """The suits present in a bit set, as a 4-bit set (unrolled: once per opponent per
    lead of every rollout)."""
    return (
        (1 if cards & _M0 else 0)
        | (2 if cards & _M1 else 0)
        | (4 if cards & _M2 else 0)
        | (8 if cards & _M3 else 0)
    )


def lead(ctx: LeadContext, weights: Weights = DEFAULT_WEIGHTS, low: bool = False) -> int:
    """The card to lead: the best suit by the tips, then its top card if nobody can
    beat it (or it is our only one), else the lowest. `low`: always the lowest (after a
    joker lead, when the trick is lost anyway)."""
    hand = ctx.hand
    if hand >> JOKER & 1 and hand.bit_count() <= 2 and not low:
        return JOKER  # the joker wins the trick, and our last card leads again next
    best_suit, best_score = -1, 0.0
    for suit, score in enumerate(suit_scores(ctx, weights)):
        if score is not None and (best_suit < 0 or score > best_score):
            best_suit, best_score = suit, score
    if best_suit < 0:
        return JOKER
    mine = hand & SUIT_MASKS[best_suit]
    top = mine.bit_length() - 1
    if not low and (mine.bit_count() == 1 or is_boss(top, ctx.outside)):
        return top
    return (mine & -mine).bit_length() - 1


def suit_scores(ctx: LeadContext, weights: Weights) -> list[float | None]:
    """How good leading each suit is (None: we hold none of it)."""
    hand, outside = ctx.hand, ctx.outside
    unseen = [(ctx.unseen & mask).bit_count() for mask in SUIT_MASKS]
    everyone = unseen[0] + unseen[1] + unseen[2] + unseen[3]
    late = ctx.stock <= len(ctx.opponents) + 1
    several = hand.bit_count() > 1
    # Each opponent's unseen cards come from the unseen cards of the suits it may hold.
    pools = [
        (hidden, voids, holds, everyone - sum(unseen[s] for s in range(4) if voids >> s & 1))
        if voids
        else (hidden, 0, holds, everyone)
        for hidden, voids, holds in ctx.opponents
    ]
    scores: list[float | None] = []
    for suit in range(4):
        mask = SUIT_MASKS[suit]
        mine = hand & mask
        if not mine:
            scores.append(None)
            continue
        bit = 1 << suit
        lacking = 0.0  # opponents expected to lack the suit
        for hidden, voids, holds, pool in pools:
            if voids & bit:
                lacking += 1.0
            elif not holds & bit:
                lacking += miss_chance(pool, unseen[suit], hidden)
        held = mine.bit_count()
        top = mine.bit_length() - 1
        score = weights.length * held
        if lacking:
            score += weights.void_cost * lacking * void_cost(ctx, unseen[suit], everyone)
        if not outside & mask & ~((1 << (top + 1)) - 1):  # our top card is the boss
            score += weights.boss
        if held == 1 and several:
            score += weights.singleton_late if late else weights.singleton_early
        scores.append(score)
    return scores


def is_boss(card: int, outside: int) -> bool:
    """Whether `card` beats every card of its suit still out of our hand."""
    return not outside & SUIT_MASKS[card // 13] & ~((1 << (card + 1)) - 1)


@lru_cache(maxsize=65536)
def miss_chance(pool: int, in_suit: int, hidden: int) -> float:
    """The chance that `hidden` cards dealt from `pool` cards, `in_suit` of them of a
    suit, hold none of it."""
    if hidden > pool:
        return 0.0
    return comb(pool - in_suit, hidden) / comb(pool, hidden)


def void_cost(ctx: LeadContext, in_suit: int, unseen: int) -> float:
    """What lacking the led suit costs a player, in cards: the draws until the suit
    turns up (`in_suit` of the `unseen` cards are of it, the stock a random part of
    them), or with the stock gone a missed turn (plus a pick-up in Cangkul)."""
    stock = ctx.stock
    if stock == 0 or unseen == 0:
        return 2.0 if ctx.pickup else 1.0
    in_stock = in_suit * stock / unseen
    draws = min(stock, (stock + 1) / (in_stock + 1))
    return draws if ctx.optional else draws - 1  # strict: the card found is played


def follow(cards: list[int], best: int, last: bool) -> int:
    """Of our led-suit cards (lowest first): win with the highest if it can win, or as
    cheaply as possible when last to play; else shed the lowest."""
    if best == JOKER or cards[-1] < best:
        return cards[0]
    if last:
        return next(c for c in cards if c > best)
    return cards[-1]
