"""Flood limits (with a fake clock) and the checks made on what a bot sends."""

from __future__ import annotations

from typing import Any

import pytest

from emulator.telegram import validation
from emulator.telegram.errors import ApiError
from emulator.telegram.limits import FloodControl, FloodLimits


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def refusal(fn: Any, *args: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        fn(*args)
    return caught.value


def test_one_message_a_second_per_chat_after_a_short_burst() -> None:
    clock = Clock()
    flood = FloodControl(FloodLimits(), clock)
    for _ in range(3):
        flood.take(1, 100, is_group=False)
    error = refusal(flood.take, 1, 100, False)
    assert error.error_code == 429 and error.retry_after == 1
    assert error.to_json()["parameters"] == {"retry_after": 1}
    assert error.description == "Too Many Requests: retry after 1"
    flood.take(1, 200, is_group=False)  # another chat is not held up
    clock.now += 1.0
    flood.take(1, 100, is_group=False)


def test_twenty_a_minute_in_a_group() -> None:
    clock = Clock()
    flood = FloodControl(FloodLimits(), clock)
    for _ in range(20):
        flood.take(1, -5, is_group=True)
        clock.now += 1.0  # one a second: the per-chat limit never bites
    error = refusal(flood.take, 1, -5, True)
    assert error.retry_after == 40  # the first of the 20 leaves the minute at t=60
    clock.now += 39.5
    refusal(flood.take, 1, -5, True)
    clock.now += 0.5
    flood.take(1, -5, is_group=True)


def test_thirty_a_second_per_bot_across_chats() -> None:
    clock = Clock()
    flood = FloodControl(FloodLimits(), clock)
    for chat in range(30):
        flood.take(7, chat, is_group=False)
    assert refusal(flood.take, 7, 999, False).error_code == 429
    flood.take(8, 999, is_group=False)  # another bot has its own budget


def test_limits_switched_off() -> None:
    flood = FloodControl(FloodLimits(enabled=False), Clock())
    for _ in range(1000):
        flood.take(1, 1, is_group=True)


def test_callback_data_is_1_to_64_bytes() -> None:
    assert validation.callback_data("x" * 64) == "x" * 64
    assert (
        refusal(validation.callback_data, "x" * 65).description
        == "Bad Request: BUTTON_DATA_INVALID"
    )
    assert (
        refusal(validation.callback_data, "ñ" * 33).description
        == "Bad Request: BUTTON_DATA_INVALID"
    )
    assert refusal(validation.callback_data, "").description == "Bad Request: BUTTON_DATA_INVALID"


def keyboard(rows: int, per_row: int) -> dict[str, Any]:
    return {
        "inline_keyboard": [
            [{"text": f"{r}{c}", "callback_data": f"{r}:{c}"} for c in range(per_row)]
            for r in range(rows)
        ]
    }


def test_keyboard_sizes() -> None:
    validation.inline_keyboard(keyboard(12, 8))
    assert (
        refusal(validation.inline_keyboard, keyboard(1, 9)).description
        == "Bad Request: BUTTONS_TOO_WIDE"
    )
    assert (
        "reply markup is too long"
        in refusal(validation.inline_keyboard, keyboard(13, 8)).description
    )


def test_buttons_need_exactly_one_action() -> None:
    bare = {"inline_keyboard": [[{"text": "hi"}]]}
    assert "Text buttons are unallowed" in refusal(validation.inline_keyboard, bare).description
    url = {"inline_keyboard": [[{"text": "go", "url": "not a url"}]]}
    assert refusal(validation.inline_keyboard, url).description == "Bad Request: BUTTON_URL_INVALID"
    deep = {"inline_keyboard": [[{"text": "go", "url": "https://t.me/burro_bot?start=g1"}]]}
    validation.inline_keyboard(deep)


def test_text_length_counts_utf16_after_parsing() -> None:
    validation.message_text("<b>" + "x" * 4096 + "</b>", "HTML", None)
    error = refusal(validation.message_text, "x" * 4097, None, None)
    assert error.description == "Bad Request: message is too long"
    # 2048 cards are 4096 UTF-16 units; one more is too long.
    validation.message_text("🂡" * 2048, None, None)
    refusal(validation.message_text, "🂡" * 2049, None, None)
    assert refusal(validation.message_text, "  \n ", None, None).description == (
        "Bad Request: message text is empty"
    )


def article(result_id: str) -> dict[str, Any]:
    return {
        "type": "article",
        "id": result_id,
        "title": "t",
        "input_message_content": {"message_text": "m"},
    }


def test_inline_results() -> None:
    validation.inline_results([article(str(i)) for i in range(50)])
    many = [article(str(i)) for i in range(51)]
    assert refusal(validation.inline_results, many).description == "Bad Request: RESULTS_TOO_MUCH"
    twice = [article("a"), article("a")]
    assert (
        refusal(validation.inline_results, twice).description == "Bad Request: RESULT_ID_DUPLICATE"
    )
    no_content = [{"type": "article", "id": "x", "title": "t"}]
    assert "input_message_content" in refusal(validation.inline_results, no_content).description
    bad_html = [
        {**article("x"), "input_message_content": {"message_text": "<b>", "parse_mode": "HTML"}}
    ]
    assert "can't parse entities" in refusal(validation.inline_results, bad_html).description
