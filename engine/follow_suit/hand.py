"""The rules of one hand, as a fast mutable simulator on bit sets.

This is the only place where the rules of play live. The public API (`engine.follow_suit.game`)
copies a frozen state into a `HandSim`, steps it once and freezes it again; bots clone a
`HandSim` and play it out thousands of times. So the hot path works on ints: a hand is
a bit set of card indices (see `engine.kernel.cards`), an action is an int, and nothing is
validated inside `step` (callers check `legal()` first).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from engine.follow_suit import events as ev
from engine.follow_suit.rules import Rules
from engine.kernel.cards import JOKER, SUIT_BITS, SUIT_MASKS, CardCodec, bits
from engine.kernel.rng import uniform

# Action codes: 0..52 play that card; then these.
DRAW = 64
DRAW_LEFT = 65
DRAW_RIGHT = 66
PASS = 67
DRAWS = (DRAW, DRAW_LEFT, DRAW_RIGHT)

# How a hand ended.
PLAYING = ""
BURRO = "burro"  # one player left holding cards
NO_BURRO = "no_burro"  # the last ones went out in the same trick
FIRST_OUT = "first_out"  # first_out_wins: someone played their last card
TRICK_CAP = "trick_cap"  # the safety cap on tricks

_JOKER_BIT = 1 << JOKER
_ANY_TIME, _ONLY_WHEN_VOID, _MUST_WHEN_VOID = 0, 1, 2
_PASS_ON, _PICKUP, _TAKE_TABLE = 0, 1, 2


class Table:
    """A rule set compiled for a number of seats: flags as ints, seat orders precomputed."""

    def __init__(self, rules: Rules, seats: int) -> None:
        self.rules = rules
        self.n = seats
        self.codec = CardCodec(rules.ranks, rules.has_joker)
        self.step = 1 if rules.direction == "clockwise" else -1
        # rot[s]: every seat in play order, starting with s.
        self.rot = tuple(
            tuple((s + self.step * k) % seats for k in range(seats)) for s in range(seats)
        )
        self.strict = rules.drawing == "strict"
        self.empty = {
            "pass": _PASS_ON,
            "pickup_after_trick": _PICKUP,
            "take_the_table": _TAKE_TABLE,
        }[rules.empty_stock]
        self.first_out = rules.hand_end == "first_out_wins"
        self.last_to_play_loses = rules.simultaneous_out == "last_to_play_loses"
        self.joker = {
            "any_time": _ANY_TIME,
            "only_when_void": _ONLY_WHEN_VOID,
            "must_when_void": _MUST_WHEN_VOID,
        }[rules.joker_play]
        self.tent = rules.tent
        self.topple = rules.topple_chance if rules.tent else 0.0
        self.trick_cap = rules.trick_cap
        self.draw_actions = (DRAW_LEFT, DRAW_RIGHT) if rules.tent else (DRAW,)

    def next_seat(self, seat: int) -> int:
        return (seat + self.step) % self.n


@lru_cache(maxsize=256)
def table_for(rules: Rules, seats: int) -> Table:
    return Table(rules, seats)


@dataclass(frozen=True)
class HandState:
    """A frozen hand: the same fields as `HandSim`, in tuples. See `HandSim` for meanings."""

    dealer: int
    seed: int
    deck: tuple[int, ...]
    hands: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]
    trick: tuple[int, ...]
    trick_seats: tuple[int, ...]
    led: int
    order: tuple[int, ...]
    turn: int
    drawn: int
    found: int
    passers: tuple[int, ...]
    out: tuple[int, ...]
    tricks: int
    discard: int
    known: tuple[int, ...]
    rng: int
    end: str
    burro: int
    winner: int
    actions: tuple[tuple[int, int], ...]


class HandSim:
    """One hand in play. Mutable; `clone()` for search, `freeze()` for the public API."""

    __slots__ = (
        "actions",
        "burro",
        "dealer",
        "deck",
        "discard",
        "drawn",
        "end",
        "events",
        "found",
        "hands",
        "known",
        "led",
        "order",
        "out",
        "passers",
        "piles",
        "rng",
        "seed",
        "t",
        "trick",
        "trick_seats",
        "tricks",
        "turn",
        "winner",
    )

    t: Table
    dealer: int
    seed: int
    deck: tuple[int, ...]  # the pack before dealing, top first (for records)
    hands: list[int]  # bit set of cards per seat
    piles: list[list[int]]  # the stock (tent: left, right), each with its top LAST
    trick: list[int]  # cards played to the current trick, in order
    trick_seats: list[int]  # who played each of them
    led: int  # the suit to follow, -1 before one is set (no lead yet, or joker led)
    order: list[int]  # the seats taking part in this trick, leader first
    turn: int  # index in `order` of the seat to act
    drawn: int  # cards the seat to act has drawn this turn
    found: int  # strict drawing: the drawn card that must be played now, else -1
    passers: list[int]  # seats that passed this trick (they pick up in Cangkul)
    out: list[int]  # seats out of cards, in the order they went out
    tricks: int  # tricks completed
    discard: int  # bit set of cards set aside in finished tricks
    known: list[int]  # per seat: cards everyone saw go into that hand (pick-ups)
    rng: int  # the tent's generator state
    end: str  # PLAYING, or why the hand ended
    burro: int  # the burro's seat, or -1
    winner: int  # the winner's seat (first_out_wins), or -1
    actions: list[tuple[int, int]] | None  # (seat, action) so far; None in playouts
    events: list[ev.Event] | None  # events of the current step, when someone listens

    # ----- making, copying, freezing -------------------------------------------------

    @classmethod
    def deal(cls, table: Table, deck: list[int], dealer: int, seed: int) -> HandSim:
        """Deal `deck` (top first) as docs/interfaces.md section 1 says."""
        n, size = table.n, table.rules.hand_size
        hands = [0] * n
        first = table.rot[table.next_seat(dealer)]
        position = 0
        for _ in range(size):
            for seat in first:
                hands[seat] |= 1 << deck[position]
                position += 1
        rest = deck[position:]
        if table.tent:
            half = (len(rest) + 1) // 2
            piles = [rest[:half][::-1], rest[half:][::-1]]
        else:
            piles = [rest[::-1]]
        sim = cls.__new__(cls)
        sim.t, sim.dealer, sim.seed, sim.deck = table, dealer, seed, tuple(deck)
        sim.hands, sim.piles = hands, piles
        sim.passers, sim.out, sim.tricks, sim.discard = [], [], 0, 0
        sim.known, sim.rng = [0] * n, seed
        sim.end, sim.burro, sim.winner = PLAYING, -1, -1
        sim.actions, sim.events = [], None
        sim._start_trick(table.next_seat(dealer))
        return sim

    def clone(self) -> HandSim:
        """An independent copy for search (actions and events are not kept)."""
        sim = HandSim.__new__(HandSim)
        sim.t, sim.dealer, sim.seed, sim.deck = self.t, self.dealer, self.seed, self.deck
        sim.hands = self.hands[:]
        sim.piles = [p[:] for p in self.piles]
        sim.trick, sim.trick_seats = self.trick[:], self.trick_seats[:]
        sim.led, sim.order, sim.turn = self.led, self.order, self.turn
        sim.drawn, sim.found = self.drawn, self.found
        sim.passers, sim.out = self.passers[:], self.out[:]
        sim.tricks, sim.discard, sim.known = self.tricks, self.discard, self.known[:]
        sim.rng, sim.end, sim.burro, sim.winner = self.rng, self.end, self.burro, self.winner
        sim.actions, sim.events = None, None
        return sim

    def freeze(self) -> HandState:
        return HandState(
            dealer=self.dealer,
            seed=self.seed,
            deck=self.deck,
            hands=tuple(self.hands),
            piles=tuple(tuple(p) for p in self.piles),
            trick=tuple(self.trick),
            trick_seats=tuple(self.trick_seats),
            led=self.led,
            order=tuple(self.order),
            turn=self.turn,
            drawn=self.drawn,
            found=self.found,
            passers=tuple(self.passers),
            out=tuple(self.out),
            tricks=self.tricks,
            discard=self.discard,
            known=tuple(self.known),
            rng=self.rng,
            end=self.end,
            burro=self.burro,
            winner=self.winner,
            actions=tuple(self.actions or ()),
        )

    @classmethod
    def thaw(cls, table: Table, state: HandState) -> HandSim:
        sim = cls.__new__(cls)
        sim.t, sim.dealer, sim.seed, sim.deck = table, state.dealer, state.seed, state.deck
        sim.hands = list(state.hands)
        sim.piles = [list(p) for p in state.piles]
        sim.trick, sim.trick_seats = list(state.trick), list(state.trick_seats)
        sim.led, sim.order, sim.turn = state.led, list(state.order), state.turn
        sim.drawn, sim.found = state.drawn, state.found
        sim.passers, sim.out = list(state.passers), list(state.out)
        sim.tricks, sim.discard, sim.known = state.tricks, state.discard, list(state.known)
        sim.rng, sim.end = state.rng, state.end
        sim.burro, sim.winner = state.burro, state.winner
        sim.actions, sim.events = list(state.actions), None
        return sim

    @classmethod
    def reading(cls, table: Table, state: HandState) -> HandSim:
        """A sim over the frozen state's own tuples, to ask questions of (`legal`), never
        to step: `thaw` copies every list (the hand's actions among them) for a step."""
        sim = cls.__new__(cls)
        sim.t, sim.end, sim.turn, sim.led = table, state.end, state.turn, state.led
        sim.found, sim.drawn = state.found, state.drawn
        # read, never changed: the tuples stand in for the lists
        sim.hands, sim.order = state.hands, state.order  # type: ignore[assignment]
        sim.piles = state.piles  # type: ignore[assignment]
        return sim

    # ----- questions -----------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.end != PLAYING

    def to_move(self) -> int:
        """The seat to act, or -1 when the hand is over."""
        return -1 if self.end else self.order[self.turn]

    def stock_size(self) -> int:
        return sum(map(len, self.piles))

    def legal(self) -> list[int]:
        """The legal actions of the seat to act (empty when the hand is over)."""
        if self.end:
            return []
        t = self.t
        hand = self.hands[self.order[self.turn]]
        if self.turn == 0 or self.led < 0:
            # The leader leads anything; after a joker lead the next player plays anything.
            return bits(hand)
        if self.found >= 0:
            return [self.found]
        follow = hand & SUIT_MASKS[self.led]
        joker = hand & _JOKER_BIT
        if t.strict and follow and not self.drawn:  # the common case first: no draws
            acts = bits(follow)
            if joker and t.joker == _ANY_TIME:
                acts.append(JOKER)
            return acts
        draws = [a for a, p in zip(t.draw_actions, self.piles, strict=True) if p]
        if t.strict:
            if self.drawn:
                # Drawing goes on until the led suit turns up; a toppled tent may have
                # brought it, else the player passes.
                return draws or bits(follow) or [PASS]
            if joker:
                if t.joker == _MUST_WHEN_VOID:
                    return [JOKER]
                return [JOKER, *(draws or [PASS])]
            return draws or [PASS]
        # Optional drawing: play a led-suit card or draw (again), as long as there is stock.
        acts = bits(follow)
        if joker:
            if t.joker == _MUST_WHEN_VOID:
                return acts or [JOKER]  # nobody draws while holding it
            if t.joker == _ANY_TIME or not follow:
                acts.append(JOKER)
        if draws:
            acts.extend(draws)
        elif not follow:
            acts.append(PASS)
        return acts

    # ----- moves ---------------------------------------------------------------------

    def step(self, action: int) -> None:
        """Apply a legal action of the seat to act. Not checked: see `legal()`."""
        seat = self.order[self.turn]
        if self.actions is not None:
            self.actions.append((seat, action))
        if action < DRAW:
            self._play(seat, action)
        elif action == PASS:
            self._pass(seat)
        else:
            self._draw(seat, action)

    def _play(self, seat: int, card: int) -> None:
        bit = 1 << card
        hand = self.hands[seat] ^ bit
        self.hands[seat] = hand
        self.known[seat] &= ~bit
        self.trick.append(card)
        self.trick_seats.append(seat)
        if self.led < 0 and card != JOKER:
            self.led = card // SUIT_BITS
        if self.events is not None:
            self.events.append(ev.CardPlayed(seat, self.t.codec.code_of[card]))
        if not hand:
            if self.t.first_out:
                self.out.append(seat)
                self._finish(FIRST_OUT, winner=seat)
                return
            self.out.append(seat)
            if self.events is not None:
                self.events.append(ev.PlayerOut(seat, len(self.out)))
        self._next_turn()

    def _draw(self, seat: int, action: int) -> None:
        t = self.t
        pile = self.piles[1] if action == DRAW_RIGHT else self.piles[0]
        if t.topple > 0.0 and self._topples():
            taken = [c for p in self.piles for c in p]
            for p in self.piles:
                p.clear()
            for card in taken:
                self.hands[seat] |= 1 << card
            self.drawn += len(taken)
            if self.events is not None:
                codes = tuple(t.codec.code_of[c] for c in taken)
                self.events.append(ev.TentToppled(seat, len(taken), codes))
            return
        card = pile.pop()
        self.hands[seat] |= 1 << card
        self.drawn += 1
        if t.strict and (
            card // SUIT_BITS == self.led or (card == JOKER and t.joker == _MUST_WHEN_VOID)
        ):
            self.found = card
        if self.events is not None:
            side = {DRAW_LEFT: "left", DRAW_RIGHT: "right"}.get(action)
            self.events.append(ev.CardDrawn(seat, t.codec.code_of[card], side))

    def _topples(self) -> bool:
        if self.t.topple >= 1.0:
            return True
        self.rng, roll = uniform(self.rng)
        return roll < self.t.topple

    def _pass(self, seat: int) -> None:
        if self.events is not None:
            self.events.append(ev.Passed(seat))
        if self.t.empty == _TAKE_TABLE:
            self._take_the_table(seat)
            return
        if self.t.empty == _PICKUP:
            self.passers.append(seat)
        self._next_turn()

    def _take_the_table(self, seat: int) -> None:
        """Brazil's option: the void player takes the trick so far; the trick ends there."""
        taken = 0
        for card in self.trick:
            taken |= 1 << card
        self.hands[seat] |= taken
        self.known[seat] |= taken
        if self.events is not None:
            self.events.append(ev.CardsPickedUp(seat, self._codes(self.trick)))
        self._close_trick()

    def _next_turn(self) -> None:
        self.turn += 1
        self.drawn = 0
        self.found = -1
        if self.turn == len(self.order):
            self._end_trick()

    def _end_trick(self) -> None:
        if self.passers:
            self._pick_up()
        else:
            for card in self.trick:
                self.discard |= 1 << card
        self._close_trick()

    def _pick_up(self) -> None:
        """Cangkul: the passers take the trick's cards, one each in turn, in play order."""
        passers = self.passers
        taken = [0] * len(passers)
        if len(passers) == 1:
            for card in self.trick:
                taken[0] |= 1 << card
        else:
            for k, card in enumerate(self.trick):
                taken[k % len(passers)] |= 1 << card
        for seat, cards in zip(passers, taken, strict=True):
            self.hands[seat] |= cards
            self.known[seat] |= cards
            if self.events is not None and cards:
                self.events.append(ev.CardsPickedUp(seat, self.t.codec.codes(cards)))

    def _close_trick(self) -> None:
        """Find the trick's winner, then end the hand or start the next trick."""
        self.tricks += 1
        best = max(self.trick)  # the joker is 52; every other card is of the led suit
        winner = self.trick_seats[self.trick.index(best)]
        last_player = self.trick_seats[-1]
        holders = [s for s in range(self.t.n) if self.hands[s]]
        ends = not self.t.first_out and len(holders) <= 1
        capped = not ends and self.tricks >= self.t.trick_cap
        leader = -1 if ends or capped else self._leader_after(winner)
        if self.events is not None:
            self.events.append(ev.TrickWon(winner, self._codes(self.trick), leader))
        if ends or capped:
            self.trick, self.trick_seats = [], []  # set aside or picked up already
        if ends:
            if holders:
                self._finish(BURRO, burro=holders[0])
            elif self.t.last_to_play_loses:
                self._finish(BURRO, burro=last_player)
            else:
                self._finish(NO_BURRO)
        elif capped:
            self._finish(TRICK_CAP)
        else:
            self._start_trick(leader)

    def _leader_after(self, winner: int) -> int:
        """The winner leads; if they are out, the next seat still holding cards."""
        for seat in self.t.rot[winner]:
            if self.hands[seat]:
                return seat
        return winner

    def _start_trick(self, leader: int) -> None:
        hands = self.hands
        self.order = [s for s in self.t.rot[leader] if hands[s]]
        self.turn = 0
        self.trick = []
        self.trick_seats = []
        self.led = -1
        self.drawn = 0
        self.found = -1
        if self.passers:
            self.passers = []

    def _finish(self, end: str, burro: int = -1, winner: int = -1) -> None:
        self.end, self.burro, self.winner = end, burro, winner
        if self.events is not None:
            self.events.append(ev.HandOver(burro, winner, tuple(self.out), end))

    def _codes(self, cards: list[int]) -> tuple[str, ...]:
        return tuple(self.t.codec.code_of[c] for c in cards)

    # ----- whole playouts ------------------------------------------------------------

    def playout(self, randbelow: Callable[[int], int]) -> None:
        """Play random legal actions to the end of the hand. `randbelow(n)` -> [0, n),
        e.g. `random.Random(seed)._randbelow`."""
        while not self.end:
            acts = self.legal()
            self.step(acts[0] if len(acts) == 1 else acts[randbelow(len(acts))])
