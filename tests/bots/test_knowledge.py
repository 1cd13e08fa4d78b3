"""What a seat infers from its view: tricks, voids, habits and the unseen cards are
always true of the real hidden hands."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.follow_suit.bots.heuristic import HeuristicBot
from engine.follow_suit.bots.knowledge import Knowledge, mask_of
from engine.follow_suit.bots.registry import make_bot
from engine.follow_suit.bots.sampling import determinize
from engine.follow_suit.game import apply, new_game, to_move
from engine.follow_suit.rules import make_rules
from engine.follow_suit.views import player_view
from engine.kernel.cards import SUIT_MASKS, SUITS
from tests.bots.tables import MIXES, view_of
from tests.engine.positions import play, position


def test_a_seat_seen_drawing_is_void_in_the_led_suit() -> None:
    sim = position(
        "spanish", 3, {0: "KH 7H 4S", 1: "3H KS", 2: "5C 6D"}, stock="6C 2H QH 5S", leader=0
    )
    play(sim, "0:play:KH", "2:draw", "2:draw", "2:play:2H", "1:play:3H")
    know = Knowledge(view_of(sim))
    hearts = SUITS.index("H")
    assert know.surely_void(2, hearts)  # drew for hearts, and kept only the 6C
    assert not know.surely_void(1, hearts)
    assert know.hidden_counts == [0, 1, 3]
    assert know.unseen.bit_count() == 1 + 3 + 2  # seat 1, seat 2, the stock (QH 5S)


def test_a_seat_that_followed_low_holds_nothing_between() -> None:
    """Seat 2 played the 2H under a KH: it held no heart above the king (none exist) and
    none below the two; seat 1, last, won with the QH over the JH: nothing between."""
    sim = position("spanish", 3, {0: "JH 4S", 1: "QH KS", 2: "2H 5C"}, stock="6C 3H KH", leader=0)
    play(sim, "0:play:JH", "2:play:2H", "1:play:QH")
    know = Knowledge(view_of(sim, 0))
    codec = know.codec
    assert know.unlikely[2] >> codec.index_of["AH"] & 1
    assert not know.unlikely[1] & SUIT_MASKS[SUITS.index("H")] & ~know.gone


@pytest.mark.parametrize(("preset", "options"), MIXES)
def test_inferences_hold_in_real_games(preset: str, options: dict[str, Any]) -> None:
    rules = make_rules(preset, options)
    rng = random.Random(3)
    heuristic = HeuristicBot()
    for seed in range(6):
        seats = 2 + seed % 3
        game = new_game(rules, seats, seed)
        walker = heuristic if seed % 2 else make_bot("random", seed)
        while not game.past and (seat := to_move(game)) is not None:
            view = player_view(game, seat)
            know = Knowledge(view)
            assert know.unseen.bit_count() == sum(know.hidden_counts) + view.stock
            if view.trick:
                assert know.tricks[-1].plays == know.trick
            for other in range(seats):
                hidden = game.hand.hands[other] & ~know.known[other]
                if other != seat:
                    assert not hidden & know.void_cards[other]
                    if walker is heuristic:  # habits are the heuristic's own
                        assert not hidden & know.unlikely[other]
            if len(view.legal) > 1:
                sample = determinize(know, rng)
                assert sample.hands[seat] == game.hand.hands[seat]
                assert [h.bit_count() for h in sample.hands] == list(view.counts)
                for other in range(seats):
                    if other != seat:
                        assert not sample.hands[other] & ~know.known[other] & know.void_cards[other]
            game, _ = apply(game, seat, walker.choose(view))


@pytest.mark.parametrize(("joker_play", "void"), [("only_when_void", True), ("any_time", False)])
def test_a_joker_played_on_a_led_suit_shows_a_void_where_only_the_void_may(
    joker_play: str, void: bool
) -> None:
    options = {"deck": "french52_joker", "joker_play": joker_play}
    sim = position(
        "cangkul", 3, {0: "KH 4S", 1: "JK 5S", 2: "3H 5C"}, stock="6C", leader=0, options=options
    )
    play(sim, "0:play:KH", "1:play:JK")
    know = Knowledge(view_of(sim, 2))
    assert know.surely_void(1, SUITS.index("H")) is void


def test_a_seat_that_led_a_beatable_card_held_nothing_lower() -> None:
    """The tips lead a suit's top card when nobody can beat it, else its lowest. Seat 0
    led the KH, the boss: nothing is known of its lower hearts. Then it led the 2S with
    the KS still out: it held no spade below the two."""
    sim = position(
        "spanish", 3, {0: "KH 2H 2S", 1: "5H 7H QS", 2: "4H 3S KS"}, stock="6C 3H", leader=0
    )
    play(sim, "0:play:KH", "2:play:4H", "1:play:5H", "0:play:2S", "2:play:KS", "1:play:QS")
    know = Knowledge(view_of(sim, 2))
    codec = know.codec
    assert know.unlikely[0] >> codec.index_of["AS"] & 1
    assert not know.unlikely[0] & mask_of(["AH", "2H", "3H"], codec)
