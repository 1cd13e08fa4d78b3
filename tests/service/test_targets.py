"""Sync targets: the text forms queued jobs and Redis marks carry never change, and
each parses back to what named it."""

from __future__ import annotations

import pytest

from service.table import targets
from service.table.targets import Target

FORMS = {
    "table": Target("table"),
    "table:new": Target("table", new=True),
    "nudge": Target("nudge"),
    "news": Target("news"),
    "news:42": Target("news", 42),
    "hand:42": Target("hand", 42),
    "hand:42:new": Target("hand", 42, new=True),
    "said:42:timeout:pass:7S": Target("said", 42, why="timeout", action="pass:7S"),
    "said:42:only:play:10H": Target("said", 42, why="only", action="play:10H"),
}


@pytest.mark.parametrize(("text", "target"), FORMS.items())
def test_every_form_round_trips(text: str, target: Target) -> None:
    assert Target.parse(text) == target and str(target) == text


def test_the_helpers_write_the_same_forms() -> None:
    assert targets.hand(42) == "hand:42" and targets.hand(42, new=True) == "hand:42:new"
    assert targets.news(42) == "news:42" and targets.NEWS == "news"
    assert targets.said(42, "only", "play:10H") == "said:42:only:play:10H"
    assert Target.parse("hand:42:new").base == Target("hand", 42)
    assert Target.parse("said:42:only:play:10H").one_off and not Target("hand", 42).one_off


@pytest.mark.parametrize("text", ["", "hands:1", "hand:x", "said:1", "table:old"])
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Target.parse(text)
