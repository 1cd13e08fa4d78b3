"""BotFather's settings from the web chat's group tools, in headless Chromium."""

from __future__ import annotations

from emulator import RunningEmulator
from tests.emulator.conftest import BotApiClient
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, browser, open_chat, page  # noqa: F401  (fixtures)
from tests.emulator.test_web_groups import group_tool

pytestmark = NEEDS_CHROMIUM

if CHROMIUM.exists():
    from playwright.sync_api import Page, expect


def test_botfather_settings_from_the_group_tools(page: Page, emu: RunningEmulator) -> None:  # noqa: F811
    BotApiClient(emu.url).ok("getMe")  # the bot exists from its first call
    open_chat(page, emu, "Ana", "Family")
    group_tool(page, "inline mode off → on")
    expect(page.locator("#toast")).to_contain_text("Inline mode changed")
    group_tool(page, "inline feedback 0% → 100%")
    expect(page.locator("#toast")).to_contain_text("Inline feedback changed")
    group_tool(page, "privacy mode on → off")
    expect(page.locator("#toast")).to_contain_text("Privacy mode changed")
    assert emu.bot_settings() == {
        "privacy_mode": False,
        "inline_mode": True,
        "inline_placeholder": "",
        "inline_feedback": 100,
    }
    page.locator("#group-button").click()
    expect(page.locator("#group-menu button", has_text="inline mode on → off")).to_be_visible()
