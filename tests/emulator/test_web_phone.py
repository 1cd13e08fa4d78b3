"""The web chat on a phone-width screen (390 px, headless Chromium): Burro's real screens,
a lobby's settings and hands with their buttons, show without sideways scrolling, and
every button label is whole and readable."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from emulator import RunningEmulator
from service.platforms.telegram import menu
from service.platforms.telegram.render import message_params
from service.table import lobby
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from service.ui import games
from tests.emulator.conftest import BotApiClient
from tests.emulator.test_web import ARGS, CHROMIUM, NEEDS_CHROMIUM

pytestmark = NEEDS_CHROMIUM

if CHROMIUM.exists():
    from playwright.sync_api import Page, expect, sync_playwright

WIDTH = 390  # an iPhone 12-15's CSS width
GROUP, ANA = -1001000000001, 100001
FAMILY = (Actor(ANA, "Ana", "es"), Actor(100002, "Ben", "pt_BR"), Actor(100003, "Carla", "en"))


@pytest.fixture
def phone() -> Iterator[Page]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = browser.new_context(
            viewport={"width": WIDTH, "height": 844}, device_scale_factor=3, has_touch=True
        )
        page = context.new_page()
        page.set_default_timeout(5000)
        yield page
        browser.close()


def table(preset: str, lang: str) -> Room:
    """A table of the family in `lang`, with two bots, started."""
    settings = RoomSettings(preset=preset)
    room = lobby.create_room(GROUP, None, FAMILY[0], 0.0, settings=settings)
    room.seats[0].lang = lang
    for actor in FAMILY[1:]:
        lobby.join(room, actor)
    for _ in range(2):
        lobby.add_bot(room, FAMILY[0])
    assert lobby.start(room, FAMILY[0], 0.0).changed
    return room


def screens() -> list[tuple[int, dict[str, Any]]]:
    """(chat, sendMessage parameters) of Burro's widest screens, in long languages."""
    sent = []
    for preset, lang in (("spanish", "es"), ("cuartetos", "pt_PT"), ("cangkul", "id")):
        chosen = RoomSettings(preset=preset)
        opened = lobby.create_room(GROUP, None, FAMILY[0], 0.0, settings=chosen)
        sent.append((GROUP, message_params(games.painter(opened, lang).settings())))
        room = table(preset, lang)
        sent.append((GROUP, message_params(games.painter(room, lang).table())))
        sent.append((ANA, message_params(games.painter(room, lang).hand(0))))
    return sent


def overflow(page: Page) -> dict[str, Any]:
    """How the page fits the screen: its scroll width, and every button that sticks out
    of the screen or whose label is cut, or too small to read."""
    found: dict[str, Any] = page.evaluate(
        """(width) => {
            const bad = [];
            for (const b of document.querySelectorAll('.kb-btn')) {
                const box = b.getBoundingClientRect();
                const size = parseFloat(getComputedStyle(b).fontSize);
                if (box.left < 0 || box.right > width || b.scrollWidth > b.clientWidth + 1
                    || size < 13 || box.height < 28) bad.push(b.textContent);
            }
            return {scroll: document.documentElement.scrollWidth, bad,
                    buttons: document.querySelectorAll('.kb-btn').length};
        }""",
        WIDTH,
    )
    return found


def test_burro_fits_a_phone_screen(phone: Page, emu: RunningEmulator) -> None:
    api = BotApiClient(emu.url)
    api.ok("getMe")
    emu.bot_settings(inline_mode=True)  # as `burro local` sets it: the tables' 🃏 button
    emu.start("Ana")
    for chat, params in screens():
        api.ok("sendMessage", chat_id=chat, **params)
    api.close()
    for name in ("Family", "bot"):
        phone.goto(f"{emu.url}/?user=Ana&chat={name}")
        expect(phone.locator("body")).to_have_attribute("data-ready", "true")
        expect(phone.locator(".kb-btn").first).to_be_visible()
        fit = overflow(phone)
        assert fit["buttons"] >= 3 and fit["bad"] == [], fit
        assert fit["scroll"] <= WIDTH, f"the page scrolls sideways: {fit['scroll']} px"
        expect(phone.locator("#input")).to_be_in_viewport()
        expect(phone.locator("#chats .chat-item", has_text="Family")).to_be_in_viewport()


def test_the_command_menu_is_the_chats_in_the_users_language(
    phone: Page, emu: RunningEmulator
) -> None:
    api = BotApiClient(emu.url)
    for call in menu.menus():  # what `burro serve` sets at start
        api.ok("setMyCommands", **call)
    api.close()
    emu.start("Ana")
    phone.goto(f"{emu.url}/?user=Ana&chat=Family")
    expect(phone.locator("body")).to_have_attribute("data-ready", "true")
    phone.locator("#commands-button").click()
    expect(phone.locator("#commands-menu")).to_contain_text("/burroabrir una mesa aquí")
    expect(phone.locator("#commands-menu")).not_to_contain_text("/play")
    phone.goto(f"{emu.url}/?user=Carla&chat=bot")
    expect(phone.locator("body")).to_have_attribute("data-ready", "true")
    phone.get_by_role("button", name="START").click()
    phone.locator("#commands-button").click()
    expect(phone.locator("#commands-menu")).to_contain_text("/playplay against bots")
    expect(phone.locator("#commands-menu")).not_to_contain_text("/burro")
