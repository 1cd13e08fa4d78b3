"""The web chat shows an ephemeral message to its receiver alone (in place of the
pressed message when asked), not to an app switched offline, and date_time entities in
the viewing user's time zone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator import RunningEmulator
from tests.emulator.conftest import BotApiClient
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, VIEWPORTS, browser, open_chat, page_at  # noqa: F401  (fixtures)

pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning"),
]

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, expect

FAMILY = -1001000000001
MENU = {"inline_keyboard": [[{"text": "🃏 My cards", "callback_data": "hand"}]]}
HAND = {"inline_keyboard": [[{"text": "7♠", "callback_data": "play:7S"}]]}
EIGHTEEN_UTC = 1796580000  # 2026-12-06 18:00 UTC


@pytest.fixture(params=sorted(VIEWPORTS))
def page(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:  # noqa: F811
    with page_at(browser, request.param, timeout_ms=5000, script_errors=True) as opened:
        yield opened


def answer_press(emu: RunningEmulator, api: BotApiClient, replace: bool) -> None:
    """The bot answers the next press on its table with Ben's hand, ephemerally."""
    update = emu.wait_for(
        lambda: next((u for u in reversed(emu.updates()) if "callback_query" in u), None),
        what="a press",
    )
    api.ok(
        "sendMessage",
        text="Your hand",
        reply_markup=HAND,
        ephemeral_message_parameters={
            "callback_query_id": update["callback_query"]["id"],
            "replace_callback_query_message": replace,
        },
    )


def test_only_the_presser_sees_the_hand_in_place_of_the_table(
    page: Page, emu: RunningEmulator, api: BotApiClient
) -> None:
    api.ok("sendMessage", chat_id=FAMILY, text="The table", reply_markup=MENU)
    open_chat(page, emu, "Ben", "Family")
    page.locator(".msg", has_text="The table").get_by_role("button", name="🃏 My cards").click()
    answer_press(emu, api, replace=True)
    hand = page.locator(".msg.ephemeral", has_text="Your hand")
    expect(hand).to_be_visible()
    expect(page.locator(".msg", has_text="The table")).to_have_count(0)  # in its place
    hand.get_by_role("button", name="7♠").click()
    emu.wait_for(
        lambda: any("callback_query" in u and u["callback_query"]["data"] == "play:7S"
                    for u in emu.updates()),
        what="the press on the hand",
    )  # fmt: skip
    page.locator('.user-tab[data-user="Ana"]').click()
    expect(page.locator(".msg", has_text="The table")).to_be_visible()
    expect(page.locator(".msg", has_text="Your hand")).to_have_count(0)


def test_an_app_switched_offline_misses_it(
    page: Page, emu: RunningEmulator, api: BotApiClient
) -> None:
    api.ok("sendMessage", chat_id=FAMILY, text="The table", reply_markup=MENU)
    open_chat(page, emu, "Ben", "Family")
    page.locator("#my-online").uncheck()
    emu.wait_for(lambda: not _online(emu, "Ben"), what="Ben offline")
    page.locator(".msg", has_text="The table").get_by_role("button", name="🃏 My cards").click()
    answer_press(emu, api, replace=False)
    page.locator("#my-online").check()
    emu.wait_for(lambda: _online(emu, "Ben"), what="Ben online")
    expect(page.locator(".msg", has_text="The table")).to_be_visible()
    expect(page.locator(".msg.ephemeral")).to_have_count(0)


def _online(emu: RunningEmulator, name: str) -> bool:
    user = next(u for u in emu.state()["users"] if u["first_name"] == name)
    return bool(user["online"])


def test_a_deadline_in_each_readers_time_zone(
    page: Page, emu: RunningEmulator, api: BotApiClient
) -> None:
    text = "Your turn until 18:00."
    entity = {"type": "date_time", "offset": 16, "length": 5}
    deadline = {**entity, "unix_time": EIGHTEEN_UTC, "date_time_format": "t"}
    api.ok("sendMessage", chat_id=FAMILY, text=text, entities=[deadline])
    open_chat(page, emu, "Dan", "Family")
    shown = page.locator(".msg", has_text="Your turn until").locator("time.date-time")
    expect(shown).to_have_text("18:00")
    page.locator("#my-zone").select_option("Asia/Jakarta")
    expect(shown).to_have_text("01:00")
    page.locator('.user-tab[data-user="Ana"]').click()
    expect(shown).to_have_text("18:00")  # Ana's app is still on UTC


def test_the_receiver_alone_gets_an_unread_mark(
    page: Page, emu: RunningEmulator, api: BotApiClient
) -> None:
    api.ok("sendMessage", chat_id=FAMILY, text="The table", reply_markup=MENU)
    open_chat(page, emu, "Ana", "Family")
    table = emu.wait_for_message("Family", "The table")
    emu.tap("Ben", table, "hand", wait=False)
    answer_press(emu, api, replace=False)
    expect(page.locator('.user-tab[data-user="Ben"] .badge')).to_have_text("🔔 1")
    expect(page.locator('.user-tab[data-user="Carla"] .badge')).to_have_count(0)
    expect(page.locator(".msg.ephemeral")).to_have_count(0)  # not Ana's
