"""The web chat draws a call-to-action URL message as WhatsApp does, its body with its
button, and a tap opens the link at a phone's size (as the Telegram side opens a Mini
App), in headless Chromium at a desktop's width and a phone's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator import RunningEmulator
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, VIEWPORTS, browser, page_at  # noqa: F401  (a fixture)
from tests.emulator.test_web_whatsapp import open_whatsapp, shown
from tests.emulator.whatsapp.conftest import Graph

pytestmark = NEEDS_CHROMIUM
if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, expect


@pytest.fixture(params=sorted(VIEWPORTS))
def page(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:  # noqa: F811
    with page_at(browser, request.param) as opened:
        yield opened


def test_a_cta_message_shows_its_button_and_opens_its_link(
    emu: RunningEmulator, page: Page
) -> None:
    emu.whatsapp.send("Abuela", "mesa")
    link = f"{emu.url}/healthz#l=1.k3j9x0qa"  # a page of this machine's: no network
    message = {
        "type": "interactive",
        "interactive": {
            "type": "cta_url",
            "body": {"text": "🖼 La mesa como tú la ves."},
            "footer": {"text": "Burro"},
            "action": {
                "name": "cta_url",
                "parameters": {"display_text": "🖼 Abrir la mesa", "url": link},
            },
        },
    }
    graph = Graph(emu.url)
    try:
        wamid = graph.ok(message)
    finally:
        graph.close()
    open_whatsapp(page, emu.url, "Abuela")
    bubble = shown(page, wamid)
    expect(bubble.locator(".wa-text")).to_have_text("🖼 La mesa como tú la ves.")
    expect(bubble.locator(".wa-foot")).to_have_text("Burro")
    button = bubble.get_by_role("button", name="Abrir la mesa")
    expect(button).to_be_enabled()
    with page.expect_popup() as opening:
        button.click()
    popup = opening.value
    popup.wait_for_load_state()
    assert popup.url == link
    assert popup.evaluate("window.innerWidth") == 390  # a phone's width, at any page size
