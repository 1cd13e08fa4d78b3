"""Determinization: a full hand consistent with what one seat knows, to search over.

Our own hand, the trick, the discard and the cards seen going into hands (pick-ups)
are placed as they are; the unseen cards are dealt at random to the other hands (as
many as each holds beyond its known cards) and to the stock, never giving a seat a
suit it is known to lack (nor, when possible, a card its way of following suggests
it lacks). The tent's topple generator gets a fresh random state:
its real state is hidden information like the stock's order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.follow_suit.bots.knowledge import Knowledge
from engine.follow_suit.bots.leads import Check, LeadCheck, SeatCheck
from engine.follow_suit.hand import PLAYING, HandSim, HandState
from engine.kernel.cards import SUITS, bits


def deal_unseen(
    know: Knowledge, rng: random.Random, habits: bool = True
) -> tuple[list[int], list[int]]:
    """(hidden cards per seat as bit sets, the rest in a random stock order).

    The constraints are the voids, plus the follow habits unless `habits` is off; if
    no deal can meet them (a player who does not follow the habits), the habits go,
    and in the last resort the voids too."""
    unseen = bits(know.unseen)
    for forbidden in _tiers(know, habits):
        dealt = deal(unseen, know.hidden_counts, know.view.stock, forbidden, rng)
        if dealt is not None:
            return dealt
    raise AssertionError("the unseen cards do not match the hand counts")  # pragma: no cover


def _tiers(know: Knowledge, habits: bool) -> list[list[int]]:
    """The cards forbidden to each seat, from the most constrained deal to the least."""
    voids = know.void_cards
    tiers = [voids, [0] * len(voids)]
    if habits:
        tiers.insert(0, [v | u for v, u in zip(voids, know.unlikely, strict=True)])
    return tiers


def deal(
    cards: list[int], counts: list[int], stock: int, forbidden: list[int], rng: random.Random
) -> tuple[list[int], list[int]] | None:
    """Deal `cards` so that each seat gets its count of cards it is not forbidden and
    the stock the rest, or None if no such deal exists.

    Cards go one at a time, in random order, to a place with room, chosen in
    proportion to the room left (without constraints that is a uniformly random deal).
    A card with no place left takes one from a card that can move elsewhere, along the
    shortest chain of such moves (an augmenting path), so a deal is found whenever one
    exists."""
    stock_slot = len(counts)
    room = [*counts, stock]
    places: list[list[int]] = [[] for _ in room]
    order = cards[:]
    rng.shuffle(order)
    for card in order:
        fits = [s for s in range(len(room)) if s == stock_slot or not forbidden[s] >> card & 1]
        free = [s for s in fits if len(places[s]) < room[s]]
        if free:
            pick = rng.randrange(sum(room[s] - len(places[s]) for s in free))
            for slot in free:
                pick -= room[slot] - len(places[slot])
                if pick < 0:
                    places[slot].append(card)
                    break
        elif not _make_room(card, fits, places, room, forbidden, stock_slot):
            return None
    hidden = [0] * len(counts)
    for seat in range(len(counts)):
        for card in places[seat]:
            hidden[seat] |= 1 << card
    return hidden, places[stock_slot]


def _make_room(
    card: int,
    fits: list[int],
    places: list[list[int]],
    room: list[int],
    forbidden: list[int],
    stock_slot: int,
) -> bool:
    """Place `card` by moving others along a shortest chain ending at a place with room."""
    came_from: dict[int, tuple[int, int] | None] = {slot: None for slot in fits}
    queue = list(fits)
    for slot in queue:
        for moved in places[slot]:
            for target in range(len(room)):
                if target in came_from:
                    continue
                if target != stock_slot and forbidden[target] >> moved & 1:
                    continue
                came_from[target] = (moved, slot)
                if len(places[target]) < room[target]:
                    places[_shift(target, came_from, places)].append(card)
                    return True
                queue.append(target)
    return False


def _shift(
    target: int, came_from: dict[int, tuple[int, int] | None], places: list[list[int]]
) -> int:
    """Move each card of the chain one step on, from its end back to its start; return
    the place at the start, which now has room."""
    step = came_from[target]
    while step is not None:
        moved, source = step
        places[source].remove(moved)
        places[target].append(moved)
        target, step = source, came_from[source]
    return target


def agreeing_deal(
    know: Knowledge, rng: random.Random, habits: bool, leads: Sequence[Check], tries: int
) -> tuple[list[int], list[int]]:
    """A deal of the unseen cards in which the others' recent leads are the tips' leads
    (see `leads`): the first of up to `tries` deals where all of them are, else the one
    where most are. The leads are a habit, as the follows are: unlike voids, a deal
    may break them when too few deals keep them. Checks of whole pasts (`SeatCheck`)
    go seat by seat (see `agreeing_seats`)."""
    seat_checks = [c for c in leads if isinstance(c, SeatCheck)]
    if seat_checks:
        return agreeing_seats(know, rng, habits, seat_checks, tries)
    lead_checks = [c for c in leads if isinstance(c, LeadCheck)]
    best, best_score = deal_unseen(know, rng, habits), -1
    for attempt in range(tries):
        dealt = best if attempt == 0 else deal_unseen(know, rng, habits)
        hidden = dealt[0]
        score = sum(1 for c in lead_checks if c.holds(hidden[c.seat], know.known[c.seat]))
        if score > best_score:
            best, best_score = dealt, score
            if score == len(lead_checks):
                break
    return best


def agreeing_seats(
    know: Knowledge, rng: random.Random, habits: bool, checks: Sequence[SeatCheck], tries: int
) -> tuple[list[int], list[int]]:
    """A deal in which each checked seat's past is the tips' play (see `SeatCheck`).

    A seat's past depends only on its own hand, so a seat that disagrees has its cards
    dealt again with the stock's and those of another seat taken at random (or none),
    the rest kept, up to `tries - 1` times; the new hands are kept when the two seats
    meet as many of their latest events as before or more (the old stay when a seat
    never agrees: a player who does not play by the tips)."""
    hidden, stock = deal_unseen(know, rng, habits)
    known = know.known
    by_seat = {c.seat: c for c in checks}
    scores = [0] * len(hidden)
    for c in checks:
        scores[c.seat] = c.score(hidden[c.seat], known[c.seat], rng)
    holders = [s for s, count in enumerate(know.hidden_counts) if count]
    tiers = _tiers(know, habits)
    for _ in range(tries - 1):
        failing = [c.seat for c in checks if scores[c.seat] < len(c.events)]
        if not failing:
            break
        for seat in failing:
            partner = rng.choice(holders)
            seats = [seat] if partner == seat else [seat, partner]
            redealt = _redeal(seats, hidden, stock, tiers, rng)
            if redealt is None:
                continue
            new = {
                s: by_seat[s].score(redealt[0][s], known[s], rng) if s in by_seat else 0
                for s in seats
            }
            if sum(new.values()) >= sum(scores[s] for s in seats):
                for s in seats:
                    hidden[s], scores[s] = redealt[0][s], new[s]
                stock = redealt[1]
    return hidden, stock


def _redeal(
    seats: list[int],
    hidden: list[int],
    stock: list[int],
    tiers: list[list[int]],
    rng: random.Random,
) -> tuple[list[int], list[int]] | None:
    """The hidden cards of `seats` dealt again with the stock's: (the new hidden cards
    of every seat, those of the others as they were; the stock). Each seat in turn, in
    a random order, takes its cards at random from those of the pool it may hold (the
    general `deal` only when that leaves a seat short)."""
    pool = _pool(seats, hidden, stock)
    new = hidden[:]
    forbidden = tiers[0]
    order = seats[:]
    rng.shuffle(order)
    for seat in order:
        count = hidden[seat].bit_count()
        allowed = [c for c in pool if not forbidden[seat] >> c & 1]
        if len(allowed) < count:
            return _redeal_slowly(seats, hidden, stock, tiers, rng)
        taken = rng.sample(allowed, count)
        new[seat] = sum(1 << c for c in taken)
        pool = [c for c in pool if not new[seat] >> c & 1]
    rng.shuffle(pool)
    return new, pool


def _redeal_slowly(
    seats: list[int],
    hidden: list[int],
    stock: list[int],
    tiers: list[list[int]],
    rng: random.Random,
) -> tuple[list[int], list[int]] | None:
    """`_redeal` by the general `deal`, which moves cards along chains to find room."""
    pool = _pool(seats, hidden, stock)
    counts = [hidden[s].bit_count() if s in seats else 0 for s in range(len(hidden))]
    for forbidden in tiers:
        dealt = deal(pool, counts, len(stock), forbidden, rng)
        if dealt is not None:
            return [dealt[0][s] if s in seats else h for s, h in enumerate(hidden)], dealt[1]
    return None  # pragma: no cover  (the cards they hold now are a deal)


def _pool(seats: list[int], hidden: list[int], stock: list[int]) -> list[int]:
    """The cards dealt again: the stock's and the hidden cards of `seats`."""
    pool = stock[:]
    for seat in seats:
        pool.extend(bits(hidden[seat]))
    return pool


def determinize(
    know: Knowledge,
    rng: random.Random,
    habits: bool = True,
    leads: Sequence[Check] = (),
    tries: int = 1,
) -> HandSim:
    """A `HandSim` of the current position with the unseen cards dealt at random
    (respecting the voids, and the follow habits unless `habits` is off), preferring
    in up to `tries` deals one that agrees with the checked `leads`."""
    view = know.view
    if leads and tries > 1:
        hidden, stock = agreeing_deal(know, rng, habits, leads, tries)
    else:
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
