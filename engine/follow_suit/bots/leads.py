"""What the others' past play says of their hands, for the search's deals.

Most players (and every bot here below the strong one) play by the tips: the suit the
tips score best, its top card if nobody can beat it, else the lowest; follow with the
highest card when it can win, else the lowest; draw only when void in the led suit. So
a sampled deal in which an opponent's past is not the tips' play from the hand it gives
that opponent is less likely than one in which it is. The search prefers deals that
agree (see `sampling.determinize`).

Where a void player passes once the stock is gone (all but Cangkul and taking the
table), a sample is checked against each opponent's whole past (`SeatCheck`): its hand
is walked back from the sample's cards to the deal, giving back each card it played
and taking out the cards it drew. The card found by a draw is the one played at once
(strict drawing; with optional drawing it is what the tips do); the other cards drawn
are some of the hand's, not of the led suit, and which ones is not seen: the walk takes
them at random (uniformly among the hand's cards, as many as it then held, so that a
deal passes as often as the histories that lead to it allow). A draw that toppled the
tent took the whole stock, as many cards as it then held: the led suit's cards in the
hand after it all came from there, and the card played is the tips' follow among them.
On the way every lead must be the tips' lead (`LeadCheck`: from what the leader knew
then, as the public history up to that trick shows it), every follow the tips' follow,
and every draw and pass must come from a hand void in the suit.

Not checked where a passer picks cards up: what the leader saw in the others' hands
then is not known from what is seen now.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from engine.follow_suit.bots import tips
from engine.follow_suit.bots.knowledge import Knowledge, infer_voids, pack_mask
from engine.kernel.cards import JOKER, SUIT_MASKS, bits


@dataclass(frozen=True)
class LeadCheck:
    """A past lead and what its leader knew then, but for its own hand."""

    seat: int
    card: int
    gone: int  # the cards set aside before that trick
    seen: int  # the cards the leader could see in other hands (pick-ups)
    opponents: list[tuple[int, int, int, int]]  # (seat, hidden count, voids, known suits)
    stock: int
    pickup: bool
    optional: bool
    pack: int  # every card of the deck
    # The answers of `led_from` so far, by hand: a decision's samples repeat hands.
    memo: dict[int, bool] = field(default_factory=dict, compare=False, repr=False)

    def led_from(self, hand: int) -> bool:
        """Whether the tips lead this card from `hand`, the leader's hand then."""
        known = self.memo.get(hand)
        if known is None:
            known = self.memo[hand] = self._led_from(hand)
        return known

    def _led_from(self, hand: int) -> bool:
        outside = self.pack & ~hand & ~self.gone
        ctx = tips.LeadContext(
            hand=hand,
            outside=outside,
            unseen=outside & ~self.seen,
            opponents=[(count, voids, suits) for _, count, voids, suits in self.opponents],
            stock=self.stock,
            pickup=self.pickup,
            optional=self.optional,
        )
        return tips.lead(ctx) == self.card


# The events of a seat's past that a walk back checks, as tuples (kind, ...):
LEAD = 0  # (LEAD, card, LeadCheck): the tips' lead
FOLLOW = 1  # (FOLLOW, card, suit, best card on the trick, last to play): the tips' follow
PLAY = 2  # (PLAY, card): a card played with nothing to check (a joker, after a joker lead)
DRAWS = 3  # (DRAWS, suit, cards kept): void in the led suit; the cards drawn and kept
VOID = 4  # (VOID, suit): a pass, void in the led suit
# (TOPPLE, card, suit, best, last, cards taken): a card played from what a draw that
# toppled the tent brought (and the draws before it that turn), void in the suit before
TOPPLE = 5
Event = tuple[Any, ...]


