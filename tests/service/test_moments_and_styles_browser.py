"""The web chat draws a button's style as Telegram's apps colour it: green, blue, red;
a button without one keeps the chat's own look."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from cli.stack import TOKEN
from emulator.server import RunningEmulator
from tests.emulator.conftest import BotApiClient
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, open_chat

pytestmark = NEEDS_CHROMIUM

if CHROMIUM.exists():
    from playwright.sync_api import Page, expect

    from tests.emulator.test_web import browser, page  # noqa: F401  (fixtures)

FAMILY = -1001000000001
COLOURS = {
    "success": "rgb(49, 162, 76)",
    "primary": "rgb(51, 144, 236)",
    "danger": "rgb(229, 57, 53)",
}


@pytest.fixture
def api(emu: RunningEmulator) -> Iterator[BotApiClient]:
    client = BotApiClient(emu.url, TOKEN)
    client.ok("getMe")
    yield client
    client.close()


def test_styled_buttons_are_coloured(page: Page, emu: RunningEmulator, api: BotApiClient) -> None:
    row = [
        {"text": "7♥", "callback_data": "a", "style": "success"},
        {"text": "¡Burro!", "callback_data": "b", "style": "primary"},
        {"text": "🂠 Draw", "callback_data": "c", "style": "danger"},
        {"text": "📜 Story", "callback_data": "d"},
    ]
    api.ok("sendMessage", chat_id=FAMILY, text="Your hand", reply_markup={"inline_keyboard": [row]})
    open_chat(page, emu, "Ana", "Family")
    message = page.locator(".msg", has_text="Your hand")
    for button, (style, colour) in zip(row, COLOURS.items(), strict=False):
        drawn = message.locator(".kb-btn", has_text=button["text"])
        expect(drawn).to_have_class(re.compile(rf"\bkb-{style}\b"))
        expect(drawn).to_have_css("background-color", colour)
    plain = message.locator(".kb-btn", has_text="📜 Story")
    expect(plain).to_have_class("kb-btn")
