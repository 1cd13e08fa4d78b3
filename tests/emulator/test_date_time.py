"""`date_time` entities: accepted as Telegram takes them (explicit entities, or HTML's
<tg-time>), and shown in each reader's own time zone in the control API's view."""

from __future__ import annotations

from typing import Any

import pytest

from emulator import RunningEmulator
from emulator.telegram.date_time import relative, render, text_view
from emulator.telegram.driver import EmulatorError
from tests.emulator.conftest import BotApiClient

FAMILY = -1001000000001
EIGHTEEN_UTC = 1796580000  # 2026-12-06 18:00 UTC, a Sunday


def deadline(text: str = "Your turn until 18:00.") -> dict[str, Any]:
    start = text.index("18:00")
    entity = {"type": "date_time", "offset": start, "length": 5}
    return {**entity, "unix_time": EIGHTEEN_UTC, "date_time_format": "t"}


def test_each_reader_sees_the_time_in_their_zone(emu: RunningEmulator, api: BotApiClient) -> None:
    text = "Your turn until 18:00."
    api.ok("sendMessage", chat_id=FAMILY, text=text, entities=[deadline(text)])
    emu.set_time_zone("Ana", "Europe/Madrid")
    emu.set_time_zone("Dan", "Asia/Jakarta")
    views = {
        user: emu.messages_in("Family", user=user)[-1].text_view for user in ("Ana", "Dan", "Ben")
    }
    assert views == {
        "Ana": "Your turn until 19:00.",
        "Dan": "Your turn until 01:00.",
        "Ben": "Your turn until 18:00.",  # UTC until they choose
    }
    assert emu.messages_in("Family")[-1].text == text  # what the bot sent is unchanged


def test_html_tg_time_makes_the_entity(emu: RunningEmulator, api: BotApiClient) -> None:
    html = f'Until <tg-time unix="{EIGHTEEN_UTC}" format="wt">Sunday 18:00</tg-time>.'
    sent = api.ok("sendMessage", chat_id=FAMILY, text=html, parse_mode="HTML")
    assert sent["text"] == "Until Sunday 18:00."
    assert sent["entities"] == [
        {
            "type": "date_time",
            "offset": 6,
            "length": 12,
            "unix_time": EIGHTEEN_UTC,
            "date_time_format": "wt",
        }
    ]
    emu.set_time_zone("Ben", "America/Sao_Paulo")
    assert emu.messages_in("Family", user="Ben")[-1].text_view == "Until Sunday, 15:00."


def test_a_malformed_date_time_is_refused(api: BotApiClient) -> None:
    text = "Your turn until 18:00."
    for wrong in ({"date_time_format": "x"}, {"unix_time": "soon"}, {"date_time_format": "rt"}):
        body = {"chat_id": FAMILY, "text": text, "entities": [{**deadline(text), **wrong}]}
        assert api.error("sendMessage", **body)[1].startswith("Bad Request: can't parse Message")


def test_an_unknown_time_zone_is_refused(emu: RunningEmulator) -> None:
    with pytest.raises(EmulatorError, match="unknown time zone"):
        emu.set_time_zone("Ana", "Mars/Olympus")


def test_the_formats() -> None:
    assert render(EIGHTEEN_UTC, "", "UTC", 0) is None  # the text as written
    assert render(EIGHTEEN_UTC, "wdt", "Europe/Lisbon", 0) == "Sunday, 18:00, 06/12/2026"
    assert render(EIGHTEEN_UTC, "DT", "Asia/Jakarta", 0) == "01:00:00 WIB, 7 December 2026"
    assert relative(EIGHTEEN_UTC, EIGHTEEN_UTC - 3 * 3600) == "in 3 hours"
    assert relative(EIGHTEEN_UTC, EIGHTEEN_UTC + 60) == "1 minute ago"
    view = {"text": "🃏 at 18:00", "entities": [{**deadline("🃏 at 18:00"), "offset": 6}]}
    assert text_view(view, "Europe/Madrid", 0) == "🃏 at 19:00"  # offsets in UTF-16
