"""A short chaos soak (bench/chaos.py): a dozen games of every kind played to the end
while serve and workers are SIGKILLed, Redis restarts and updates arrive twice, out of
order, at once, stale or forged; then nothing may be lost, doubled or leaked.

The full soak is `python bench/chaos.py --games 300` (BENCHMARKS.md)."""

from __future__ import annotations

from pathlib import Path

from bench.chaos import soak


def test_short_chaos_soak_loses_nothing(tmp_path: Path) -> None:
    books = soak(
        games=12, seed=7, minutes=1.1, kill_redis=False, full=0.0, folder=tmp_path,
        group_naps=False,
    )  # fmt: skip
    counts = books.counts
    assert books.violations == [], "\n".join(books.violations[:20])
    assert counts["games_finished"] == counts["games"] == 12
    assert counts["player_moves_applied"] > 20 and counts["bot_moves"] > 0
    assert counts["killed_serve"] and counts["killed_serve2"] and counts["killed_worker"] >= 2
    assert counts["redis_restarts"] >= 1
    assert counts["redelivered"] > 0 and counts["forged_presses"] > 0
