"""The rules of the passing game, as a mutable simulator over one `GameState`.

This is the only place where the rules of play live. `engine.cuartetos.game.apply` checks
an action (typed refusals), thaws the state into a `Sim`, runs one step and freezes the
result; bots and the arena go through that same public door. A step never checks
legality itself.

The flow of a hand:
- Choosing: every player still in chooses a card (`pass:<card>`); when the last one has
  chosen, or the server's `close` ends the time to choose, the cards go round at once
  (for each seat that did not choose, the heuristic bot's card, ties broken by the
  hand's seed).
- A call (`burro` with four of a kind, or `fake:<word>`) opens a response window: the
  others `respond`; the call resolves when all have, or at `close`.
- After each pass: absences, then the rotation cap.

Decisions where the sources are silent or loose (each a rule option where it can be):
- Real call, window closed with someone silent: the silent ones take the letter, the last
  responder does not (Ludoteka: "si algún jugador no llega a responder ... será quien
  pierda"). Everyone responded: the last by receive time; equal times, the later applied.
- A call replaces nothing: after a false or fake call the caller still chooses a card,
  and cards already chosen stay chosen. A second call while one is open is refused.
- The rotation cap counts passes without a real ¡Burro! (false and fake calls do not
  stop it); every seat tied for the smallest largest-group takes a letter.
- Absent: no action of one's own (a choice, a call or a response) for `absent_after`
  passes in a row, counted across hands. Each time: a letter, until the
  `remove_after_absences`-th time, which removes the player instead. A removal ends the
  hand (the pack must shrink by a rank) and the cards are dealt again without them.
- Below three players the game ends at once: the removed players lose, those left with
  the fewest letters win. A letter that completes a word ends the game at once, even
  mid-hand; everyone it completes loses together.
- The dealer's right deals the next hand (as in Spain), whatever the passing direction.
"""

from __future__ import annotations

import random

from engine.cuartetos import events as ev
from engine.cuartetos.cards import is_four_of_a_kind, matching, pack, plan_pass, sort_key
from engine.cuartetos.rules import REAL_WORD, CuartetosRules
from engine.cuartetos.state import Call, GameState, HandState, Letter, Standing, to_seconds
from engine.kernel.rng import below, derive, keyed, shuffled

MIN_TO_PLAY = 3  # below this many players left, the game ends (docs/rules.md: 3-8 players)

# How a hand ended.
PLAYING = ""
BURRO = "burro"  # a real ¡Burro! was resolved
CAP = "cap"  # max_rotations passes without a real call
REMOVED = "removed"  # a player was removed: the cards are dealt again without them
GAME_OVER = "game_over"  # a letter mid-hand completed someone's word


def hand_direction(rules: CuartetosRules, hand_no: int) -> int:
    """+1 clockwise, -1 anticlockwise; `alternate`: odd hands to the right (-1)."""
    if rules.direction == "alternate":
        return -1 if hand_no % 2 else 1
    return 1 if rules.direction == "clockwise" else -1


def word_for(rules: CuartetosRules, hand_seed: int, rotation: int) -> str:
    """The fake word allowed while choosing for pass `rotation` (0-based passes made)."""
    _, k = below(derive(hand_seed, 0, rotation), len(rules.fake_words))
    return rules.fake_words[k]


def next_in(players: tuple[int, ...], seat: int, direction: int) -> int:
    """The next seat of `players` after `seat` in `direction`."""
    k = players.index(seat)
    return players[(k + direction) % len(players)]


def pack_for(rules: CuartetosRules, players: int) -> list[str]:
    return pack(rules.ranks_for(players))


