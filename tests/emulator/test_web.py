"""The web chat in headless Chromium (Debian's `chromium`, driven by Playwright)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from emulator import RunningEmulator
from tests.emulator.conftest import TOKEN
from tests.emulator.page_parts import button_in_page
from tests.emulator.ptb_bot import BotRecord, running_bot

CHROMIUM = Path(os.environ.get("BURRO_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

VIEWPORTS = {"desktop": (1100, 760), "phone": (390, 844)}  # a page seen as on each

# Every browser test's module: skipped, saying why, where Chromium is missing.
NEEDS_CHROMIUM = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"no Chromium at {CHROMIUM}: install Debian's chromium (apt-get install chromium)",
)

pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning"),
]

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, Route, expect, sync_playwright


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


@contextmanager
def page_at(
    browser: Browser, viewport: str, timeout_ms: float = 30_000, script_errors: bool = False
) -> Iterator[Page]:
    """A fresh page at one of `VIEWPORTS`' sizes; a script error in it fails the test
    (unless `script_errors`: the ephemeral page's offline switch fails a fetch, untold)."""
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(viewport={"width": width, "height": height})
    opened = context.new_page()
    opened.set_default_timeout(timeout_ms)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield opened
    finally:
        context.close()
    assert script_errors or errors == [], f"the page's script failed: {errors}"


@pytest.fixture
def bot(emu: RunningEmulator) -> Iterator[BotRecord]:
    with running_bot(emu.api_url, TOKEN) as record:
        emu.wait_for(lambda: emu.webhook_info()["url"], what="the bot's setWebhook")
        emu.bot_settings(inline_mode=True, inline_feedback=100)  # its "Hand" button needs them
        yield record


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    opened = context.new_page()
    opened.set_default_timeout(5000)
    yield opened
    context.close()


def open_chat(page: Page, emu: RunningEmulator, user: str, chat: str) -> None:
    page.goto(f"{emu.url}/?user={user}&chat={chat}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#status-text")).to_have_text("live")


def test_tap_a_button_and_see_the_edited_message(
    page: Page, emu: RunningEmulator, bot: BotRecord, tmp_path: Path
) -> None:
    open_chat(page, emu, "Ana", "bot")
    page.get_by_role("button", name="START").click()
    hello = page.locator(".msg", has_text="Hello Ana!")
    expect(hello).to_be_visible()
    expect(hello.locator("b")).to_have_text("Ana")  # HTML parse mode rendered
    expect(page.get_by_role("button", name="START")).to_be_hidden()
    expect(page.locator("#input")).to_be_visible()

    hello.get_by_role("button", name="Play 1").click()
    expect(page.locator("#toast")).to_have_text("Played 1")
    last = emu.last_message("Ana")
    assert last is not None
    edited = page.locator(f'[data-message-id="{last.message_id}"]')
    expect(edited.locator(".text")).to_have_text("Played 1")
    expect(edited.locator(".info")).to_contain_text("edited")
    expect(page.locator(".msg")).to_have_count(2)  # replaced in place, not appended

    edited.get_by_role("button", name="Alert").click()
    expect(page.locator("#alert-text")).to_have_text("Careful!")
    page.get_by_role("button", name="OK").click()
    expect(page.locator("#alert-backdrop")).to_be_hidden()
    page.screenshot(path=str(tmp_path / "private-chat.png"))


