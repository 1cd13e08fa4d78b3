"""A whole game: hands dealt in turn, scores across hands, the winners and the losers.

The public API is immutable: `apply(game, seat, action)` returns a new `GameState` and
the events the action caused, or raises a typed `IllegalAction`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from engine.follow_suit import events as ev
from engine.follow_suit.actions import decode, encode
from engine.follow_suit.hand import FIRST_OUT, HandSim, HandState, Table, table_for
from engine.follow_suit.refusals import refusal
from engine.follow_suit.rules import Rules
from engine.kernel import errors
from engine.kernel.protocol import History
from engine.kernel.rng import keyed, shuffled


@dataclass(frozen=True)
class GameState:
    rules: Rules
    seats: int
    seed: int  # the game's secret key: every hand's deck and tent are drawn from it (keyed)
    hand_no: int  # 1 for the first hand
    scores: tuple[int, ...]  # penalty points, letters or wins, per seat
    hand: HandState  # the hand in play (the last one once the game is over)
    past: tuple[HandState, ...]  # finished hands, oldest first
    winners: tuple[int, ...] = ()  # set when the game is over (ties share)
    losers: tuple[int, ...] = ()

    @property
    def over(self) -> bool:
        return bool(self.winners or self.losers)

    @cached_property
    def table(self) -> Table:
        # Kept on the state: finding it hashes the whole rule set (a replay asks often).
        return table_for(self.rules, self.seats)


def start_hand(table: Table, dealer: int, deck: list[str], seed: int) -> HandSim:
    """Deal a hand from an explicit pack of card codes, top first."""
    codec = table.codec
    return HandSim.deal(table, [codec.index_of[c] for c in deck], dealer, seed)


def new_game(
    rules: Rules,
    seats: int,
    seed: int,
    dealer: int = 0,
    deck: list[str] | None = None,
) -> GameState:
    """A new game; the first hand is dealt from `deck` if given, else shuffled by `seed`."""
    rules.check_seats(seats)
    if not 0 <= dealer < seats:
        raise errors.RulesError(f"dealer must be a seat from 0 to {seats - 1}")
    table = table_for(rules, seats)
    hand = _deal(table, seed, 1, dealer, deck)
    return GameState(rules, seats, seed, 1, (0,) * seats, hand.freeze(), ())


def _deal(table: Table, seed: int, hand_no: int, dealer: int, deck: list[str] | None) -> HandSim:
    if deck is None:
        deck = shuffled(table.codec.pack(), keyed(seed, hand_no, 0))
    return start_hand(table, dealer, deck, keyed(seed, hand_no, 1))


def to_move(game: GameState) -> int | None:
    """The seat to act, or None when the game is over."""
    if game.over or game.hand.end:
        return None
    return game.hand.order[game.hand.turn]


def legal_actions(game: GameState, seat: int) -> list[str]:
    """The legal actions of `seat`, sorted as strings (empty when it is not their turn)."""
    if to_move(game) != seat:
        return []
    sim = HandSim.reading(game.table, game.hand)
    return sorted(decode(a, game.table.codec) for a in sim.legal())


def forced(game: GameState) -> tuple[int, str] | None:
    """The seat to move and its action, when it has only one (none are decoded else)."""
    seat = to_move(game)
    if seat is None:
        return None
    acts = HandSim.reading(game.table, game.hand).legal()
    return (seat, decode(acts[0], game.table.codec)) if len(acts) == 1 else None


def apply(game: GameState, seat: int, action: str) -> tuple[GameState, list[ev.Event]]:
    """Apply `seat`'s action: the new state and the events it caused."""
    if game.over:
        raise errors.GameOver()
    table = game.table
    code = encode(action, table.codec)
    if to_move(game) != seat:
        raise errors.NotYourTurn()
    sim = HandSim.thaw(table, game.hand)
    if code not in sim.legal():
        raise refusal(sim, code)
    events: list[ev.Event] = []
    sim.events = events
    sim.step(code)
    if not sim.end:
        return replace(game, hand=sim.freeze()), events
    return _after_hand(game, sim, events)


def _after_hand(
    game: GameState, sim: HandSim, events: list[ev.Event]
) -> tuple[GameState, list[ev.Event]]:
    """Score the finished hand, then end the game or deal the next hand."""
    rules, finished = game.rules, sim.freeze()
    scores = list(game.scores)
    scored = sim.winner if sim.end == FIRST_OUT else sim.burro
    if scored >= 0:
        scores[scored] += 1
        events.append(ev.ScoreChanged(scored, scores[scored]))
    winners, losers = _game_result(rules, game.seats, scores, scored, sim.end == FIRST_OUT)
    game = replace(game, scores=tuple(scores), past=(*game.past, finished))
    if winners or losers:
        events.append(ev.GameEnded(-1, winners, losers))
        return replace(game, hand=finished, winners=winners, losers=losers), events
    dealer = game.table.next_seat(finished.dealer)
    hand_no = game.hand_no + 1
    nxt = _deal(game.table, game.seed, hand_no, dealer, None)
    events.append(ev.HandStarted(dealer, hand_no, nxt.order[0]))
    return replace(game, hand_no=hand_no, hand=nxt.freeze()), events


def history(game: GameState) -> History:
    """The game as its start and its moves (no times: this game ignores them)."""
    hands = game.past if game.over else (*game.past, game.hand)
    codec = game.table.codec
    moves = tuple((seat, decode(a, codec), 0.0) for hand in hands for seat, a in hand.actions)
    rules = game.rules
    return History(
        rules.preset, rules.options(), game.seats, game.seed, hands[0].dealer, 0.0, moves
    )


def _game_result(
    rules: Rules, seats: int, scores: list[int], scored: int, first_out: bool
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(winners, losers) if the game is over, else two empty tuples."""
    everyone = tuple(range(seats))
    if rules.scoring == "single":
        if scored < 0:
            return everyone, ()
        others = tuple(s for s in everyone if s != scored)
        return ((scored,), others) if first_out else (others, (scored,))
    if scored < 0 or scores[scored] < rules.target:
        return (), ()
    fewest = min(scores)
    trailing = tuple(s for s in everyone if scores[s] == fewest)
    if rules.scoring == "wins":
        return (scored,), trailing
    return trailing, (scored,)
