"""What the others' leads say of their hands, for the search's deals.

Most players (and every bot here below the strong one) lead by the tips: the suit the
tips score best, its top card if nobody can beat it, else the lowest. So a sampled
deal in which an opponent's recent lead is not the tips' lead for the hand it gives
that opponent is less likely than one in which it is. The search prefers deals that
agree with the leads it can check (see `sampling.determinize`).

A lead can be checked when the hand its leader held then follows from the sample: the
leader has only played cards since (no draw, pass or pick-up brought it unseen
cards), and the stock's size then is known (no tent that may have toppled since).
What the leader knew then (voids, counts, the cards gone) comes from the public
history up to that trick, as the leader saw it. Not checked where a passer picks
cards up (Cangkul, taking the table): what the leader saw in the others' hands then
is not known from what is seen now.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.follow_suit.bots import tips
from engine.follow_suit.bots.knowledge import Knowledge, infer_voids, pack_mask
from engine.kernel.cards import JOKER

MAX_CHECKS = 3  # the most recent leads checked, enough to steer the deals


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

    def holds(self, hidden: int, known: int) -> bool:
        """Whether the tips would have led this card from the hand the sample gives
        the leader (`hidden` and `known`: its cards now)."""
        hand = hidden | known | self.played_since
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


def lead_checks(know: Knowledge) -> list[LeadCheck]:
    """The opponents' recent leads that a sample can be checked against, newest first."""
    view = know.view
    if view.rules.empty_stock != "pass":
        return []  # pick-ups: what the leader saw in the hands then is not known now
    # A topple brings an unknown number of cards: before it, the counts are not known.
    topples = view.rules.tent and view.rules.topple_chance > 0.0
    history = view.history
    tricks = know.tricks
    pack = pack_mask(know.codec)
    gone_now = know.discard
    later = 0  # cards played from the trick in hand on
    plays = [0] * view.seats  # per seat, cards played since
    draws = [0] * view.seats
    broken = 0  # seats that drew or passed since (unseen cards may have come in)
    checks: list[LeadCheck] = []
    k_end = len(history)
    for t in range(len(tricks) - 1, -1, -1):
        trick = tricks[t]
        for k in range(k_end - 1, trick.start - 1, -1):
            seat, action = history[k]
            if action.startswith("play:"):
                card = know.codec.index_of[action[5:]]
                plays[seat] += 1
                later |= 1 << card
            else:
                broken |= 1 << seat
                if action.startswith("draw"):
                    draws[seat] += 1
        if topples and any(draws):
            break
        k_end = trick.start
        leader, action = history[trick.start]
        if leader == know.seat or broken >> leader & 1 or not action.startswith("play:"):
            continue
        card = know.codec.index_of[action[5:]]
        if card == JOKER:
            continue
        checks.append(_check(know, t, leader, card, pack & gone_now & ~later, plays, draws))
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
