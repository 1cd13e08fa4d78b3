"""The tips bench (bench/tips.py) on a small run: the positions asked for, rates that
are rates, and in cuartetos the bot's card never the tip's move without its rank, nor
its rank without being as good by the tip's rule."""

from __future__ import annotations

import argparse

from bench import tips


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
