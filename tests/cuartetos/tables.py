"""Scripted tables for the passing game: deal chosen hands, act at chosen times."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from engine.cuartetos import events as ev
from engine.cuartetos.cards import is_four_of_a_kind, plan_pass
from engine.cuartetos.game import apply, deadline, legal_actions, new_game, to_move
from engine.cuartetos.rules import make_rules
from engine.cuartetos.sim import hand_direction, next_in, pack_for
from engine.cuartetos.state import SYSTEM, GameState, to_seconds

MAX_STEPS = 600

# Ludoteka's table: five players, A K Q J 7.
FIVE = {
    0: "AS AH AD 7C",
    1: "KS KH KD AC",
    2: "QS QH QD KC",
    3: "JS JH JD QC",
    4: "7S 7H 7D JC",
}
# Everyone passes their odd card: then every seat holds four of a kind (hand 1).
ODD_CARDS = ("0:pass:7C@1.0", "1:pass:AC@1.1", "2:pass:KC@1.2", "3:pass:QC@1.3", "4:pass:JC@1.4")


def deck_for(hands: dict[int, str], seats: int, dealer: int = 0, **options: Any) -> list[str]:
    """The pack, top first, that deals exactly `hands` (seat -> "7S 7H ..."), as
    docs/interfaces.md section 1 deals: one card at a time from next(dealer), in direction."""
    rules = make_rules("cuartetos", options)
    players = tuple(sorted(hands))
    direction = hand_direction(rules, 1)
    cards = {seat: hands[seat].split() for seat in players}
    assert sorted(c for cs in cards.values() for c in cs) == sorted(pack_for(rules, len(players)))
    deck, seat = [], next_in(players, dealer, direction)
    for k in range(4 * len(players)):
        deck.append(cards[seat][k // len(players)])
        seat = next_in(players, seat, direction)
    return deck


def table(
    hands: dict[int, str] | None = None, dealer: int = 0, seed: int = 1, **options: Any
) -> GameState:
    hands = hands or FIVE
    deck = deck_for(hands, len(hands), dealer, **options)
    return new_game(make_rules("cuartetos", options), len(hands), seed, dealer, 0.0, deck)


def act(game: GameState, *moves: str) -> tuple[GameState, list[ev.Event]]:
    """Apply moves written "seat:action@time" (seat `S` for the server's close)."""
    events: list[ev.Event] = []
    for move in moves:
        who, _, rest = move.partition(":")
        action, _, at = rest.rpartition("@")
        seat = SYSTEM if who == "S" else int(who)
        game, new = apply(game, seat, action, float(at))
        events += new
    return game, events


def of(events: list[ev.Event], kind: type[ev.Event]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def random_moves(
    game: GameState, rnd: random.Random, steps: int = MAX_STEPS
) -> Iterator[tuple[GameState, int, str, float, GameState, list[ev.Event]]]:
    """Random legal play, with made-up receive times: (before, seat, action, at, after,
    events) per action. Players act or idle; the server closes at deadlines."""
    t = to_seconds(game.hand.phase_at)
    for _ in range(steps):
        if game.over:
            return
        t += rnd.random() * 3
        due = deadline(game)
        assert due is not None
        movers = to_move(game)
        if not movers or t > due or rnd.random() < 0.05:
            seat, action, t = SYSTEM, "close", max(t, due)
        else:
            seat = rnd.choice(movers)
            legal = legal_actions(game, seat)
            cards = game.hand.hands[seat]
            if "burro" in legal and is_four_of_a_kind(cards) and rnd.random() < 0.7:
                action = "burro"  # real calls: often at once
            elif "respond" in legal or rnd.random() < 0.3:
                action = rnd.choice(legal)  # anything legal, false calls included
            else:
                action = "pass:" + plan_pass(cards, rnd)  # build four of a kind
        after, events = apply(game, seat, action, t)
        yield game, seat, action, t, after, events
        game = after


def play_out(game: GameState, rnd: random.Random, steps: int = MAX_STEPS) -> GameState:
    """The game after up to `steps` actions of `random_moves`."""
    for *_, after, _ in random_moves(game, rnd, steps):
        game = after
    return game