def test_a_tap_on_a_keyboard_the_page_has_not_redrawn_is_refused(
    page: Page, emu: RunningEmulator, bot: BotRecord
) -> None:
    """A slow page still shows "Play 1" after the bot made it "Play 2": tapping it sends
    play:1, which Telegram refuses (the buttons changed), so the bot is told nothing, and
    the page reads the chat again; before, the page's tap played whatever button now sat
    in that place."""
    emu.start("Dan")
    hello = emu.wait_for_message("Dan", "Hello Dan")
    open_chat(page, emu, "Dan", "bot")
    play = button_in_page(page, hello, "play:1")
    expect(play).to_be_visible()
    page.evaluate("window.onMessage = () => {}")  # edits arrive but are not drawn
    play.click()
    expect(page.locator("#toast")).to_have_text("Played 1")
    emu.wait_for_message("Dan", "Played 1")  # the edit: "Play 2" in that place now
    played = len(emu.updates())
    play.click()
    expect(page.locator("#toast")).to_contain_text("DATA_INVALID")
    assert len(emu.updates()) == played
    last = emu.last_message("Dan")
    assert last is not None and last.text == "Played 1"
    expect(button_in_page(page, last, "play:2")).to_be_visible()  # drawn as it is now


def test_inline_panel_from_switch_inline_button(
    page: Page, emu: RunningEmulator, bot: BotRecord
) -> None:
    emu.start("Ben")
    emu.wait_for_message("Ben", "Hello Ben")
    open_chat(page, emu, "Ben", "bot")
    page.locator(".msg", has_text="Hello Ben").get_by_role("button", name="Hand").click()
    expect(page.locator("#input")).to_have_value("@burro_bot hand")
    result = page.locator(".inline-result", has_text="Ace of spades")
    expect(result).to_be_visible()
    result.click()
    sent = page.locator(".msg.own", has_text="Ben plays A♠")
    expect(sent).to_be_visible()
    expect(sent.locator(".via")).to_have_text("via @burro_bot")
    expect(page.locator("#inline-panel")).to_be_hidden()


def test_typing_in_the_group_and_switching_users(
    page: Page, emu: RunningEmulator, bot: BotRecord
) -> None:
    open_chat(page, emu, "Carla", "Family")
    page.locator("#input").fill("/start@burro_bot")
    page.locator("#input").press("Enter")
    expect(page.locator(".msg", has_text="Hello Carla!")).to_be_visible()
    # What Carla's message did is seen live by Dan, in the same group.
    page.locator('.user-tab[data-user="Dan"]').click()
    expect(page.locator("#chat-title")).to_have_text("Family")
    carla_said = page.locator('[data-message-id="1"]')
    expect(carla_said.locator(".text")).to_have_text("/start@burro_bot")
    expect(carla_said.locator(".sender")).to_have_text("Carla Jones")
    expect(carla_said).not_to_have_class(re.compile(r"\bown\b"))
    # Typing "@burro_bot ..." opens the inline panel in the group.
    page.locator("#input").fill("@burro_bot anything")
    expect(page.locator(".inline-result", has_text="Seven of hearts")).to_be_visible()
    page.locator(".inline-result", has_text="Seven of hearts").click()
    group_message = page.locator(".msg.own", has_text="Dan plays 7♥")
    expect(group_message).to_be_visible()
    group_message.get_by_role("button", name="Take").click()
    expect(page.locator(".msg", has_text="Taken by Dan")).to_be_visible()
    assert emu.messages_in("Family")[-1].text == "Taken by Dan"


def test_a_message_that_comes_while_the_chat_is_read_is_shown(
    page: Page, emu: RunningEmulator, bot: BotRecord
) -> None:
    """Found by a group test: Ben's tab was read as the bot posted the lobby, the list
    came back without it, and the page drew the list over the lobby it had just shown."""
    open_chat(page, emu, "Carla", "Family")
    held: list[Route] = []
    page.route(lambda url: "/messages?" in url and "user=" in url, lambda r: held.append(r))
    page.locator('.user-tab[data-user="Dan"]').click()  # the chat read again, for Dan
    page.wait_for_function("app.reading.size > 0")
    read_before = held[0].fetch()  # the list as it is before the message
    emu.send_message("Carla", "Family", "posted while Dan's list was on its way")
    page.wait_for_function("[...app.reading].some((r) => r.views.length > 0)")
    held[0].fulfill(response=read_before)
    page.unroute_all()
    shown = page.locator(".msg", has_text="posted while Dan's list was on its way")
    expect(shown).to_be_visible()
