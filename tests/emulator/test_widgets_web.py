"""A widget in the web chat: it runs in a sandboxed frame that reaches no network, its
taps reach the bot (python-telegram-bot) as widget_query, and the bot's answer and new
state reach the widget."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from emulator import RunningEmulator, ServerThread
from tests.emulator.conftest import BotApiClient
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, VIEWPORTS, browser, open_chat, page_at  # noqa: F401  (fixtures)
from tests.emulator.test_widgets import ANA, WidgetBot, running_widget_bot, widget_html

pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning"),
]

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, expect

FAMILY = -1001000000001


@pytest.fixture
def spy() -> Iterator[tuple[list[str], str]]:
    """A server the widget tries to reach: the paths it was asked for, and its URL."""
    asked: list[str] = []

    async def anything(request: Request) -> Response:
        asked.append(request.url.path)
        return PlainTextResponse("leaked", headers={"Access-Control-Allow-Origin": "*"})

    with ServerThread(Starlette(routes=[Route("/{path:path}", anything)])) as server:
        yield asked, server.url


@pytest.fixture
def widget_bot(emu: RunningEmulator, spy: tuple[list[str], str]) -> Iterator[WidgetBot]:
    with running_widget_bot(emu.api_url, widget_html(spy[1])) as record:
        emu.wait_for(lambda: emu.webhook_info()["url"], what="the bot's setWebhook")
        yield record


@pytest.fixture(params=sorted(VIEWPORTS))
def page(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:  # noqa: F811
    with page_at(browser, request.param) as opened:
        yield opened


def test_a_widget_reaches_no_network_and_its_tap_reaches_the_bot(
    page: Page, emu: RunningEmulator, widget_bot: WidgetBot, spy: tuple[list[str], str]
) -> None:
    emu.start("Ana")
    emu.wait_for_message("Ana", lambda m: emu.widget(m) is not None)
    open_chat(page, emu, "Ana", "bot")
    widget = page.frame_locator("iframe.widget-frame")
    expect(widget.locator("#state")).to_have_text("count=0")
    # Each way out is blocked: fetch, an image, a WebSocket; the spy heard nothing.
    expect(widget.locator("#net")).to_have_text("fetch blocked, image blocked, websocket blocked")

    widget.get_by_role("button", name="Tap").click()

    expect(widget.locator("#answer")).to_have_text("ok 1")  # the bot's answer
    expect(widget.locator("#state")).to_have_text("count=1")  # and its new state
    (query,) = widget_bot.queries
    assert (query["from"]["id"], query["data"]) == (ANA, "tap")
    widget.get_by_role("button", name="Tap").click()
    expect(widget.locator("#state")).to_have_text("count=2")  # the same frame, still running
    assert len(page.locator("iframe.widget-frame").all()) == 1
    assert spy[0] == []


def test_a_request_past_telegrams_rate_fails_in_the_widget(
    page: Page, emu: RunningEmulator, widget_bot: WidgetBot
) -> None:
    emu.start("Ana")
    emu.wait_for_message("Ana", lambda m: emu.widget(m) is not None)
    open_chat(page, emu, "Ana", "bot")
    widget = page.frame_locator("iframe.widget-frame")
    expect(widget.locator("#state")).to_have_text("count=0")
    for _ in range(5):  # Telegram's rate: 5 requests in 5 seconds
        widget.get_by_role("button", name="Tap").click()
    expect(widget.locator("#state")).to_have_text("count=5")
    widget.get_by_role("button", name="Tap").click()  # a sixth within the 5 seconds
    expect(widget.locator("#answer")).to_have_text(re.compile("refused: too many widget requests"))
    assert len(widget_bot.queries) == 5


@pytest.mark.parametrize("emu", [{"widgets_in_groups": True}], indirect=True)
def test_on_the_test_server_a_group_member_taps_a_widget(
    page: Page, emu: RunningEmulator, api: BotApiClient
) -> None:
    html = widget_html("http://127.0.0.1:9")
    sent = api.ok("sendWidget", chat_id=FAMILY, html=html, chat_data="count=0", allow_queries=True)
    open_chat(page, emu, "Ben", "Family")
    widget = page.frame_locator("iframe.widget-frame")
    expect(widget.locator("#state")).to_have_text("count=0")
    widget.get_by_role("button", name="Tap").click()
    query = emu.wait_for(
        lambda: next((u["widget_query"] for u in emu.updates() if "widget_query" in u), None),
        what="Ben's widget_query",
    )
    assert (query["from"]["first_name"], query["chat"]["id"], query["message_id"]) == (
        "Ben",
        FAMILY,
        sent["message_id"],
    )
    where = {"chat_id": FAMILY, "message_id": sent["message_id"]}
    api.ok("editMessageWidgetData", **where, chat_data="count=1")
    api.ok("answerWidgetQuery", widget_query_id=query["id"], data="counted")
    expect(widget.locator("#answer")).to_have_text("counted")
    expect(widget.locator("#state")).to_have_text("count=1")


LEAVING = """<html><head></head><body><button id="leave">Leave</button><script>
document.getElementById("leave").onclick = () => { location.href = "http://127.0.0.1:9/away"; };
</script></body></html>"""


def test_a_widget_that_navigates_its_frame_is_stopped(
    page: Page, emu: RunningEmulator, api: BotApiClient
) -> None:
    emu.start("Ana")
    api.ok("sendWidget", chat_id=ANA, html=LEAVING)
    open_chat(page, emu, "Ana", "bot")
    page.frame_locator("iframe.widget-frame").get_by_role("button", name="Leave").click()
    expect(page.locator(".widget-stopped")).to_contain_text("tried to leave its document")
    expect(page.locator("iframe.widget-frame")).to_have_count(0)
