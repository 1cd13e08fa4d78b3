"""The web chat's group tools in headless Chromium: upgrade a group, topics, writing as
the group, deleting a message."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator import RunningEmulator, fast_config, running_emulator
from emulator.config import FAMILY, Cast, GroupSpec
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, browser, open_chat, page  # noqa: F401  (fixtures)

pytestmark = NEEDS_CHROMIUM

if CHROMIUM.exists():
    from playwright.sync_api import Page, expect

COUSINS = -4000000001
CAST = Cast(
    users=FAMILY.users,
    groups=(GroupSpec(COUSINS, "Cousins", ("Ana", "Ben"), owner="Ana", type="group"),),
)


@pytest.fixture
def emu() -> Iterator[RunningEmulator]:
    with running_emulator(fast_config(cast=CAST)) as running:
        yield running


def group_tool(tab: Page, label: str) -> None:
    tab.locator("#group-button").click()
    tab.locator("#group-menu button", has_text=label).click()


def test_upgrade_topics_send_as_and_delete(page: Page, emu: RunningEmulator) -> None:  # noqa: F811
    open_chat(page, emu, "Ana", "Cousins")
    group_tool(page, "Upgrade to a supergroup")
    expect(page.locator(".service", has_text="upgraded the group")).to_be_visible()
    supergroup = next(c for c in emu.state()["chats"] if c["type"] == "supergroup")
    assert supergroup["title"] == "Cousins" and supergroup["id"] != COUSINS

    group_tool(page, "Turn topics on")
    expect(page.locator("#topics button", has_text="General")).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept("Burro"))
    group_tool(page, "New topic")
    expect(page.locator('#topics button[aria-selected="true"]')).to_have_text("# Burro")
    page.locator("#input").fill("in the topic")
    page.locator("#input").press("Enter")
    said = page.locator(".msg.own", has_text="in the topic")
    expect(said).to_be_visible()
    topic = emu.messages_in(supergroup["id"])[-1].raw["message_thread_id"]
    page.locator("#topics button", has_text="General").click()
    expect(said).to_be_hidden()  # General shows only its own messages

    page.locator("#send-as").select_option("anonymous")
    page.locator("#input").fill("as the group")
    page.locator("#input").press("Enter")
    anonymous = page.locator(".msg", has_text="as the group")
    expect(anonymous.locator(".sender")).to_have_text("Cousins")
    assert emu.messages_in(supergroup["id"])[-1].sender_id == 1087968824

    anonymous.hover()
    anonymous.locator(".del").click()
    expect(anonymous).to_be_hidden()
    assert emu.messages_in(supergroup["id"], include_deleted=True)[-1].deleted

    page.locator("#topics button", has_text="Burro").click()
    group_tool(page, "Close this topic")
    expect(page.locator("#topics button", has_text="🔒 Burro")).to_be_visible()
    assert emu.state()["chats"][-1]["topics"] == [
        {"message_thread_id": topic, "name": "Burro", "icon_color": 7322096, "closed": True}
    ]
