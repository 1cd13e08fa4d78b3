"""A short chaos soak (bench/chaos.py): a dozen games of every kind played while serve
and workers are SIGKILLed, Redis restarts and updates arrive twice, out of order, at
once, stale or forged; then nothing may be lost, doubled or leaked. Four of them have
WhatsApp people under the local WhatsApp's doubled, batched and reordered deliveries:
two one-to-one (cuartetos set up in its lobby, then played again once over; spanish
dealt at once by a greeting) and two group tables joined by code.

A SIGKILLed worker that held RQ's scheduler lock stops every timer and delayed job until
another worker takes the lock over (about 10 s, BENCHMARKS.md), and the monkey may kill
again just before the end. So here a game still waiting on the scheduler at the end is
counted, and what it did so far is checked; the full soak (`python bench/chaos.py
--games 300`) requires every game to end. A sync lost with a killed worker is sent again
by the sweeper once it has waited its grace (3 s here) after the scheduler is back, so
the outbox is given up to 30 s to catch up at the end (it ends as soon as it has).

On a quiet machine every game ends in about half a minute and the soak stops then; the
two minutes it may take are for a machine the rest of the suite keeps busy, where the
games go at half the pace or less: a game cut off by the cap would fail the counts."""

from __future__ import annotations

from pathlib import Path

from bench.chaos import soak


def test_short_chaos_soak_loses_nothing(tmp_path: Path) -> None:
    books = soak(
        games=12, seed=7, minutes=2.0, kill_redis=False, full=0.0, folder=tmp_path,
        group_naps=False, settle=30.0, liveness=False, bot_delay=0.0,
    )  # fmt: skip
    counts = books.counts
    assert books.violations == [], "\n".join(books.violations[:20])
    ended = counts["games_finished"] + counts["games_stopped"]
    wa_ended = counts["wa_games_finished"] + counts["wa_games_unfinished_waiting"]
    assert wa_ended == counts["wa_games"] == 2  # a WhatsApp person's one-to-one games
    assert ended + counts["games_unfinished_waiting"] + wa_ended == counts["games"] == 12
    assert counts["games_finished"] >= 6
    assert counts["player_moves_applied"] > 20 and counts["bot_moves"] > 0
    assert counts["killed_serve"] and counts["killed_serve2"] and counts["killed_worker"] >= 2
    assert counts["redis_restarts"] >= 1
    assert counts["redelivered"] > 0 and counts["forged_presses"] > 0
    # the chats changed under their games: an upgrade, a closed topic, a removed bot
    assert counts["groups_migrated"] and counts["topics_closed"] and counts["bots_removed"]
    # WhatsApp people: one-to-one (cuartetos, spanish) and at group tables by code, under
    # doubled, batched and reordered deliveries, stale and double taps, typed moves, forgeries
    # (how many taps depends on which tables the chaos stops: a removed bot ends one)
    assert counts["wa_group_games"] == 2 and counts["wa_taps"] > 0
    assert counts["wa_duplicates_delivered"] and counts["wa_batched_posts"]
    assert counts["wa_stale_taps"] and counts["wa_forged_posts"]
    # the greeting's game against three bots; a game played again has books of its own
    assert counts["wa_greetings"] >= 1
    again = counts["wa_rematches_finished"] + counts["wa_rematches_unfinished_waiting"]
    assert again == counts["wa_rematches"] <= 1