@dataclass(frozen=True)
class SeatCheck:
    """An opponent's past, newest first, to walk its sampled hand back through."""

    seat: int
    events: tuple[Event, ...]

    def score(self, hidden: int, known: int, rng: random.Random) -> int:
        """How many of the events, newest first, the hand the sample gives the seat
        meets before the first it does not (all of them: it agrees), taking the cards
        drawn at random."""
        hand = hidden | known
        for k, event in enumerate(self.events):
            kind = event[0]
            if kind == TOPPLE:
                hand, free = _before_topple(event, hand)
                if free < 0:
                    return k
                for _ in range(free):
                    hand ^= 1 << rng.choice(bits(hand))
                continue
            if kind == DRAWS:
                if hand & SUIT_MASKS[event[1]]:
                    return k
                for _ in range(event[2]):
                    hand ^= 1 << rng.choice(bits(hand))
                continue
            if not _meets(event, hand):
                return k
            if kind != VOID:
                hand |= 1 << event[1]
        return len(self.events)

    def holds(self, hidden: int, known: int, rng: random.Random) -> bool:
        return self.score(hidden, known, rng) == len(self.events)

    def consistent(self, hidden: int, known: int) -> bool:
        """Whether some choice of the cards drawn meets every event (true of the real
        hand of a seat that plays by the tips)."""
        return _consistent(self.events, 0, hidden | known, set())


def _meets(event: Event, hand: int) -> bool:
    """Whether the hand held just before `event` (a play, a pass) agrees with it, the
    card played given back to the hand first."""
    kind = event[0]
    if kind == VOID:
        return not hand & SUIT_MASKS[event[1]]
    if kind == PLAY:
        return True
    card: int = event[1]
    hand |= 1 << card
    if kind == LEAD:
        check: LeadCheck = event[2]
        return check.led_from(hand)
    _, _, suit, best, last = event
    followed: int = tips.follow(bits(hand & SUIT_MASKS[suit]), best, last)
    return followed == card


def _before_topple(event: Event, hand: int) -> tuple[int, int]:
    """The hand before a turn that toppled the tent, less the cards it drew that are
    not known (the led suit's and a joker played all came from the stock), and how
    many those are; -1 if the turn does not agree with the hand."""
    _, card, suit, best, last, taken = event
    hand |= 1 << card
    led = hand & SUIT_MASKS[suit]
    if card == JOKER:
        if led:
            return hand, -1  # the tips follow before they play the joker
    elif not led >> card & 1 or tips.follow(bits(led), best, last) != card:
        return hand, -1
    drawn = led | (1 << card)
    free = taken - drawn.bit_count()
    return hand & ~drawn, free if free <= (hand & ~drawn).bit_count() else -1


def _consistent(
    events: tuple[Event, ...], start: int, hand: int, failed: set[tuple[int, int]]
) -> bool:
    """Whether some choice of the cards drawn meets `events[start:]` from `hand`
    (`failed`: the points already found not to, as the choices meet again)."""
    if (start, hand) in failed:
        return False
    origin = hand
    for k in range(start, len(events)):
        event = events[k]
        kind = event[0]
        if kind in (TOPPLE, DRAWS):
            if kind == TOPPLE:
                hand, kept_count = _before_topple(event, hand)
            else:
                kept_count = -1 if hand & SUIT_MASKS[event[1]] else event[2]
            met = kept_count >= 0 and any(
                _consistent(events, k + 1, hand & ~sum(1 << c for c in kept), failed)
                for kept in combinations(bits(hand), kept_count)
            )
            if not met:
                failed.add((start, origin))
            return met
        if not _meets(event, hand):
            failed.add((start, origin))
            return False
        if kind != VOID:
            hand |= 1 << event[1]
    return True


def lead_checks(know: Knowledge) -> list[SeatCheck]:
    """What a sample can be checked against: each opponent's whole past, unless
    passers pick cards up (or a tent toppled by an unknown number of cards)."""
    if know.view.rules.empty_stock != "pass":
        return []  # pick-ups: what the leader saw in the hands then is not known now
    if know.topple[1] < 0:
        return []  # a scripted position: how many cards the topple brought is not known
    return seat_checks(know)


