"""Tiny's rules, state, moves and views: pure functions over frozen data."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engine.kernel import errors
from engine.kernel.presets import Preset, check_players
from engine.kernel.rng import keyed, shuffled

PACK = tuple(rank + suit for rank in "AKQ" for suit in "SHDC")  # strongest first
HAND_SIZE = 3
PRESETS = {"tiny": Preset("tiny", (2, 4), {"target": 3}, aliases=("high_card",))}
ALIASES = {alias: p.name for p in PRESETS.values() for alias in p.aliases}


@dataclass(frozen=True)
class Rules:
    preset: str
    target: int  # points that win

    def options(self) -> dict[str, Any]:
        return {"target": self.target}


def make_rules(preset: str, options: dict[str, Any]) -> Rules:
    base = PRESETS.get(ALIASES.get(preset, preset))
    if base is None:
        raise errors.RulesError(f"unknown preset {preset!r}; known: tiny, high_card")
    values = {**base.options, **options}
    if set(values) != {"target"}:
        raise errors.RulesError("the only option is 'target'")
    target = values["target"]
    if not isinstance(target, int) or isinstance(target, bool) or not 1 <= target <= 9:
        raise errors.RulesError(f"option 'target': a whole number from 1 to 9 (got {target!r})")
    return Rules(base.name, target)


@dataclass(frozen=True)
class Hand:
    """One deal, as a record holds it: enough to replay it exactly."""

    hand_no: int
    dealer: int
    deck: tuple[str, ...]  # top first
    points: tuple[int, ...]  # before the deal
    actions: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class State:
    rules: Rules
    seats: int
    seed: int  # the game's secret key: each hand's pack is shuffled from it
    hand: Hand  # the hand in play (the last one once the game is over)
    past: tuple[Hand, ...]  # finished hands, oldest first
    held: tuple[tuple[str, ...], ...]  # each seat's cards
    table: tuple[tuple[int, str], ...]  # (seat, card) played this round
    turn: int  # the seat to play; -1 once the game is over
    points: tuple[int, ...]
    winners: tuple[int, ...] = ()
    losers: tuple[int, ...] = ()

    @property
    def over(self) -> bool:
        return self.turn < 0


@dataclass(frozen=True)
class Event:
    kind: str  # played, round_won, dealt, game_over
    seat: int
    card: str = ""


def deal(rules: Rules, seats: int, seed: int, hand: Hand) -> State:
    """The state as `hand` is dealt: three cards each, from the left of the dealer."""
    check_players(rules.preset, *PRESETS[rules.preset].players, seats)
    order = [(hand.dealer + 1 + k) % seats for k in range(seats)]
    held: list[tuple[str, ...]] = [()] * seats
    for k, seat in enumerate(order):
        held[seat] = tuple(sorted(hand.deck[k * HAND_SIZE : (k + 1) * HAND_SIZE], key=PACK.index))
    return State(rules, seats, seed, hand, (), tuple(held), (), order[0], hand.points)


def new_game(rules: Rules, seats: int, seed: int, dealer: int = 0) -> State:
    deck = tuple(shuffled(list(PACK), keyed(seed, 1, 0)))
    return deal(rules, seats, seed, Hand(1, dealer, deck, (0,) * seats))


def legal_actions(state: State, seat: int) -> list[str]:
    return sorted("play:" + c for c in state.held[seat]) if seat == state.turn else []


def apply(state: State, seat: int, action: str) -> tuple[State, list[Event]]:
    """`seat` plays a card: the new state and what happened, or a typed refusal."""
    card = _check(state, seat, action)
    held = list(state.held)
    held[seat] = tuple(c for c in held[seat] if c != card)
    hand = replace(state.hand, actions=(*state.hand.actions, (seat, action)))
    table = (*state.table, (seat, card))
    turn = (seat + 1) % state.seats
    state = replace(state, hand=hand, held=tuple(held), table=table, turn=turn)
    events = [Event("played", seat, card)]
    if len(table) == state.seats:
        state = _score_round(state, events)
    return state, events


def _check(state: State, seat: int, action: str) -> str:
    """The card `action` plays, if `seat` may play it now; else the first refusal."""
    if state.over:
        raise errors.GameOver()
    kind, _, card = action.partition(":")
    if kind != "play":
        raise errors.UnknownAction(f"unknown action {action!r}")
    if card not in PACK:
        raise errors.UnknownCard(f"there is no card {card!r} in this pack")
    if seat != state.turn:
        raise errors.NotYourTurn()
    if card not in state.held[seat]:
        raise errors.NotInHand()
    return card


def _score_round(state: State, events: list[Event]) -> State:
    """The highest card takes a point; then the game ends, or the hand goes on, or the
    next hand is dealt."""
    winner, best = min(state.table, key=lambda play: PACK.index(play[1]))
    points = tuple(p + (s == winner) for s, p in enumerate(state.points))
    events.append(Event("round_won", winner, best))
    state = replace(state, table=(), turn=winner, points=points)
    finished = (*state.past, state.hand)
    if points[winner] >= state.rules.target:
        events.append(Event("game_over", winner))
        losers = tuple(s for s in range(state.seats) if s != winner)
        return replace(state, past=finished, turn=-1, winners=(winner,), losers=losers)
    if any(state.held):
        return state
    hand_no, dealer = state.hand.hand_no + 1, (state.hand.dealer + 1) % state.seats
    deck = tuple(shuffled(list(PACK), keyed(state.seed, hand_no, 0)))
    events.append(Event("dealt", dealer))
    return replace(
        deal(state.rules, state.seats, state.seed, Hand(hand_no, dealer, deck, points)),
        past=finished,
    )


@dataclass(frozen=True)
class PublicView:
    rules: Rules
    seats: int
    hand_no: int
    dealer: int
    points: tuple[int, ...]
    counts: tuple[int, ...]  # cards in each hand
    table: tuple[tuple[int, str], ...]
    to_move: int | None
    history: tuple[tuple[int, str], ...]  # this hand's plays: all face up
    winners: tuple[int, ...]
    losers: tuple[int, ...]


@dataclass(frozen=True)
class PlayerView(PublicView):
    seat: int
    hand: tuple[str, ...]  # own cards, strongest first
    legal: tuple[str, ...]


def public_view(state: State) -> PublicView:
    return PublicView(**_public(state))


def player_view(state: State, seat: int) -> PlayerView:
    legal = tuple(legal_actions(state, seat))
    return PlayerView(**_public(state), seat=seat, hand=state.held[seat], legal=legal)


def _public(state: State) -> dict[str, Any]:
    return {
        "rules": state.rules,
        "seats": state.seats,
        "hand_no": state.hand.hand_no,
        "dealer": state.hand.dealer,
        "points": state.points,
        "counts": tuple(len(h) for h in state.held),
        "table": state.table,
        "to_move": None if state.over else state.turn,
        "history": state.hand.actions,
        "winners": state.winners,
        "losers": state.losers,
    }
