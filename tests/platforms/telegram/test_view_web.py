"""The web chat opens the table's view from a "🖼 Table" button as Telegram's apps open a
Mini App: from a hand's `web_app` button in a private chat, and from a group's direct
link to the bot's Mini App, each in a window of a phone's width with the launch signed
for the user (headless Chromium; skipped without it)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from emulator import RunningEmulator, running_emulator
from emulator.config import fast_config
from service.platforms.telegram.render import Wire, message_params
from service.platforms.telegram.view_buttons import MiniApp
from service.ui import games
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, browser, page_at  # noqa: F401  (a fixture)
from tests.platforms.telegram.test_view_buttons import ANA, DAN, FAMILY, TOKEN, hand, send, started

pytestmark = NEEDS_CHROMIUM
if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, expect


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    with running_emulator(fast_config(tokens=(TOKEN,))) as running:
        yield running


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:  # noqa: F811
    with page_at(browser, "desktop") as opened:
        yield opened


def open_chat(page: Page, emu: RunningEmulator, user: str, chat: str) -> None:
    page.goto(f"{emu.url}/?user={user}&chat={chat}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")


def opens_the_view(page: Page, label: str, view: str, room: str) -> dict[str, list[str]]:
    """Tap the button; the page it opened, at a phone's width: its query (the table) and
    its launch (the fragment's fields)."""
    with page.expect_popup() as opening:
        page.get_by_role("button", name=label).last.click()
    popup = opening.value
    popup.wait_for_load_state()
    address = urlsplit(popup.url)
    assert f"{address.scheme}://{address.netloc}{address.path}" == view
    assert parse_qs(address.query) == {"tgWebAppStartParam": [room]}
    assert popup.evaluate("window.innerWidth") == 390
    return parse_qs(address.fragment)


def test_a_hands_button_and_a_groups_link_open_the_view_at_a_phones_width(
    emu: RunningEmulator, page: Page
) -> None:
    view = f"{emu.url}/healthz"  # a page of this machine's: no network
    wire = Wire(inline=False, bot_username="burro_bot", mini_app=MiniApp(emu.url, "table"))
    emu.start("Dan")
    room = started(ANA, DAN)
    assert send(emu, DAN.user_id, message_params(hand(room, DAN, "id"), wire))["ok"]
    table = games.painter(room, "en").table()
    emu.set_mini_app(view, name="table")
    assert send(emu, FAMILY, message_params(table, wire))["ok"]

    open_chat(page, emu, "Dan", "bot")
    private = opens_the_view(page, "🖼 Meja", f"{emu.url}/view", room.id)
    assert "tgWebAppData" in private and private["tgWebAppPlatform"] == ["web"]

    open_chat(page, emu, "Ana", "Family")
    group = opens_the_view(page, "🖼 Table", view, room.id)
    fields = parse_qs(group["tgWebAppData"][0])
    assert fields["start_param"] == [room.id] and fields["chat_type"] == ["supergroup"]
