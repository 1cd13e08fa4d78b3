"""What one seat can know about a hand, worked out from its `PlayerView` alone.

Bots never see the hidden state: everything here comes from the view's public fields
(counts, trick, discard, known pick-ups, the action history) and the seat's own hand.
The inference that matters is voids: a player who had to draw or pass when a suit was
led held none of it then, and still holds none among the cards nobody has seen,
unless they took unseen cards into their hand since.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from engine.follow_suit.hand import Table, table_for
from engine.follow_suit.views import PlayerView
from engine.kernel.cards import JOKER, JOKER_CODE, SUIT_MASKS, SUITS, CardCodec

NO_SUITS = 0
JOKER_PLAY = "play:" + JOKER_CODE


def mask_of(codes: tuple[str, ...] | list[str], codec: CardCodec) -> int:
    """The bit set of some card codes."""
    mask = 0
    for code in codes:
        mask |= 1 << codec.index_of[code]
    return mask


@lru_cache(maxsize=64)
def pack_mask(codec: CardCodec) -> int:
    """Every card of the deck, as a bit set."""
    return mask_of(codec.pack(), codec)


@dataclass(frozen=True)
class TrickLog:
    """One trick of the history: who acted, and the suit to follow at each action."""

    start: int  # index in the history of its first action
    seats: int  # seats taking part (holding cards when it began)
    plays: tuple[tuple[int, int], ...]  # (seat, card) in order
    led: tuple[int, ...]  # per action of the trick: the suit to follow then, -1 if none


def split_tricks(view: PlayerView, codec: CardCodec) -> list[TrickLog]:
    """Cut the public history into tricks.

    A trick takes one closing action (a play or a pass) from each seat that held cards
    when it began; under `take_the_table` a pass closes it at once. A seat that went
    out never acts again, so its last action in the history is the play that took it
    out: that tells how many seats each trick had without replaying any cards.
    """
    history = view.history
    last_action: dict[int, int] = {}
    for k, (seat, _) in enumerate(history):
        last_action[seat] = k
    gone_at = sorted(last_action[s] for s in view.out if s in last_action)
    take_table = view.rules.empty_stock == "take_the_table"
    tricks: list[TrickLog] = []
    k = 0
    while k < len(history):
        seats = view.seats - sum(1 for g in gone_at if g < k)
        start, closed, led = k, 0, -1
        plays: list[tuple[int, int]] = []
        leds: list[int] = []
        while k < len(history) and closed < seats:
            seat, action = history[k]
            leds.append(led)
            k += 1
            if action.startswith("play:"):
                card = codec.index_of[action[5:]]
                plays.append((seat, card))
                if led < 0 and card != JOKER:
                    led = card // 13
                closed += 1
            elif action == "pass":
                closed += 1
                if take_table:
                    break
        tricks.append(TrickLog(start, seats, tuple(plays), tuple(leds)))
    return tricks


def infer_voids(view: PlayerView, tricks: list[TrickLog]) -> list[int]:
    """Per seat, a bit set of suits (bit s for suit s) that seat's unseen cards lack.

    Strict drawing: a seat that drew or passed had none of the led suit; the cards it
    drew and kept are of other suits, so the void holds, but any other void it had may
    be broken by them. Optional drawing (or a tent that can topple a whole stock into a
    hand): only a pass proves a void, and any draw breaks every void. Where the joker
    may be played only by a player void in the led suit (or must be), playing it on a
    led suit proves the void too.
    """
    strict = view.rules.drawing == "strict" and not view.rules.tent
    joker_shows_void = view.rules.joker_play != "any_time"
    voids = [NO_SUITS] * view.seats
    history = view.history
    for trick in tricks:
        drew: dict[int, int] = {}
        for offset, led in enumerate(trick.led):
            seat, action = history[trick.start + offset]
            if action.startswith("draw"):
                drew[seat] = drew.get(seat, 0) + 1
                if not strict:
                    voids[seat] = NO_SUITS
                continue
            draws = drew.pop(seat, 0)
            if led < 0:
                continue  # nothing to follow: a lead, or the play after a joker lead
            bit = 1 << led
            if action == "pass":
                voids[seat] = (voids[seat] if draws == 0 or not strict else NO_SUITS) | bit
            elif strict and draws:
                # The card played was the one found; the other draws stayed in the hand.
                kept = draws - 1
                voids[seat] = bit if kept else voids[seat] | bit
            elif joker_shows_void and action == JOKER_PLAY:
                voids[seat] |= bit
        # A seat still drawing now can only be the viewer itself: nothing to infer.
    return voids


def infer_habits(view: PlayerView, tricks: list[TrickLog], codec: CardCodec) -> list[int]:
    """Per seat, a bit set of cards its unseen cards probably lack, judging by how it
    followed: most players (and our own bots) follow with their highest card when it
    can win the trick, as cheaply as possible when last to play, and with their lowest
    when they cannot win. So a seat that followed low held nothing higher than the
    trick's best card and nothing lower than its own; one that won held nothing above
    its card (or, last to play, nothing between the old best and its card). A leader
    leads low unless its top card is the boss (see `_unlikely_after_lead`).

    Unlike voids this is a habit, not a rule: samplers drop it when it cannot hold.
    A draw brings unseen cards and forgets what is known of the other suits.
    """
    strict = view.rules.drawing == "strict" and not view.rules.tent
    unlikely = [0] * view.seats
    history = view.history
    in_play = _in_play_at_each_trick(view, tricks, codec)
    for trick, live in zip(tricks, in_play, strict=True):
        best, closed = -1, 0
        for offset, led in enumerate(trick.led):
            seat, action = history[trick.start + offset]
            if action.startswith("draw"):
                keep = SUIT_MASKS[led] if strict and led >= 0 else 0
                unlikely[seat] &= keep
                continue
            if action == "pass":
                closed += 1
                continue
            card = codec.index_of[action[5:]]
            if led >= 0 and card != JOKER:
                last = closed == trick.seats - 1
                unlikely[seat] |= _unlikely_after_follow(card, best, last)
            elif card != JOKER:
                unlikely[seat] |= _unlikely_after_lead(card, live, after_joker=offset > 0)
            best = max(best, card)
            closed += 1
    return unlikely


def _in_play_at_each_trick(view: PlayerView, tricks: list[TrickLog], codec: CardCodec) -> list[int]:
    """Per trick, the cards still in play when it began (in no finished trick's
    discard): the cards not set aside yet, and those played from that trick on (a card
    set aside is never played again)."""
    gone_now = mask_of(view.discard, codec)
    pack = pack_mask(codec)
    later = 0
    out: list[int] = []
    for trick in reversed(tricks):
        for _, card in trick.plays:
            later |= 1 << card
        out.append(pack & ~gone_now | later)
    out.reverse()
    return out


def _unlikely_after_lead(card: int, live: int, after_joker: bool) -> int:
    """A leader leads its suit's top card only when nobody can beat it (or it is the
    only one), else its lowest; after a joker lead, always its lowest. So when a card
    of the suit above the led one was still in play, or after a joker, the leader
    held nothing of the suit below the card it led."""
    suit = SUIT_MASKS[card // 13]
    below = suit & ((1 << card) - 1)
    if after_joker or live & suit & ~((1 << (card + 1)) - 1):
        return below
    return 0


def _unlikely_after_follow(card: int, best: int, last: bool) -> int:
    suit = SUIT_MASKS[card // 13]
    above = suit & ~((1 << (card + 1)) - 1)
    below = suit & ((1 << card) - 1)
    if best == JOKER:
        return below  # nothing can win: the lowest card
    if card < best:
        return (suit & ~((1 << (best + 1)) - 1)) | below  # could not win: the lowest
    if last:
        return suit & ((1 << card) - (1 << (best + 1)))  # the cheapest winner
    return above  # the highest


class Knowledge:
    """The cards as one seat sees them: its own, the gone, the known and the unseen."""

    def __init__(self, view: PlayerView) -> None:
        self.view = view
        self.table: Table = table_for(view.rules, view.seats)
        codec = self.codec = self.table.codec
        self.seat = view.seat
        self.hand = mask_of(view.hand, codec)
        self.trick = tuple((s, codec.index_of[c]) for s, c in view.trick)
        self.discard = mask_of(view.discard, codec)
        self.gone = self.discard | mask_of([c for _, c in view.trick], codec)  # in no hand
        self.known = [mask_of(k, codec) for k in view.known]  # seen going into hands
        self.others_known = 0
        for s, k in enumerate(self.known):
            if s != self.seat:
                self.others_known |= k
        # The unseen cards: the other hands' cards nobody has seen, and the stock.
        self.unseen = pack_mask(codec) & ~self.hand & ~self.gone & ~self.others_known
        self.hidden_counts = [
            0 if s == self.seat else view.counts[s] - k.bit_count()
            for s, k in enumerate(self.known)
        ]
        self.led = SUITS.index(view.led) if view.led else -1

    @cached_property
    def tricks(self) -> list[TrickLog]:
        return split_tricks(self.view, self.codec)

    @cached_property
    def voids(self) -> list[int]:
        return infer_voids(self.view, self.tricks)

    @cached_property
    def unlikely(self) -> list[int]:
        return infer_habits(self.view, self.tricks, self.codec)

    @cached_property
    def void_cards(self) -> list[int]:
        """The voids as bit sets of cards."""
        return [sum(SUIT_MASKS[s] for s in range(4) if v >> s & 1) for v in self.voids]

    @property
    def outside(self) -> int:
        """Cards still in play that are not ours: the others' hands and the stock."""
        return self.unseen | self.others_known

    def active_opponents(self) -> list[int]:
        """The other seats still holding cards."""
        return [s for s in range(self.view.seats) if s != self.seat and self.view.counts[s]]

    def surely_void(self, seat: int, suit: int) -> bool:
        """Whether `seat` certainly holds no card of `suit` now."""
        return bool(self.voids[seat] >> suit & 1) and not self.known[seat] & SUIT_MASKS[suit]