def deal_hand(
    rules: CuartetosRules,
    seats: int,
    standing: Standing,
    dealer: int,
    deck: list[str],
    seed: int,
    at: int,
) -> HandState:
    """Deal `deck` (top first) to the seats still playing, one card at a time from
    next(dealer) in the hand's direction (docs/interfaces.md section 1)."""
    players = tuple(s for s in range(seats) if s not in standing.removed)
    direction = hand_direction(rules, standing.hand_no)
    key = sort_key(rules.ranks_for(len(players)))
    cards: list[list[str]] = [[] for _ in range(seats)]
    seat = next_in(players, dealer, direction)
    for card in deck:
        cards[seat].append(card)
        seat = next_in(players, seat, direction)
    empty: tuple[tuple[str, ...], ...] = ((),) * seats
    return HandState(
        standing=standing,
        dealer=dealer,
        direction=direction,
        players=players,
        seed=seed,
        deck=tuple(deck),
        dealt_at=at,
        hands=tuple(tuple(sorted(h, key=key.__getitem__)) for h in cards),
        rotation=0,
        chosen=("",) * seats,
        acted=(False,) * seats,
        fakes=(0,) * seats,
        call=None,
        phase_at=at,
        passed=empty,
        received=empty,
        letters=(),
        end=PLAYING,
        caller=-1,
        out=(),
        losers=(),
        actions=(),
    )


def shuffled_deal(
    rules: CuartetosRules, seats: int, game_seed: int, standing: Standing, dealer: int, at: int
) -> HandState:
    """A hand dealt from the game's seed: the pack shuffled, the hand's own seed derived."""
    players = seats - len(standing.removed)
    deck = shuffled(pack_for(rules, players), keyed(game_seed, standing.hand_no, 0))
    seed = keyed(game_seed, standing.hand_no, 1)
    return deal_hand(rules, seats, standing, dealer, deck, seed, at)


