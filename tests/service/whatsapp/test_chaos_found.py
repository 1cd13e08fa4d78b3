"""Product bugs the chaos soak (bench/chaos.py) found with WhatsApp players: each a
minimal failing test, marked xfail(strict) until the product is fixed."""

from __future__ import annotations

import pytest

from service.i18n import Translator
from service.platforms.whatsapp import render
from service.ui.intents import Move, Press
from service.ui.screens import Button, Screen

ROOM = "k3j9x0qa"


def utf16(text: str) -> int:
    """A length as Meta counts it: UTF-16 code units (an emoji past the BMP is 2)."""
    return len(text.encode("utf-16-le")) // 2


def titles_of(content: dict[str, object]) -> list[str]:
    interactive = content["interactive"]
    assert isinstance(interactive, dict)
    action = interactive["action"]
    if "buttons" in action:
        return [b["reply"]["title"] for b in action["buttons"]]
    return [row["title"] for section in action["sections"] for row in section["rows"]]


@pytest.mark.xfail(
    strict=True,
    reason=(
        "render.short/unique cut titles by code points, Meta counts UTF-16 code units: "
        "the Indonesian cuartetos fake-call row '🎭 Teriakan palsu: ¡BARRO!' is cut to "
        "24 code points = 25 units, Meta refuses the prompt (131009) and the person "
        "never gets their turn's message"
    ),
)
def test_a_cuartetos_prompt_in_indonesian_keeps_meta_s_title_limits() -> None:
    tr = Translator("id")
    fake = tr.gettext("🎭 Fake call: {word}", word="¡BARRO!")
    assert fake == "🎭 Teriakan palsu: ¡BARRO!"  # the label the soak's prompt carried
    moves = ["burro", "fake:Barro", "pass:KS", "pass:KH", "pass:KD"]
    labels = ["🫏 ¡Burro!", fake, "Raja pedang", "Raja cawan", "Raja koin"]
    row = tuple(
        Button(label, Press(ROOM, 4, Move(move))) for label, move in zip(labels, moves, strict=True)
    )
    content = render.render(Screen("Pilih kartu untuk dioper.", (row,)), "id")
    too_long = [t for t in titles_of(content) if utf16(t) > render.ROW_TITLE]
    assert too_long == []


@pytest.mark.xfail(
    strict=True,
    reason="render.short counts code points; a reply button's 20 is UTF-16 units at Meta",
)
def test_a_reply_button_with_an_emoji_keeps_meta_s_limit() -> None:
    label = "🎭 " + "x" * 30
    row = (Button(label, Press(ROOM, 4, Move("burro"))),)
    content = render.render(Screen("?", (row,)), "en")
    assert all(utf16(t) <= render.BUTTON_TITLE for t in titles_of(content))
