"""Determinization: a full hand consistent with what one seat knows, to search over.

Our own hand, the trick, the discard and the cards seen going into hands (pick-ups)
are placed as they are; the unseen cards are dealt at random to the other hands (as
many as each holds beyond its known cards) and to the stock, never giving a seat a
suit it is known to lack. The tent's topple generator gets a fresh random state:
its real state is hidden information like the stock's order.
"""

from __future__ import annotations

import random

from engine.bots.knowledge import Knowledge
from engine.cards import SUITS, bits
from engine.hand import PLAYING, HandSim, HandState

# Greedy dealing can corner itself when constraints are tight: a few fresh tries, then
# weaker constraints (habits first, then voids) rather than fail.
_TRIES = 4


def deal_unseen(
    know: Knowledge, rng: random.Random, habits: bool = True
) -> tuple[list[int], list[int]]:
    """(hidden cards per seat as bit sets, the rest in a random stock order)."""
    unseen = bits(know.unseen)
    voids = know.void_cards
    tiers = [voids, [0] * len(voids)]
    if habits:
        tiers.insert(0, [v | u for v, u in zip(voids, know.unlikely, strict=True)])
    for forbidden in tiers:
        for _ in range(_TRIES):
            dealt = _try_deal(unseen, know.hidden_counts, forbidden, rng)
            if dealt is not None:
                return dealt
    raise AssertionError("the unseen cards do not match the hand counts")  # pragma: no cover


def _try_deal(
    unseen: list[int], counts: list[int], forbidden: list[int], rng: random.Random
) -> tuple[list[int], list[int]] | None:
    """Deal each seat its count of unseen cards it is not forbidden, the stock the rest."""
    pool = unseen[:]
    rng.shuffle(pool)
    hidden = [0] * len(counts)
    # The seats with the least room to spare go first.
    seats = [s for s in range(len(counts)) if counts[s]]
    seats.sort(key=lambda s: sum(1 for c in pool if not forbidden[s] >> c & 1) - counts[s])
    for seat in seats:
        need, banned = counts[seat], forbidden[seat]
        taken: list[int] = []
        rest: list[int] = []
        for card in pool:
            if len(taken) < need and not banned >> card & 1:
                taken.append(card)
            else:
                rest.append(card)
        if len(taken) < need:
            return None
        for card in taken:
            hidden[seat] |= 1 << card
        pool = rest
    return hidden, pool


def determinize(know: Knowledge, rng: random.Random, habits: bool = True) -> HandSim:
    """A `HandSim` of the current position with the unseen cards dealt at random
    (respecting the voids, and the follow habits unless `habits` is off)."""
    view = know.view
    hidden, stock = deal_unseen(know, rng, habits)
    hands = [hidden[s] | know.known[s] for s in range(view.seats)]
    hands[know.seat] = know.hand
    piles: list[tuple[int, ...]] = []
    for size in view.piles:
        piles.append(tuple(stock[:size]))
        stock = stock[size:]
    state = HandState(
        dealer=view.dealer,
        seed=0,
        deck=(),
        hands=tuple(hands),
        piles=tuple(piles),
        trick=tuple(c for _, c in know.trick),
        trick_seats=tuple(s for s, _ in know.trick),
        led=SUITS.index(view.led) if view.led else -1,
        order=view.order,
        turn=len(view.order) - len(view.to_play),
        drawn=view.drawing,
        found=-1,
        passers=view.passers,
        out=view.out,
        tricks=view.tricks,
        discard=know.discard,
        known=tuple(know.known),
        rng=rng.getrandbits(64),
        end=PLAYING,
        burro=-1,
        winner=-1,
        actions=(),
    )
    sim = HandSim.thaw(know.table, state)
    sim.actions = None  # searches need no record
    return sim

