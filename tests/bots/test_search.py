"""The strong bot: it finds what a position demands, answers forced moves without
searching, and treats cards that play alike as one."""

from __future__ import annotations

import pytest

from engine.follow_suit.actions import encode
from engine.follow_suit.bots.base import Budget
from engine.follow_suit.bots.knowledge import Knowledge
from engine.follow_suit.bots.search import SearchBot, distinct_actions
from tests.bots.tables import SMALL, view_of
from tests.engine.positions import play, position


def test_leads_the_suit_the_last_opponent_lacks() -> None:
    """Two seats, stock gone; the other player holds only the 3S. Leading the KS lets
    them out and leaves us the burro; the 2C makes them pass, and the KS then takes us
    both out together (no burro)."""
    sim = position("spanish", 2, {0: "KS 2C", 1: "3S"}, leader=0)
    bot = SearchBot(1, Budget(rollouts=40, seconds=None))
    assert bot.choose(view_of(sim)) == "play:2C"


def test_makes_the_other_pick_up_in_cangkul() -> None:
    """Cangkul, stock gone: leading the 9H makes the other pass and pick it up while
    we keep the lead and go out next; leading the spade lets them out first."""
    sim = position("cangkul", 2, {0: "9H 4S", 1: "5S"}, leader=0)
    bot = SearchBot(2, Budget(rollouts=40, seconds=None))
    assert bot.choose(view_of(sim)) == "play:9H"


def test_forced_moves_are_answered_without_search(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_search(*_: object) -> list[float]:
        raise AssertionError("searched a forced move")

    monkeypatch.setattr(SearchBot, "evaluate", no_search)
    sim = position("spanish", 2, {0: "KH 2S", 1: "3C"}, stock="5H 7C", leader=0)
    play(sim, "0:play:KH")
    assert SearchBot(1, SMALL).choose(view_of(sim)) == "draw"
    play(sim, "1:draw")
    assert SearchBot(1, SMALL).choose(view_of(sim)) == "play:5H"


def test_cards_that_play_alike_are_searched_once() -> None:
    """3S and 4S with no spade between them still out are one choice; the 6S (the 5S
    is out there) is another."""
    sim = position("spanish", 2, {0: "3S 4S 6S KC", 1: "5S 2C"}, stock="7C", leader=0)
    know = Knowledge(view_of(sim))
    codec = know.codec
    actions = [encode(a, codec) for a in ("play:3S", "play:4S", "play:6S", "play:KC")]
    kept = [codec.code_of[a] for a in distinct_actions(know, actions)]
    assert kept == ["3S", "6S", "KC"]


def test_a_clock_cap_stops_a_huge_budget() -> None:
    sim = position("spanish", 4, {0: "3S 4S 6S KC", 1: "5S 2C", 2: "2H", 3: "3H"}, leader=0)
    bot = SearchBot(1, Budget(rollouts=10**9, seconds=0.01))
    view = view_of(sim)
    assert bot.choose(view) in view.legal


def test_cards_either_side_of_a_card_on_the_table_differ() -> None:
    """The 5H and the 7H around the 6H just played: one wins the trick, one does not."""
    sim = position("spanish", 2, {0: "6H 2S", 1: "5H 7H KC"}, stock="7C", leader=0)
    play(sim, "0:play:6H")
    know = Knowledge(view_of(sim))
    codec = know.codec
    actions = [encode(a, codec) for a in ("play:5H", "play:7H")]
    assert distinct_actions(know, actions) == actions


def test_the_tents_halves_are_not_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Void in the led suit with both halves standing: the taller half, no search (the
    halves hold unseen cards alike)."""

    def no_search(*_: object) -> list[float]:
        raise AssertionError("searched the tent's halves")

    monkeypatch.setattr(SearchBot, "evaluate", no_search)
    sim = position("burro_em_pe", 2, {0: "KH 2S", 1: "3C 4C"}, stock="5H 7C 6C", leader=0)
    play(sim, "0:play:KH")
    view = view_of(sim)
    assert {"draw:left", "draw:right"} <= set(view.legal)
    taller = "draw:left" if view.piles[0] >= view.piles[1] else "draw:right"
    assert SearchBot(1, SMALL).choose(view) == taller