def seat_checks(know: Knowledge) -> list[SeatCheck]:
    """Each opponent with unseen cards, its past as a walk back checks it."""
    history = know.view.history
    seats = [s for s in know.active_opponents() if know.hidden_counts[s]]
    events: dict[int, list[Event]] = {s: [] for s in seats}
    gone_now = know.discard & pack_mask(know.codec)
    for t, since in walk_back(know):
        lead = None
        leader, action = history[know.tricks[t].start]
        if leader in events and action.startswith("play:"):
            card = know.codec.index_of[action[5:]]
            if card != JOKER:
                gone = gone_now & ~since.later
                lead = _check(know, t, leader, card, gone, since.plays, since.draws)
        for seat, event in reversed(_trick_events(know, t, lead)):
            if seat in events:
                events[seat].append(event)
    return [SeatCheck(s, tuple(events[s])) for s in seats]


@dataclass
class Since:
    """What the seats did from a trick on, to now."""

    later: int  # the cards played
    plays: list[int]  # per seat, cards played
    draws: list[int]  # per seat, cards drawn (a topple's whole stock included)


def walk_back(know: Knowledge) -> Iterator[tuple[int, Since]]:
    """Each trick, newest first, with what was done from its start on."""
    history = know.view.history
    seats = know.view.seats
    since = Since(later=0, plays=[0] * seats, draws=[0] * seats)
    toppled_at, taken = know.topple
    k_end = len(history)
    for t in range(len(know.tricks) - 1, -1, -1):
        start = know.tricks[t].start
        for k in range(k_end - 1, start - 1, -1):
            seat, action = history[k]
            if action.startswith("play:"):
                since.plays[seat] += 1
                since.later |= 1 << know.codec.index_of[action[5:]]
            elif action.startswith("draw"):
                since.draws[seat] += taken if k == toppled_at else 1
        k_end = start
        yield t, since


def _trick_events(know: Knowledge, t: int, lead: LeadCheck | None) -> list[tuple[int, Event]]:
    """The events of one trick, in the order they came, with their seats."""
    trick = know.tricks[t]
    history = know.view.history
    toppled_at, taken = know.topple
    out: list[tuple[int, Event]] = []
    drew: dict[int, int] = {}
    toppler = -1
    best, closed = -1, 0
    for offset, led in enumerate(trick.led):
        seat, action = history[trick.start + offset]
        if action.startswith("draw"):
            toppled = trick.start + offset == toppled_at
            drew[seat] = drew.get(seat, 0) + (taken if toppled else 1)
            toppler = seat if toppled else toppler
            continue
        drawn = drew.pop(seat, 0)
        last = closed == trick.seats - 1
        closed += 1
        if action == "pass":
            out.append((seat, (DRAWS, led, drawn) if drawn else (VOID, led)))
            continue
        card = know.codec.index_of[action[5:]]
        if seat == toppler:
            out.append((seat, (TOPPLE, card, led, best, last, drawn)))
        elif drawn:  # the card found, played at once: the other cards drawn were kept
            out.append((seat, (DRAWS, led, drawn - 1)))
        elif offset == 0 and lead is not None:
            out.append((seat, (LEAD, card, lead)))
        elif led < 0 or card == JOKER or best == JOKER:
            out.append((seat, (PLAY, card)))
        else:
            out.append((seat, (FOLLOW, card, led, best, last)))
        best = max(best, card)
    return out


def _check(
    know: Knowledge,
    t: int,
    leader: int,
    card: int,
    gone: int,
    plays: list[int],
    draws: list[int],
) -> LeadCheck:
    view = know.view
    voids = infer_voids(view, know.tricks[:t])
    counts = [view.counts[s] + plays[s] - draws[s] for s in range(view.seats)]
    seen = 0
    opponents: list[tuple[int, int, int, int]] = []
    for seat in range(view.seats):
        if seat == leader or counts[seat] <= 0:
            continue
        known = know.known[seat]
        seen |= known
        hidden = counts[seat] - known.bit_count()
        opponents.append((seat, hidden, voids[seat], tips.suits_of(known)))
    return LeadCheck(
        seat=leader,
        card=card,
        gone=gone,
        seen=seen,
        opponents=opponents,
        stock=view.stock + sum(draws),
        pickup=view.rules.empty_stock != "pass",
        optional=view.rules.drawing == "optional",
        pack=pack_mask(know.codec),
    )
