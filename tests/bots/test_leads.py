"""The others' leads a search checks its deals against: they hold of the real hands
when the others lead by the tips, and the deals agree with them."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.follow_suit.bots.heuristic import HeuristicBot
from engine.follow_suit.bots.knowledge import Knowledge
from engine.follow_suit.bots.leads import lead_checks
from engine.follow_suit.bots.sampling import determinize
from engine.follow_suit.game import apply, new_game, to_move
from engine.follow_suit.rules import make_rules
from engine.follow_suit.views import player_view
from tests.bots.tables import MIXES, view_of
from tests.engine.positions import play, position


@pytest.mark.parametrize(("preset", "options"), MIXES)
def test_the_checks_hold_of_the_real_hands(preset: str, options: dict[str, Any]) -> None:
    rules = make_rules(preset, options)
    heuristic = HeuristicBot()
    rng = random.Random(5)
    checked = 0
    for seed in range(6):
        seats = 2 + seed % 3
        game = new_game(rules, seats, seed)
        while not game.past and (seat := to_move(game)) is not None:
            view = player_view(game, seat)
            know = Knowledge(view)
            checks = lead_checks(know)
            for check in checks:
                hidden = game.hand.hands[check.seat] & ~know.known[check.seat]
                assert check.holds(hidden, know.known[check.seat])
                checked += 1
            if checks and len(view.legal) > 1:
                sample = determinize(know, rng, leads=checks, tries=4)
                assert [h.bit_count() for h in sample.hands] == list(view.counts)
            game, _ = apply(game, seat, heuristic.choose(view))
    picks_up = rules.empty_stock != "pass"
    assert (checked == 0) == picks_up  # no checks only where the passers pick up


def test_a_deal_agrees_with_the_lead_it_can() -> None:
    """Seat 1 led the 2S, its longest suit's lowest card: the deals give it hands
    from which the tips lead the 2S (any deal would not: one with more diamonds
    leads a diamond)."""
    sim = position(
        "spanish",
        3,
        {0: "KS 3H", 1: "2S 3S 4S 4D", 2: "5S 4H 5H 6H"},
        stock="7C 6C 5C 5D 7D",
        leader=1,
    )
    play(sim, "1:play:2S")
    know = Knowledge(view_of(sim, 0))
    checks = lead_checks(know)
    assert [c.seat for c in checks] == [1]
    rng = random.Random(1)
    agree = [determinize(know, rng, leads=checks, tries=30) for _ in range(20)]
    assert all(checks[0].holds(s.hands[1], 0) for s in agree)
