"""Fast playout policies on a `HandSim`, for the search bot's rollouts.

A rollout policy acts for every seat of a determinized hand, so it must be cheap and
fair: it looks only at the mover's own hand, the trick on the table and the voids
everyone has seen (a seat that drew or passed when a suit was led lacks it), never at
the other hands of the sample.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.follow_suit.bots import tips
from engine.follow_suit.bots.knowledge import pack_mask
from engine.follow_suit.hand import DRAW, PASS, HandSim
from engine.kernel.cards import JOKER, bits


def greedy_action(sim: HandSim, acts: list[int], voids: list[int]) -> int:
    """The heuristic bot's play (see `tips`) for the seat to move in a sample."""
    if sim.turn == 0 or sim.led < 0:
        return _lead(sim, voids)
    cards = [a for a in acts if a < JOKER]  # legal() lists cards lowest first
    if cards:
        return tips.follow(cards, max(sim.trick), last=sim.turn == len(sim.order) - 1)
    if JOKER in acts:
        return JOKER
    return next((a for a in acts if a >= DRAW), acts[0])


def _lead(sim: HandSim, voids: list[int]) -> int:
    """The heuristic's lead, from what the leader sees of the sample."""
    me = sim.order[sim.turn]
    hand = sim.hands[me]
    gone = sim.discard
    for card in sim.trick:
        gone |= 1 << card
    known = sim.known
    seen = 0
    opponents: list[tips.Opponent] = []
    for seat in sim.order:
        if seat != me:
            k = known[seat]
            seen |= k
            cards = sim.hands[seat]
            opponents.append((cards.bit_count() - k.bit_count(), voids[seat], tips.suits_of(k)))
    outside = pack_mask(sim.t.codec) & ~hand & ~gone
    context = tips.LeadContext(
        hand=hand,
        outside=outside,
        unseen=outside & ~seen,
        opponents=opponents,
        stock=sim.stock_size(),
        pickup=sim.t.empty != 0,
        optional=not sim.t.strict,
    )
    return tips.lead(context, low=sim.turn > 0)


def play_out(
    sim: HandSim,
    randbelow: Callable[[int], int],
    epsilon_in_1024: int,
    voids: list[int],
) -> None:
    """Play to the end of the hand: every seat as `greedy_action` plays, except a random
    action with probability epsilon (in 1/1024ths), so that the rollouts also see
    what other players might do. `voids` (suit bit sets per seat, updated as seats
    draw and pass) is what the tips know of who lacks what."""
    while not sim.end:
        if sim.turn == 0 or sim.led < 0:
            action = _lead_or_any(sim, randbelow, epsilon_in_1024, voids)
        else:
            action = _legal_or_any(sim, randbelow, epsilon_in_1024, voids)
        step(sim, action, voids)


def _legal_or_any(
    sim: HandSim, randbelow: Callable[[int], int], epsilon_in_1024: int, voids: list[int]
) -> int:
    """`play_out`'s step once a suit is led: the only legal action, else a random one
    with probability epsilon, else the tips'."""
    acts = sim.legal()
    if len(acts) == 1:
        return acts[0]
    if epsilon_in_1024 and randbelow(1024) < epsilon_in_1024:
        return acts[randbelow(len(acts))]
    return greedy_action(sim, acts, voids)


def _lead_or_any(
    sim: HandSim, randbelow: Callable[[int], int], epsilon_in_1024: int, voids: list[int]
) -> int:
    """`play_out`'s step for a lead, as `_legal_or_any` would choose it from the same
    random numbers, without listing the leader's hand as its legal actions first: a
    lead's legal actions are its cards, and the tips' lead looks at the hand itself."""
    hand = sim.hands[sim.order[sim.turn]]
    if not hand & (hand - 1):  # one card left
        return hand.bit_length() - 1
    if epsilon_in_1024 and randbelow(1024) < epsilon_in_1024:
        cards = bits(hand)
        return cards[randbelow(len(cards))]
    return _lead(sim, voids)


def step(sim: HandSim, action: int, voids: list[int]) -> None:
    """Apply an action, noting the void it shows: a seat that draws or passes lacks
    the led suit (a draw brings unseen cards, so its older voids may end)."""
    if action >= DRAW and sim.led >= 0:
        seat = sim.order[sim.turn]
        voids[seat] = (voids[seat] if action == PASS else 0) | 1 << sim.led
    sim.step(action)
