"""The tips bench (bench/tips.py) on a small run: the positions asked for, rates that
are rates, and in cuartetos the bot's card never the tip's move without its rank, nor
its rank without being as good by the tip's rule."""

from __future__ import annotations

import argparse
import random

from bench import tips
from engine.follow_suit.actions import encode
from engine.follow_suit.bots.knowledge import Knowledge
from engine.follow_suit.bots.search import distinct_actions, representative


def test_a_small_run_counts_what_it_asked() -> None:
    args = argparse.Namespace(
        positions=8, seed=3, seats=4, rollouts=8, presets="burro_em_pe,cuartetos"
    )
    report = tips.run(args)
    assert set(report) == {"burro_em_pe", "cuartetos"}
    tent = report["burro_em_pe"]
    assert tent["all"]["positions"] == 8
    assert sum(tent[kind]["positions"] for kind in tips.KINDS if kind in tent) == 8
    for found in report.values():
        for key, rate in found.items():
            if key != "strong_ms":
                low, high = rate["ci"]
                assert 0 <= low <= rate["rate"] <= high <= 1
    passing = report["cuartetos"]
    assert passing["all"]["agree"] <= passing["rank"]["agree"] <= passing["rule"]["agree"]
    assert "| burro_em_pe | 8 |" in tips.table(report)


def test_cards_that_play_alike_are_one_move() -> None:
    """A run of a suit with nothing between still in play is one move, either card."""
    view = next(v for v in tips.follow_positions("spanish", 4, random.Random(1)) if v.led is None)
    know = Knowledge(view)
    cards = sorted(view.legal, key=lambda a: encode(a, know.codec))
    moves = distinct_actions(know, [encode(a, know.codec) for a in cards])
    pairs = [(a, b) for a in cards for b in cards if a != b]
    assert any(not tips.alike(view, a, b) for a, b in pairs)  # a lead with a choice
    for a, b in pairs:
        one, other = (representative(moves, encode(c, know.codec)) for c in (a, b))
        assert tips.alike(view, a, b) == (one == other)
    assert all(tips.alike(view, card, card) for card in cards)
