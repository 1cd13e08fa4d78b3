"""The view in headless Chromium, at a phone's width and a desktop's: opened as a Mini
App (its initData in the address's fragment), drawn, a card tapped and played, the
other seat's view following; the "?" panel with the rules; an old launch refused in the
reader's language. `serve`'s view routes run on uvicorn in this process, on fakeredis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from urllib.parse import quote

import pytest
from starlette.applications import Starlette

from emulator import ServerThread
from engine.follow_suit.game import to_move
from service.i18n import Translator
from service.view import texts
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, VIEWPORTS, browser, page_at  # noqa: F401  (a fixture)
from tests.view.harness import Views

pytestmark = NEEDS_CHROMIUM
if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, expect


@pytest.fixture
def served() -> Iterator[tuple[Views, str]]:
    views = Views()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await views.view.live.start()
        yield
        await views.view.live.stop()

    app = Starlette(routes=views.view.routes(), lifespan=lifespan)
    with ServerThread(app) as server:
        yield views, server.url


def address(views: Views, url: str, user: int, room: str, lang: str = "en", age: float = 0) -> str:
    init_data = views.launch(user, room, lang=lang, age=age)
    return (
        f"{url}/view?tgWebAppStartParam={room}#tgWebAppData={quote(init_data)}&tgWebAppVersion=8.0"
    )


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_a_card_tapped_in_the_view_is_played_and_the_other_view_follows(
    served: tuple[Views, str],
    browser: Browser,  # noqa: F811
    viewport: str,
) -> None:
    views, url = served
    room = views.new_game(2)
    seat = to_move(room.game)
    assert seat is not None
    with page_at(browser, viewport) as mine, page_at(browser, "phone") as theirs:
        mine.goto(address(views, url, 1001 + seat, room.id))
        theirs.goto(address(views, url, 1001 + 1 - seat, room.id))
        for page in (mine, theirs):
            expect(page.locator("#status")).to_have_text("Up to date.")
            assert "#" not in page.url  # the launch's secret left the address bar
            expect(page.locator("#title")).not_to_be_empty()  # which table this is
            assert page.title().endswith(" · Burro")
        cards = mine.locator("#table .h > *")
        held = cards.count()
        assert held > 0 and mine.locator("#table button[data-t]").count() > 0
        width = mine.locator("#table").bounding_box()
        wide = min(VIEWPORTS[viewport][0], 960) - 24  # the page's margins; 960 at most
        assert width is not None and width["width"] >= wide
        story = theirs.locator("#table .y")
        before = story.inner_text()
        with mine.expect_response("**/view/press") as pressed:
            mine.locator("#table button[data-t]").first.click()
        assert pressed.value.status == 200
        views.apply_queued(room.id)  # the worker's press job
        expect(cards).to_have_count(held - 1)
        expect(story).not_to_have_text(before)
        help_is(mine)


def help_is(page: Page) -> None:
    page.locator("#ask").click()
    expect(page.locator("#help")).to_be_visible()
    expect(page.locator("#rules")).not_to_be_empty()
    page.keyboard.press("Escape")
    expect(page.locator("#help")).to_be_hidden()


def test_an_old_launch_is_refused_in_the_readers_language(
    served: tuple[Views, str],
    browser: Browser,  # noqa: F811
) -> None:
    views, url = served
    room = views.new_game(2)
    with page_at(browser, "phone") as page:
        page.goto(address(views, url, 1001, room.id, lang="es", age=7200))
        said = Translator("es").gettext(texts.REFUSED["too_old"])
        expect(page.locator("#end")).to_have_text(said)
