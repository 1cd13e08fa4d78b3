"""The easy bot plays like a beginner: the tips' lead without counting voids, and
mistakes at the rates it is given."""

from __future__ import annotations

from engine.follow_suit.bots.easy import EasyBot, Mistakes
from engine.follow_suit.bots.heuristic import HeuristicBot
from engine.follow_suit.hand import HandSim
from tests.bots.tables import view_of
from tests.engine.positions import play, position

CAREFUL = Mistakes(slip=0.0, misread=0.0, hoard=0.0)
CARELESS = Mistakes(slip=0.0, misread=1.0, hoard=1.0)


def seen_drawing_for_hearts() -> HandSim:
    """Seat 2 drew for hearts; our spades are as long as our hearts."""
    sim = position(
        "spanish",
        3,
        {0: "KH 7H 6H 4S 3S", 1: "3H KS 2D", 2: "5C 6D 4D"},
        stock="6C 2H QH 5S 7D",
        leader=0,
    )
    play(sim, "0:play:KH", "2:draw", "2:draw", "2:play:2H", "1:play:3H")
    return sim


def test_does_not_lead_the_suit_a_player_was_seen_lacking() -> None:
    view = view_of(seen_drawing_for_hearts())
    assert HeuristicBot().choose(view) == "play:6H"
    assert EasyBot(1, CAREFUL).choose(view) == "play:3S"


def test_misreads_the_trick_when_it_errs() -> None:
    sim = position("spanish", 2, {0: "KH 2S", 1: "7H 2H"}, stock="7C", leader=0)
    play(sim, "0:play:KH")
    assert EasyBot(1, CAREFUL).choose(view_of(sim)) == "play:2H"  # cannot win: lowest
    assert EasyBot(1, CARELESS).choose(view_of(sim)) == "play:7H"
    sim = position("spanish", 2, {0: "5H 2S", 1: "7H 6H 2H"}, stock="7C", leader=0)
    play(sim, "0:play:5H")
    assert EasyBot(1, CAREFUL).choose(view_of(sim)) == "play:7H"  # its highest, not 6H
    assert EasyBot(1, CARELESS).choose(view_of(sim)) == "play:2H"


def test_slips_at_about_its_rate() -> None:
    """Over many decision points (seeds), a bot that always slips plays cards other
    than its careful choice often, one that never slips never does."""
    view = view_of(seen_drawing_for_hearts())
    careful = {EasyBot(seed, CAREFUL).choose(view) for seed in range(40)}
    sloppy = {EasyBot(seed, Mistakes(slip=1.0)).choose(view) for seed in range(40)}
    assert careful == {"play:3S"}
    assert len(sloppy) > 2 and sloppy <= set(view.legal)
