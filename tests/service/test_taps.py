"""The webhook's fast path takes a move's press, and leaves every other update to PTB."""

from __future__ import annotations

from typing import Any

from service.platforms.telegram import callbacks
from service.platforms.telegram.taps import tap_of
from service.ui.intents import Move
from tests.service.inproc import press

ANA: dict[str, Any] = {"id": 100001, "is_bot": False, "first_name": " Ana ", "language_code": "es"}
CARD = callbacks.encode("abcd1234", 7, "p10H")


def test_a_card_press_is_a_tap() -> None:
    tap = tap_of(press(ANA, CARD, chat=-100, update_id=55))
    assert tap is not None
    assert (tap.update_id, tap.user_id, tap.name, tap.language, tap.chat_id) == (
        55, 100001, "Ana", "es", -100,
    )  # fmt: skip
    assert tap.press.room == "abcd1234" and tap.press.version == 7
    assert isinstance(tap.press.what, Move)


def test_other_buttons_go_through_ptb() -> None:
    for data in ("abcd1234.7.J", "abcd1234.7.o:seats", "abcd1234.7.i3:p10H", "lang:es", "x"):
        assert tap_of(press(ANA, data)) is None, data


def test_odd_fields_go_through_ptb() -> None:
    def odd(change: Any) -> dict[str, Any]:
        update = press(dict(ANA), CARD)  # the user's dict itself changed, not ANA
        change(update)
        return update

    cases = [
        lambda u: u.update({"message": {"text": "hi"}}),  # two kinds of update in one
        lambda u: u["callback_query"].pop("chat_instance"),
        lambda u: u["callback_query"].update(id=5),
        lambda u: u["callback_query"]["from"].update(id=True),
        lambda u: u["callback_query"]["from"].update(first_name=None),
        lambda u: u["callback_query"]["from"].pop("is_bot"),
        lambda u: u["callback_query"]["from"].update(language_code=["es"]),
        lambda u: u["callback_query"]["message"].update(chat="nope"),
        lambda u: u["callback_query"]["message"]["chat"].pop("type"),
        lambda u: u["callback_query"]["message"].pop("date"),
        lambda u: u["callback_query"].update(message=[]),
    ]
    for case in cases:
        assert tap_of(odd(case)) is None


def test_the_name_is_as_display_name_gives_it() -> None:
    blank = {**ANA, "first_name": "", "username": "ana_g"}
    tap = tap_of(press(blank, CARD))
    assert tap is not None and tap.name == "ana_g"
    long = {**ANA, "first_name": "x" * 40}
    tap = tap_of(press(long, CARD))
    assert tap is not None and tap.name == "x" * 32
