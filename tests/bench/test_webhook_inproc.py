"""The in-process webhook benchmark: its reading of answers and runs, and one small run
of this tree against itself (every tap answered 200 with answerCallbackQuery)."""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.webhook_inproc import kind, parent, summary, where

ROOT = Path(__file__).resolve().parents[2]


def test_an_answer_is_counted_by_the_method_it_carries() -> None:
    assert kind(b'{"method":"answerCallbackQuery","callback_query_id":"7"}') == (
        "answerCallbackQuery"
    )
    assert kind(b'{"method": "answerCallbackQuery", "text": "Not your turn"}') == (
        "answerCallbackQuery with a popup"
    )
    assert kind(b"duplicate") == "duplicate"


def test_a_tree_s_runs_are_summed_up_by_their_medians() -> None:
    runs = [
        {"cpu_ms_per_update": c, "wall_ms_per_update": 2 * c, "gc_ms_per_update": 0.0}
        | {"collections": [c], "max_rss_mb": 80, "source": "x", "answers": {"200": 1}}
        for c in (0.3, 0.5, 0.4)
    ]
    found = summary(runs)
    assert (found["cpu_ms_per_update"], found["wall_ms_per_update"]) == (0.4, 0.8)
    assert found["cpu_runs"] == [0.3, 0.5, 0.4] and found["collections"] == [0.4]


def test_a_profiled_function_is_named_alike_in_either_tree() -> None:
    trees = [Path("/tmp/a"), Path("/tmp/b")]
    assert where("/tmp/b/service/desk/desk.py", trees) == "service/desk/desk.py"
    assert where("/x/.venv/lib/python3.11/site-packages/redis/client.py", trees) == (
        "redis/client.py"
    )


def test_this_tree_against_itself_answers_every_tap() -> None:
    args = argparse.Namespace(
        baseline_tree=ROOT, ours_tree=None, games=30, runs=1, concurrency=4,
        profile=None, stub_redis=False, instructions=False,
    )  # fmt: skip
    report = parent(args)
    for name in ("ours", "base"):
        assert report[name]["answers"] == {"200 answerCallbackQuery": 30}, report[name]
        assert report[name]["source"] == str(ROOT)
        assert report[name]["cpu_ms_per_update"] > 0
