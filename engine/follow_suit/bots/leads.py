"""What the others' leads say of their hands, for the search's deals.

Most players (and every bot here below the strong one) lead by the tips: the suit the
tips score best, its top card if nobody can beat it, else the lowest. So a sampled
deal in which an opponent's recent lead is not the tips' lead for the hand it gives
that opponent is less likely than one in which it is. The search prefers deals that
agree with the leads it can check (see `sampling.determinize`).

Where drawing is strict and the stock stands in one pile (Spanish, Brazilian), a
sample is checked against each opponent's whole past (`SeatCheck`): its hand is walked
back from the sample's cards to the deal, giving back each card it played and taking
out the cards it drew. The card found by a draw is the one played at once; the other
cards drawn are some of the hand's, not of the led suit, and which ones is not seen: the
walk takes them at random (uniformly among the hand's cards, as many as it then held,
so that a deal passes as often as the histories that lead to it allow). On the way
every lead must be the tips' lead, every follow the tips' follow (win with the highest,
else shed the lowest), and every draw and pass must come from a hand void in the suit.

Elsewhere a lead is checked (`LeadCheck`) while the hand its leader held then follows
from the sample: the leader has only played cards since (no draw, pass or pick-up
brought it unseen cards), and the stock's size then is known (no tent that may have
toppled since). What a leader knew then (voids, counts, the cards gone) comes from
the public history up to that trick, as the leader saw it. Not checked where a passer
picks cards up (Cangkul, taking the table): what the leader saw in the others' hands
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

MAX_CHECKS = 3  # the most recent leads checked (`LeadCheck`), enough to steer the deals


@dataclass(frozen=True)
class LeadCheck:
    """A past lead and what its leader knew then, but for its own hand."""

    seat: int
    card: int
    played_since: int  # the cards the leader played from that lead on, the lead too
    gone: int  # the cards set aside before that trick
    seen: int  # the cards the leader could see in other hands (pick-ups)
    opponents: list[tuple[int, int, int, int]]  # (seat, hidden count, voids, known suits)
    stock: int
    pickup: bool
    optional: bool
    pack: int  # every card of the deck
    # The answers of `led_from` so far, by hand: a decision's samples repeat hands.
    memo: dict[int, bool] = field(default_factory=dict, compare=False, repr=False)

    def holds(self, hidden: int, known: int) -> bool:
        """Whether the tips would have led this card from the hand the sample gives
        the leader (`hidden` and `known`: its cards now)."""
        return self.led_from(hidden | known | self.played_since)

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
        return _consistent(self.events, 0, hidden | known)


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


def _consistent(events: tuple[Event, ...], start: int, hand: int) -> bool:
    for k in range(start, len(events)):
        event = events[k]
        if event[0] == DRAWS:
            if hand & SUIT_MASKS[event[1]]:
                return False
            return any(
                _consistent(events, k + 1, hand & ~sum(1 << c for c in kept))
                for kept in combinations(bits(hand), event[2])
            )
        if not _meets(event, hand):
            return False
        if event[0] != VOID:
            hand |= 1 << event[1]
    return True


Check = LeadCheck | SeatCheck


def lead_checks(know: Knowledge) -> list[Check]:
    """What a sample can be checked against: each opponent's past where it can be
    walked back (strict drawing, one pile, no pick-ups), else the opponents' recent
    leads, newest first."""
    rules = know.view.rules
    if rules.empty_stock != "pass":
        return []  # pick-ups: what the leader saw in the hands then is not known now
    if rules.drawing == "strict" and not rules.tent:
        return list(seat_checks(know))
    return list(_recent_leads(know))


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
    draws: list[int]  # per seat, draws
    broken: int = 0  # seats that drew or passed (unseen cards may have come in)


def walk_back(know: Knowledge) -> Iterator[tuple[int, Since]]:
    """Each trick, newest first, with what was done from its start on."""
    history = know.view.history
    seats = know.view.seats
    since = Since(later=0, plays=[0] * seats, draws=[0] * seats)
    k_end = len(history)
    for t in range(len(know.tricks) - 1, -1, -1):
        start = know.tricks[t].start
        for k in range(k_end - 1, start - 1, -1):
            seat, action = history[k]
            if action.startswith("play:"):
                since.plays[seat] += 1
                since.later |= 1 << know.codec.index_of[action[5:]]
            else:
                since.broken |= 1 << seat
                if action.startswith("draw"):
                    since.draws[seat] += 1
        k_end = start
        yield t, since


def _trick_events(know: Knowledge, t: int, lead: LeadCheck | None) -> list[tuple[int, Event]]:
    """The events of one trick, in the order they came, with their seats."""
    trick = know.tricks[t]
    history = know.view.history
    out: list[tuple[int, Event]] = []
    drew: dict[int, int] = {}
    best, closed = -1, 0
    for offset, led in enumerate(trick.led):
        seat, action = history[trick.start + offset]
        if action.startswith("draw"):
            drew[seat] = drew.get(seat, 0) + 1
            continue
        drawn = drew.pop(seat, 0)
        last = closed == trick.seats - 1
        closed += 1
        if action == "pass":
            out.append((seat, (DRAWS, led, drawn) if drawn else (VOID, led)))
            continue
        card = know.codec.index_of[action[5:]]
        if drawn:  # the card found, played at once: the other cards drawn were kept
            out.append((seat, (DRAWS, led, drawn - 1)))
        elif offset == 0 and lead is not None:
            out.append((seat, (LEAD, card, lead)))
        elif led < 0 or card == JOKER or best == JOKER:
            out.append((seat, (PLAY, card)))
        else:
            out.append((seat, (FOLLOW, card, led, best, last)))
        best = max(best, card)
    return out


def _recent_leads(know: Knowledge) -> list[LeadCheck]:
    """The opponents' recent leads that a sample can be checked against, newest first."""
    view = know.view
    # A topple brings an unknown number of cards: before it, the counts are not known.
    topples = view.rules.tent and view.rules.topple_chance > 0.0
    gone_now = know.discard & pack_mask(know.codec)
    checks: list[LeadCheck] = []
    for t, since in walk_back(know):
        if topples and any(since.draws):
            break
        leader, action = view.history[know.tricks[t].start]
        if leader == know.seat or since.broken >> leader & 1 or not action.startswith("play:"):
            continue
        card = know.codec.index_of[action[5:]]
        if card == JOKER:
            continue
        gone = gone_now & ~since.later
        checks.append(_check(know, t, leader, card, gone, since.plays, since.draws))
        if len(checks) == MAX_CHECKS:
            break
    return checks


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
    history = view.history
    played_since = 0
    for seat, action in history[know.tricks[t].start :]:
        if seat == leader and action.startswith("play:"):
            played_since |= 1 << know.codec.index_of[action[5:]]
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
        played_since=played_since,
        gone=gone,
        seen=seen,
        opponents=opponents,
        stock=view.stock + sum(draws),
        pickup=view.rules.empty_stock != "pass",
        optional=view.rules.drawing == "optional",
        pack=pack_mask(know.codec),
    )
