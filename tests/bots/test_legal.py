"""Bots only ever return legal actions, on every preset and option mix."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.follow_suit.bots.arena import play_hand
from engine.follow_suit.bots.registry import LEVELS, make_bot
from engine.follow_suit.game import apply, new_game, to_move
from engine.follow_suit.rules import make_rules
from engine.follow_suit.views import player_view
from tests.bots.tables import MIXES, SMALL, seat_range


@st.composite
def tables(draw: st.DrawFn) -> tuple[str, dict[str, object], int, list[str], int]:
    preset, options = draw(st.sampled_from(MIXES))
    low, high = seat_range(make_rules(preset, options))
    seats = draw(st.integers(low, min(high, 5)))
    levels = draw(st.lists(st.sampled_from(LEVELS), min_size=seats, max_size=seats))
    return preset, options, seats, levels, draw(st.integers(0, 2**40))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_bots_play_whole_hands_with_legal_actions(
    table: tuple[str, dict[str, object], int, list[str], int],
) -> None:
    preset, options, seats, levels, seed = table
    rules = make_rules(preset, options)
    players = [make_bot(level, seed + s, SMALL) for s, level in enumerate(levels)]
    times: list[list[float]] = [[] for _ in range(seats)]
    # play_hand asks each bot through its view and raises if an action is not legal.
    play_hand(rules, seats, seed, seed % seats, players, times)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(MIXES), st.integers(0, 2**40))
def test_every_level_answers_every_decision_legally(
    mix: tuple[str, dict[str, object]], seed: int
) -> None:
    """Walk one hand with random moves and ask every level at every decision point."""
    preset, options = mix
    rules = make_rules(preset, options)
    seats = seat_range(rules)[0] + 1
    bots = [make_bot(level, seed, SMALL) for level in LEVELS]
    game = new_game(rules, seats, seed)
    walker = make_bot("random", seed)
    while not game.past and (seat := to_move(game)) is not None:
        view = player_view(game, seat)
        for bot in bots:
            assert bot.choose(view) in view.legal
        game, _ = apply(game, seat, walker.choose(view))
