"""Property tests: random legal play of the passing game, checked after every action
(docs/rules.md "Invariants"), the same seed giving the same game, storage and records
round trips, and views that never show a card their viewer may not know."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cuartetos import events as ev
from engine.cuartetos.game import apply, legal_actions, new_game, to_move
from engine.cuartetos.records import hand_record, iso, micros_of, read_record
from engine.cuartetos.replay import trace
from engine.cuartetos.rules import CuartetosRules, make_rules
from engine.cuartetos.sim import pack_for
from engine.cuartetos.state import GameState, HandState
from engine.cuartetos.storage import dumps, loads
from engine.cuartetos.views import player_view, public_view
from tests.cuartetos.tables import play_out, random_moves

MIXES: list[dict[str, Any]] = [
    {},
    {"max_rotations": 4},
    {"absent_after": 1, "remove_after_absences": 2},
    {"direction": "clockwise", "target": 2},
    {"fakes_per_hand": 2, "fakes_per_game": 5, "response_window": 2.5},
    {"deck": "french52", "max_rotations": 8, "pass_window": 3},
]
GAME_ACTIONS = 20_000


@st.composite
def tables(draw: st.DrawFn) -> tuple[CuartetosRules, int, int]:
    rules = make_rules("cuartetos", draw(st.sampled_from(MIXES)))
    return rules, draw(st.integers(3, 8)), draw(st.integers(0, 2**40))


def places(game: GameState) -> list[str]:
    return sorted(c for h in game.hand.hands for c in h)


def check_step(
    before: GameState, seat: int, action: str, after: GameState, events: list[ev.Event]
) -> None:
    hand = after.hand
    assert places(after) == sorted(pack_for(after.rules, len(hand.players))), "a card moved"
    for s in range(after.seats):
        cards = hand.hands[s]
        assert len(cards) == (4 if s in hand.players else 0)
        assert len(set(cards)) == len(cards)
    given = [e for e in events if isinstance(e, ev.LetterGiven)]
    gained = [a - b for a, b in zip(after.standing.letters, before.standing.letters, strict=True)]
    assert all(g >= 0 for g in gained) and sum(gained) == len(given)
    if not after.over:
        movers = set(to_move(after))
        for s in range(after.seats):
            assert bool(legal_actions(after, s)) == (s in movers)
    else:
        assert (to_move(after) == () and after.losers) or after.end == "too_few_players"
    if after.hand_no == before.hand_no and not after.over and seat >= 0:
        moved = [s for s in range(after.seats) if after.hand.hands[s] != before.hand.hands[s]]
        passed = any(isinstance(e, ev.CardsPassed) for e in events)
        assert passed or not moved, "cards moved without a pass"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.randoms(use_true_random=False))
def test_random_play_keeps_every_invariant(
    table: tuple[CuartetosRules, int, int], rnd: Any
) -> None:
    rules, seats, seed = table
    game = new_game(rules, seats, seed, at=1_700_000_000.0)
    for before, seat, action, _, after, events in random_moves(game, rnd):
        check_step(before, seat, action, after, events)
        assert loads(dumps(after)) == after


@settings(max_examples=15, deadline=None)
@given(tables(), st.integers(0, 2**32))
def test_same_seed_same_game(table: tuple[CuartetosRules, int, int], choice_seed: int) -> None:
    rules, seats, seed = table

    def play() -> GameState:
        return play_out(new_game(rules, seats, seed), random.Random(choice_seed), GAME_ACTIONS)

    first = play()
    assert first == play()
    assert first.over  # every game ends: the rotation cap ends every hand


def card_strings(value: Any) -> set[str]:
    """Every string inside a view (dataclasses, tuples), `pass:` stripped."""
    if isinstance(value, str):
        return {value, value.removeprefix("pass:")}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        found: set[str] = set()
        for field in dataclasses.fields(value):
            if field.name != "rules":
                found |= card_strings(getattr(value, field.name))
        return found
    if isinstance(value, tuple | list):
        return set().union(*(card_strings(v) for v in value)) if value else set()
    return set()


def shown(game: GameState) -> set[str]:
    """Cards made public: the four of a kind of a real call."""
    view = public_view(game)
    return {c for s in (view.last_hand, view.hand_result) if s for c in s.shown}


@settings(max_examples=30, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_views_never_show_hidden_cards(table: tuple[CuartetosRules, int, int], rnd: Any) -> None:
    rules, seats, seed = table
    start = new_game(rules, seats, seed)
    every_card = set(pack_for(rules, seats))
    for _, _, _, _, game, events in random_moves(start, rnd, 150):
        public = shown(game)
        assert card_strings(public_view(game)) & every_card <= public
        for viewer in range(seats):
            view = player_view(game, viewer)
            hand = game.hand
            assert view.hand == hand.hands[viewer]
            allowed = {*hand.hands[viewer], *hand.passed[viewer], *hand.received[viewer]}
            assert card_strings(view) & every_card <= allowed | public, "a hidden card leaked"
            for event in events:
                seen = ev.redact(event, viewer)
                if event.seat != viewer and isinstance(seen, ev.CardChosen | ev.CardReceived):
                    assert seen.card is None


def replayed_hand(record: dict[str, Any]) -> tuple[HandState, list[dict[str, Any]]]:
    """Replay a record action by action through the public API; the hand it ends with."""
    checked = read_record(json.dumps(record))
    lines = list(trace(checked))
    game = checked.start()
    for seat, action, at in checked.actions:
        game, _ = apply(game, seat, action, at / 1_000_000)
    return (game.past[0] if game.past else game.hand), lines


@settings(max_examples=25, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_records_replay_exactly(table: tuple[CuartetosRules, int, int], rnd: Any) -> None:
    rules, seats, seed = table
    game = play_out(new_game(rules, seats, seed, at=1_700_000_000.123456), rnd, 400)
    for index in [*range(len(game.past)), None]:
        hand = game.hand if index is None else game.past[index]
        record = hand_record(game, index)
        again, lines = replayed_hand(json.loads(json.dumps(record)))
        assert again == hand
        result = lines[-1]["result"]
        assert result["finished"] == bool(hand.end)
        assert result["winner"] == (hand.caller if hand.caller >= 0 else None)
        assert len(lines) == len(record["actions"]) + 1


@given(st.integers(-(2**50), 2**52))
def test_times_round_trip_exactly(micros: int) -> None:
    assert micros_of(iso(micros)) == micros
