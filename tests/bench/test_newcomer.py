"""bench/newcomer.py counts what a newcomer reads before their first own card: one
round of both casts, each person's count read as they were shown it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import newcomer
from service.i18n import Translator
from service.platforms.whatsapp.manual import GREETING


def test_one_round_counts_each_newcomers_messages_to_their_first_card() -> None:
    whatsapp, telegram = newcomer.one_round()
    assert [r["who"] for r in whatsapp] == list(newcomer.WHATSAPP)
    assert [r["who"] for r in telegram] == list(newcomer.TELEGRAM)
    for reading in whatsapp:  # our greeting, then their turn: the first with a card
        assert reading["messages"] == 2 == len(reading["first_lines"])
        assert reading["first_lines"][0].startswith("🫏")
        assert reading["titled"] == reading["first_lines"][1].startswith("🫏")
    english = Translator("en").gettext(GREETING).split(":")[0]
    carla = next(r for r in telegram if r["who"] == "Carla")  # the cast's English speaker
    assert carla["first_lines"][0].startswith(english)
    for reading in telegram:  # the greeting, what was played for them, their hand
        told = reading["messages"] - 2
        assert told >= 0 and reading["steps"] == 2
        assert reading["chars"] >= sum(map(len, reading["first_lines"]))


def test_the_figures_are_printed_and_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reading = {"messages": 2, "chars": 900, "played_for_them": 1, "drawn_for_them": 0}
    reading |= {"titled": True}
    figures = newcomer.summary([reading | {"who": "Abuela"}, reading | {"messages": 4}])
    out = tmp_path / "out.json"
    newcomer.main(["--rounds", "1", "--json", str(out)], run=lambda _: {"whatsapp": figures})
    printed = capsys.readouterr().out
    assert "messages: median 3.0 (min 2, max 4)" in printed
    assert "without the table's title: 0" in printed
    assert json.loads(out.read_text())["whatsapp"]["messages"]["max"] == 4
