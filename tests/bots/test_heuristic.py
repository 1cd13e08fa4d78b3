"""The heuristic plays the seed texts' tips in positions where each one decides."""

from __future__ import annotations

from engine.follow_suit.bots.heuristic import HeuristicBot
from engine.follow_suit.bots.knowledge import Knowledge
from tests.bots.tables import view_of
from tests.engine.positions import play, position

BOT = HeuristicBot()


def test_leads_its_longest_suit_low_when_it_cannot_keep_the_lead() -> None:
    sim = position(
        "spanish",
        4,
        {0: "6S 5S 3S QC", 1: "KS 2D 3D 4D", 2: "KC 2H 3H 4H", 3: "7S 5D 6D 7D"},
        stock="JS 2C 3C 4C 5C 6C 7C JC QS",
        leader=0,
    )
    assert BOT.choose(view_of(sim)) == "play:3S"


def test_leads_a_card_nobody_can_beat_to_keep_the_lead() -> None:
    sim = position(
        "spanish",
        4,
        {0: "KS 5S 3S QC", 1: "QS 2D 3D 4D", 2: "KC 2H 3H 4H", 3: "7S 5D 6D 7D"},
        stock="JS 2C 3C 4C 5C 6C 7C JC 6S",
        leader=0,
    )
    assert BOT.choose(view_of(sim)) == "play:KS"


def test_leads_the_suit_a_player_was_seen_drawing_for() -> None:
    """Seat 2 drew for hearts: hearts, as long as our spades, are led."""
    sim = position(
        "spanish",
        3,
        {0: "KH 7H 6H 4S 3S", 1: "3H KS 2D", 2: "5C 6D 4D"},
        stock="6C 2H QH 5S 7D",
        leader=0,
    )
    play(sim, "0:play:KH", "2:draw", "2:draw", "2:play:2H", "1:play:3H")
    view = view_of(sim)
    assert Knowledge(view).surely_void(2, 1)
    assert BOT.choose(view) == "play:6H"


def test_follows_high_to_win_and_low_when_it_cannot() -> None:
    hands = {0: "5H 2S", 3: "KH 6H 2H", 2: "3S 4S", 1: "3C 4C"}
    sim = position("spanish", 4, hands, stock="7C 7D", leader=0)
    play(sim, "0:play:5H")
    assert BOT.choose(view_of(sim)) == "play:KH"  # others still to play: the highest
    sim = position("spanish", 2, {0: "5H 2S", 1: "7H 6H 2H"}, stock="7C", leader=0)
    play(sim, "0:play:5H")
    assert BOT.choose(view_of(sim)) == "play:6H"  # last to play: the cheapest winner
    sim = position("spanish", 2, {0: "KH 2S", 1: "7H 2H"}, stock="7C", leader=0)
    play(sim, "0:play:KH")
    assert BOT.choose(view_of(sim)) == "play:2H"  # cannot win: the lowest


def test_optional_drawing_plays_rather_than_draws() -> None:
    sim = position("portuguese", 2, {0: "5H 2S", 1: "7H 3C"}, stock="7C 6C", leader=0)
    play(sim, "0:play:5H")
    view = view_of(sim)
    assert "draw" in view.legal
    assert BOT.choose(view) == "play:7H"


def test_draws_from_the_taller_half_of_the_tent() -> None:
    options = {"topple_chance": 0.0}
    sim = position(
        "burro_em_pe",
        2,
        {0: "5H 2S", 1: "3C 4C"},
        stock="6C 7C 2D 3D",
        leader=0,
        options=options,
    )
    play(sim, "0:play:5H")
    assert BOT.choose(view_of(sim)) == "draw:left"  # a tie: left
    play(sim, "1:draw:left")
    assert view_of(sim).piles == (1, 2)
    assert BOT.choose(view_of(sim)) == "draw:right"


def test_a_void_player_plays_the_joker_rather_than_dig() -> None:
    options = {"deck": "french52_joker"}
    sim = position("cangkul", 2, {0: "KH 3S", 1: "2C JK"}, stock="7D 4H", leader=0, options=options)
    play(sim, "0:play:KH")
    view = view_of(sim)
    assert set(view.legal) == {"play:JK", "draw"}
    assert BOT.choose(view) == "play:JK"
