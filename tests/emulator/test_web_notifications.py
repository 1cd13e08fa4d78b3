"""The web chat's unread badges say whether a phone would have rung: 🔔 when an unread
message notified the user, a grey count when they were all silent."""

from __future__ import annotations

from emulator import RunningEmulator
from tests.emulator.conftest import BotApiClient
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, open_chat

pytestmark = NEEDS_CHROMIUM

if CHROMIUM.exists():
    from playwright.sync_api import Page, expect

    from tests.emulator.test_web import browser, page  # noqa: F401  (fixtures)

ANA = 100001


def test_a_chat_badge_rings_only_for_a_notifying_message(
    page: Page, emu: RunningEmulator, api: BotApiClient
) -> None:
    emu.start("Ana")
    open_chat(page, emu, "Ana", "Family")
    bot_chat = page.locator('.chat-item[data-chat="bot"]')
    api.ok("sendMessage", chat_id=ANA, text="quiet", disable_notification=True)
    expect(bot_chat.locator(".badge")).to_have_text("1")
    expect(bot_chat.locator(".badge")).to_have_class("badge muted")
    api.ok("sendMessage", chat_id=ANA, text="Your turn!")
    expect(bot_chat.locator(".badge")).to_have_text("🔔 2")
    expect(bot_chat.locator(".badge")).to_have_class("badge rung")
    bot_chat.click()
    expect(bot_chat.locator(".badge")).to_have_count(0)
    expect(page.locator(".msg", has_text="Your turn!").locator(".info")).to_contain_text("🔔")
    expect(page.locator(".msg", has_text="quiet").locator(".info")).not_to_contain_text("🔔")