class Sim:
    """One game in play, mutable. Built from a `GameState`, frozen back into one."""

    def __init__(self, game: GameState) -> None:
        self.game = game
        self.rules = game.rules
        st, hand = game.standing, game.hand
        self.letters = list(st.letters)
        self.fakes_used = list(st.fakes_used)
        self.idle = list(st.idle)
        self.absences = list(st.absences)
        self.removed = list(st.removed)
        self.fooled = list(st.fooled)
        self.hand = hand
        self.hands = [list(h) for h in hand.hands]
        self.chosen = list(hand.chosen)
        self.acted = list(hand.acted)
        self.fakes = list(hand.fakes)
        self.call = hand.call
        self.phase_at = hand.phase_at
        self.rotation = hand.rotation
        self.passed = list(hand.passed)
        self.received = list(hand.received)
        self.hand_letters = list(hand.letters)
        self.end = hand.end
        self.caller, self.out, self.losers = hand.caller, hand.out, hand.losers
        self.actions = list(hand.actions)
        self.past = list(game.past)
        self.next_hand: HandState | None = None
        self.over, self.game_end = game.over, game.end
        self.winners, self.game_losers = game.winners, game.losers
        self.events: list[ev.Event] = []
        self.now = hand.phase_at  # the latest receive time seen (µs), set by `step`
        self._key = sort_key(self.rules.ranks_for(len(hand.players)))

    # ----- freezing ------------------------------------------------------------------

    def standing(self, hand_no: int) -> Standing:
        return Standing(
            hand_no=hand_no,
            letters=tuple(self.letters),
            fakes_used=tuple(self.fakes_used),
            idle=tuple(self.idle),
            absences=tuple(self.absences),
            removed=tuple(self.removed),
            fooled=tuple(self.fooled),
        )

    def frozen_hand(self) -> HandState:
        h = self.hand
        return HandState(
            standing=h.standing,
            dealer=h.dealer,
            direction=h.direction,
            players=h.players,
            seed=h.seed,
            deck=h.deck,
            dealt_at=h.dealt_at,
            hands=tuple(tuple(c) for c in self.hands),
            rotation=self.rotation,
            chosen=tuple(self.chosen),
            acted=tuple(self.acted),
            fakes=tuple(self.fakes),
            call=self.call,
            phase_at=self.phase_at,
            passed=tuple(self.passed),
            received=tuple(self.received),
            letters=tuple(self.hand_letters),
            end=self.end,
            caller=self.caller,
            out=self.out,
            losers=self.losers,
            actions=tuple(self.actions),
        )

    def freeze(self) -> GameState:
        hand = self.frozen_hand()
        past = tuple(self.past)
        hand_no = self.game.hand_no
        if self.next_hand is not None:
            past, hand, hand_no = (*past, hand), self.next_hand, self.next_hand.standing.hand_no
        return GameState(
            rules=self.rules,
            seats=self.game.seats,
            seed=self.game.seed,
            standing=self.standing(hand_no),
            hand=hand,
            past=past,
            over=self.over,
            end=self.game_end,
            winners=self.winners,
            losers=self.game_losers,
        )

    # ----- the step ------------------------------------------------------------------

    def step(self, seat: int, kind: str, arg: str, action: str, at: int) -> None:
        """Apply one checked action: `kind` pass/burro/fake/respond/close, `arg` the card
        or the word, `action` its canonical string for the log."""
        # Phases start at the latest receive time seen, so deadlines never go back even
        # when a server applies two actions out of their receive order.
        self.now = max(at, self.phase_at, *(t for _, _, t in self.actions))
        self.actions.append((seat, action, at))
        if seat >= 0:
            self.acted[seat] = True
            self.idle[seat] = 0
        if kind == "pass":
            self._choose(seat, arg, auto=False)
        elif kind == "burro":
            self._call_burro(seat, at)
        elif kind == "fake":
            self._call_fake(seat, arg, at)
        elif kind == "respond":
            self._respond(seat, at)
        else:
            self._close()

    def _choose(self, seat: int, card: str, auto: bool) -> None:
        self.chosen[seat] = card
        self.events.append(ev.CardChosen(seat, card, auto))
        if not auto and all(self.chosen[s] for s in self.hand.players):
            self._pass_cards()

    def _call_burro(self, seat: int, at: int) -> None:
        if is_four_of_a_kind(tuple(self.hands[seat])):
            self._open_call(seat, REAL_WORD, at)
            return
        self.events.append(ev.FalseCall(seat))
        self._give([seat], "false_call")
        if self._someone_lost():
            self._end_hand(GAME_OVER)

    def _call_fake(self, seat: int, word: str, at: int) -> None:
        self.fakes[seat] += 1
        self.fakes_used[seat] += 1
        self._open_call(seat, word, at)

    def _open_call(self, seat: int, word: str, at: int) -> None:
        self.call = Call(seat, word, at)
        self.phase_at = at
        self.events.append(ev.Called(seat, word, to_seconds(at)))

    def _respond(self, seat: int, at: int) -> None:
        call = self.call
        assert call is not None
        call = Call(call.caller, call.word, call.at, (*call.responses, (seat, at)))
        self.call = call
        self.events.append(ev.Responded(seat, to_seconds(at)))
        if len(call.responses) == len(self.hand.players) - 1:
            self._resolve()

    def _close(self) -> None:
        if self.call is not None:
            self._resolve()
            return
        # Time to choose is over: pick a card for each seat that has not chosen.
        for seat in self.hand.players:
            if not self.chosen[seat]:
                rnd = random.Random(derive(self.hand.seed, 1, self.rotation, seat))
                self._choose(seat, plan_pass(self.hands[seat], rnd), auto=True)
        self._pass_cards()

    # ----- calls ---------------------------------------------------------------------

    def _resolve(self) -> None:
        call = self.call
        assert call is not None
        responders = call.in_receive_order()
        others = [s for s in self.hand.players if s != call.caller]
        missing = tuple(s for s in others if s not in responders)
        if call.real:
            # The slowest lose: whoever never responded, else the last to respond.
            losers = missing or responders[-1:]
            reason = "slowest"
        else:
            losers = responders or (call.caller,)
            reason = "fooled" if responders else "fake_unanswered"
            for seat in responders:
                self.fooled[seat] += 1
        self.events.append(ev.CallResolved(call.caller, call.word, responders, missing, losers))
        self.call = None
        self.phase_at = self.now
        self._give(list(losers), reason)
        if call.real:
            self.caller = call.caller
            self.out = (call.caller, *(s for s in responders if s not in losers))
            self.losers = losers
            self._end_hand(BURRO, shown=tuple(self.hands[call.caller]))
        elif self._someone_lost():
            self._end_hand(GAME_OVER)

    # ----- the pass ------------------------------------------------------------------

    def _pass_cards(self) -> None:
        players, direction = self.hand.players, self.hand.direction
        gifts = {seat: self.chosen[seat] for seat in players}
        for seat, card in gifts.items():
            self.hands[seat].remove(card)
        self.rotation += 1
        self.events.append(ev.CardsPassed(-1, self.rotation))
        for giver, card in gifts.items():
            taker = next_in(players, giver, direction)
            self.hands[taker].append(card)
            self.hands[taker].sort(key=self._key.__getitem__)
            self.passed[giver] = (*self.passed[giver], card)
            self.received[taker] = (*self.received[taker], card)
            self.events.append(ev.CardReceived(taker, card, giver))
        self._after_pass()

    def _after_pass(self) -> None:
        rules = self.rules
        absent: list[int] = []
        removing: list[int] = []
        for seat in self.hand.players:
            if not self.acted[seat]:
                self.idle[seat] += 1
            if self.idle[seat] >= rules.absent_after:
                self.idle[seat] = 0
                self.absences[seat] += 1
                self.events.append(ev.PlayerAbsent(seat, self.absences[seat]))
                if self.absences[seat] >= rules.remove_after_absences:
                    removing.append(seat)
                else:
                    absent.append(seat)
        self._give(absent, "absent")
        for seat in removing:
            self.removed.append(seat)
            self.events.append(ev.PlayerRemoved(seat))
        if self._someone_lost():
            self._end_hand(GAME_OVER)
        elif removing:
            self._end_hand(REMOVED)
        elif self.rotation >= rules.max_rotations:
            groups = {s: matching(tuple(self.hands[s])) for s in self.hand.players}
            fewest = min(groups.values())
            self.losers = tuple(s for s in self.hand.players if groups[s] == fewest)
            self._give(list(self.losers), "fewest")
            counts = tuple(groups.get(s, 0) for s in range(self.game.seats))
            self._end_hand(CAP, matching_counts=counts)
        else:
            self._start_rotation()

    def _start_rotation(self) -> None:
        seats = self.game.seats
        self.chosen = [""] * seats
        self.acted = [False] * seats
        self.phase_at = self.now
        word = word_for(self.rules, self.hand.seed, self.rotation)
        self.events.append(ev.RotationStarted(-1, self.rotation + 1, word))

    # ----- letters, the end of a hand, the end of the game ---------------------------

    def _give(self, seats: list[int], reason: str) -> None:
        for seat in seats:
            self.letters[seat] += 1
            self.hand_letters.append(Letter(seat, reason))
            self.events.append(ev.LetterGiven(seat, self.letters[seat], reason))

    def _someone_lost(self) -> bool:
        return any(self.letters[s] >= self.rules.target for s in self.hand.players)

    def _end_hand(
        self,
        reason: str,
        shown: tuple[str, ...] = (),
        matching_counts: tuple[int, ...] = (),
    ) -> None:
        self.end = reason
        self.call = None
        self.events.append(
            ev.HandOver(-1, reason, self.caller, self.out, self.losers, shown, matching_counts)
        )
        playing = [s for s in range(self.game.seats) if s not in self.removed]
        lost = tuple(s for s in self.hand.players if self.letters[s] >= self.rules.target)
        if lost:
            self._end_game("letters", playing, lost)
        elif len(playing) < MIN_TO_PLAY:
            self._end_game("too_few_players", playing, tuple(self.removed))
        else:
            self._deal_next(playing)

    def _end_game(self, reason: str, playing: list[int], losers: tuple[int, ...]) -> None:
        rest = [s for s in playing if s not in losers]
        fewest = min((self.letters[s] for s in rest), default=0)
        self.over, self.game_end = True, reason
        self.winners = tuple(s for s in rest if self.letters[s] == fewest)
        self.game_losers = losers
        self.events.append(ev.GameEnded(-1, self.winners, losers, reason))

    def _deal_next(self, playing: list[int]) -> None:
        """The dealer's right deals next (the seat before in seat order, still playing)."""
        dealer = self.hand.dealer
        for k in range(1, self.game.seats + 1):
            candidate = (self.hand.dealer - k) % self.game.seats
            if candidate in playing:
                dealer = candidate
                break
        hand_no = self.game.hand_no + 1
        standing = self.standing(hand_no)
        nxt = shuffled_deal(self.rules, self.game.seats, self.game.seed, standing, dealer, self.now)
        self.next_hand = nxt
        self.events.append(
            ev.HandStarted(dealer, hand_no, direction_name(nxt.direction), nxt.players)
        )
        self.events.append(ev.RotationStarted(-1, 1, word_for(self.rules, nxt.seed, 0)))


def direction_name(direction: int) -> str:
    return "clockwise" if direction == 1 else "anticlockwise"
