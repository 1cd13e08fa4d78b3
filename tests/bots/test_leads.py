"""The others' leads a search checks its deals against: they hold of the real hands
when the others lead by the tips, and the deals agree with them."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.follow_suit.bots.heuristic import HeuristicBot
from engine.follow_suit.bots.knowledge import Knowledge
from engine.follow_suit.bots.leads import LEAD, LeadCheck, SeatCheck, lead_checks
from engine.follow_suit.bots.sampling import determinize
from engine.follow_suit.game import apply, new_game, to_move
from engine.follow_suit.rules import make_rules
from engine.follow_suit.views import player_view
from tests.bots.tables import MIXES, view_of
from tests.engine.positions import play, position


@pytest.mark.parametrize(("preset", "options"), MIXES)
def test_the_checks_hold_of_the_real_hands(preset: str, options: dict[str, Any]) -> None:
    """A lead check holds of the leader's real hand; a seat's whole past (strict
    drawing) is met by its real hand for some choice of the cards it drew."""
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
                if isinstance(check, SeatCheck):
                    assert check.consistent(hidden, know.known[check.seat])
                    checked += len(check.events)
                else:
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
    assert isinstance(checks[0], SeatCheck) and checks[0].seat == 1
    assert [e[0] for e in checks[0].events] == [LEAD]
    rng = random.Random(1)
    agree = [determinize(know, rng, leads=checks, tries=30) for _ in range(20)]
    assert all(checks[0].consistent(s.hands[1], 0) for s in agree)


def test_a_lead_is_checked_across_the_leaders_draws() -> None:
    """Seat 1 led the 2S, then drew for hearts (kept one card, played the 2H it
    found): its hand now less one of its cards, plus the 2S, must lead the 2S. A
    random deal often breaks that; the agreeing deals never do."""
    sim = position(
        "spanish",
        3,
        {0: "KS 3H 7H", 1: "2S 3S 4S 4D", 2: "5S 4H 5H 6H"},
        stock="7C 2H 6C 5C 5D 7D",
        leader=1,
    )
    play(sim, "1:play:2S", "0:play:KS", "2:play:5S", "0:play:7H", "2:play:4H")
    play(sim, "1:draw", "1:draw", "1:play:2H")
    know = Knowledge(view_of(sim, 0))
    check = lead_checks(know)[0]
    assert isinstance(check, SeatCheck) and check.seat == 1
    assert [e[0] for e in check.events][-1] == LEAD
    assert check.consistent(sim.hands[1], 0)  # 3S 4S 4D and the 7C drawn
    rng = random.Random(1)
    anyhow = [determinize(know, rng).hands[1] for _ in range(50)]
    assert not all(check.consistent(h, 0) for h in anyhow)
    agree = [determinize(know, rng, leads=[check], tries=30).hands[1] for _ in range(50)]
    assert all(check.consistent(h, 0) for h in agree)


def test_leads_are_checked_alone_where_drawing_is_optional() -> None:
    """Portuguese (optional drawing): a draw may come from a hand that could follow,
    so a seat's past is not walked back; its recent leads are checked as before."""
    rules = make_rules("portuguese", {})
    heuristic = HeuristicBot()
    game = new_game(rules, 4, 3)
    kinds: set[type] = set()
    while not game.past and (seat := to_move(game)) is not None:
        view = player_view(game, seat)
        kinds |= {type(c) for c in lead_checks(Knowledge(view))}
        game, _ = apply(game, seat, heuristic.choose(view))
    assert kinds == {LeadCheck}
