"""The side-by-side runner's reading of two benchmark documents."""

from __future__ import annotations

from bench.side_by_side import flat, table


def test_every_number_is_kept_by_its_path_and_nothing_else() -> None:
    document = {"counts": {"group": {"taps": 376, "per_move": 4.5, "ok": True}}, "note": "x"}
    assert flat(document) == {"counts/group/taps": 376.0, "counts/group/per_move": 4.5}


def test_the_table_shows_shared_figures_with_their_ratio() -> None:
    lines = table({"a/rtt": 40.0, "a/only_before": 1.0, "z": 0.0}, {"a/rtt": 10.0, "z": 3.0})
    assert len(lines) == 3  # a heading and the two shared figures
    assert lines[1].split() == ["a/rtt", "40", "10", "0.25"]
    assert lines[2].split() == ["z", "0", "3"]  # no ratio to a zero
