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
    for reading in whatsapp:  # our greeting, then their turn: the first with a card (a
        # whole first hand played for them puts its end between, a few in a hundred deals)
        assert reading["messages"] >= 2 and len(reading["first_lines"]) == reading["messages"]
        assert reading["first_lines"][0].startswith("🫏")
        assert reading["titled"] == reading["first_lines"][-1].startswith("🫏")
    english = Translator("en").gettext(GREETING).split(":")[0]
    carla = next(r for r in telegram if r["who"] == "Carla")  # the cast's English speaker
    assert carla["first_lines"][0].startswith(english)
    for reading in whatsapp + telegram:  # nothing done for them: nothing to tell
        nothing = reading["played_for_them"] == reading["drawn_for_them"] == 0
        assert reading["told_exactly"] or not nothing
    for reading in telegram:  # the greeting, what was played for them, their hand
        told = reading["messages"] - 2
        assert told >= 0 and reading["steps"] == 2
        assert reading["chars"] >= sum(map(len, reading["first_lines"]))


def test_the_figures_are_printed_and_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reading = {"messages": 2, "chars": 900, "played_for_them": 1, "drawn_for_them": 0}
    reading |= {"titled": True, "told_exactly": False}
    figures = newcomer.summary([reading | {"who": "Abuela"}, reading | {"messages": 4}])
    out = tmp_path / "out.json"
    newcomer.main(["--rounds", "1", "--json", str(out)], run=lambda _: {"whatsapp": figures})
    printed = capsys.readouterr().out
    assert "messages: median 3.0 (min 2, max 4)" in printed
    assert "without the table's title: 0" in printed
    assert "told exactly what was done for them: 0" in printed
    assert json.loads(out.read_text())["whatsapp"]["messages"]["max"] == 4


def test_what_was_done_for_a_reader_is_read_in_their_language() -> None:
    tr = Translator("es")
    news, story = newcomer.PLAYED
    text = "\n".join(
        [
            tr.gettext(news, card="6 de copas"),
            tr.ngettext(*newcomer.DREW, 2, cards="As de oros · 7 de bastos"),
            tr.gettext(story, card="7 de bastos"),
            tr.ngettext(*newcomer.DREW_UNNAMED, 1),
            tr.gettext(newcomer.UNNAMED),  # an earlier hand's card: not named, not counted
            "Rocinante 🤖 ha jugado Rey de oros.",
        ]
    )
    told = newcomer.told_for(text, tr)
    assert told.played == ["6 de copas", "7 de bastos"]  # the news line read as news
    assert told.drawn == ["As de oros", "7 de bastos"] and told.drawn_count == 3
