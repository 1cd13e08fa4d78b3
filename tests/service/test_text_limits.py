"""Texts cut as Telegram counts them (issue #30): in UTF-16 code units, never in the
middle of a surrogate pair nor (best effort) of a grapheme cluster."""

from __future__ import annotations

from service.desk.asks import Reply
from service.i18n import Translator, _
from service.platforms.telegram.answer import POPUP, Exchange, Pressed
from service.platforms.telegram.render import MAX_TEXT, message_params
from service.ui.screens import Screen
from service.ui.text_limits import cut_utf16, utf16_len

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # 11 units
CARD = "🃏"  # outside the BMP: two units, one code point


def test_units_are_counted_as_utf16() -> None:
    assert utf16_len("Ana") == 3
    assert utf16_len(CARD) == 2
    assert utf16_len(FAMILY) == 11
    assert utf16_len("\ud83c") == 1  # a lone surrogate (a JSON escape) counts one


def test_a_text_that_fits_is_left_whole() -> None:
    assert cut_utf16("Ana", 3) == "Ana"
    assert cut_utf16(CARD * 100, 200) == CARD * 100


def test_a_cut_never_splits_a_surrogate_pair() -> None:
    text = CARD * 150  # 150 code points, 300 units
    cut = cut_utf16(text, 200)
    assert cut == CARD * 99 + "…" and utf16_len(cut) == 199
    cut.encode("utf-8")  # whole characters: it encodes


def test_a_cut_keeps_a_family_whole_or_leaves_it_out() -> None:
    assert cut_utf16("ab" + FAMILY, 12) == "ab…"
    assert cut_utf16("ab" + FAMILY + "cd", 14) == "ab" + FAMILY + "…"
    assert cut_utf16("🇪🇸🇵🇹", 6) == "🇪🇸…"  # not a half flag


def test_a_message_text_is_cut_at_4096_units() -> None:
    text = "🂡 " * 2000  # 2000 cards and spaces: 4000 code points, 6000 units
    sent = message_params(Screen(text))["text"]
    assert utf16_len(sent) <= MAX_TEXT and sent.endswith("…")
    assert utf16_len(sent) > MAX_TEXT - 4  # cut at the limit, not far before it
    assert message_params(Screen("Ana"))["text"] == "Ana"


def test_a_callback_answer_is_cut_at_200_units() -> None:
    welcome = Translator("en").gettext(_("Welcome to the table, {name}!"), name=FAMILY * 30)
    exchange = Exchange(None)
    exchange.answer_press(Pressed("q"), Reply(popup=welcome))
    text = exchange.answer["text"]
    assert "show_alert" not in exchange.answer
    assert utf16_len(text) <= POPUP and text.endswith(FAMILY + "…")
