"""The widget's whole HTML (service.cards.widget.WIDGET_HTML) within Telegram's limits,
and the table it draws (table.js) run in headless Chromium: a hand's legal cards raised
and tappable, a tap sent as the press's whole text, a refusal's words shown, a new state
drawn in place."""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.cards.widget import MAX_HTML, MAX_HTML_COMPRESSED, VIEW_JS, WIDGET_HTML, WIDGET_JS
from service.table import play
from service.table.room import Room
from service.ui import games as screens
from service.ui.picture import pack
from tests.ui.test_picture import new_room, played
from tools.pictures import SCENES, scene_room, widget_page

CHROMIUM = Path(os.environ.get("BURRO_CHROMIUM", "/usr/bin/chromium"))
NEEDS_CHROMIUM = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)"
)


def test_the_widget_fits_telegrams_limits() -> None:
    raw = WIDGET_HTML.encode()
    assert len(raw) <= MAX_HTML == 32768
    assert len(zlib.compress(raw, 9)) <= MAX_HTML_COMPRESSED == 4096
    assert WIDGET_HTML.startswith("<!doctype html>") and WIDGET_HTML.endswith("</script>")
    script = WIDGET_HTML.split("<script>", 1)[1].removesuffix("</script>")
    assert "</script" not in script.lower() and "<!--" not in script
    assert (
        VIEW_JS.startswith(WIDGET_JS)
        and "var Table=" in VIEW_JS
        and "TelegramWidget" not in VIEW_JS
    )
    assert "//" not in VIEW_JS.replace("http://", "")  # no comment shipped


def turn_with_choice(preset: str) -> Room:
    """A game at a moment when the first player has some cards to play and some not
    (cuartetos: any may be passed)."""
    room = new_room(preset, private=True, players=3)
    for now in played(room, seed=5):
        game = play.game(now)
        if 0 in game.to_act(now.game):
            view = game.player_view(now.game, 0)
            plays = [a for a in view.legal if a.startswith(("play:", "pass:"))]
            if plays and (len(plays) < len(view.hand) or preset == "cuartetos"):
                return now
    raise AssertionError("no such moment")


# A stand-in for Telegram's in-widget API, recording what the widget asks of it.
FAKE_API = """<script>
window.asked = []; window.readied = 0; window.listeners = [];
window.TelegramWidget = {
  chatData: %s,
  ready: function () { window.readied++; },
  onStateChange: function (f) { window.listeners.push(f); },
  request: function (data) {
    window.asked.push(data);
    return Promise.resolve({result: data.endsWith("x") ? "" : "Not now!"});
  }
};
</script>"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield launched
        launched.close()


def open_page(browser: Any, html: str, width: int = 360) -> tuple[Any, list[str]]:
    """A page showing `html`, and the script errors it meets."""
    page = browser.new_page(viewport={"width": width, "height": 700})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_content(html)
    return page, errors


@NEEDS_CHROMIUM
@pytest.mark.parametrize("preset", ["spanish", "cangkul", "cuartetos"])
def test_the_widget_draws_a_hand_and_sends_a_tap(browser: Any, preset: str) -> None:
    room = turn_with_choice(preset)
    packed = pack(screens.painter(room, "en").picture(0))
    state = json.loads(packed)
    api = FAKE_API % json.dumps(packed).replace("</", "<\\/")
    page, errors = open_page(
        browser, WIDGET_HTML.replace("<body><script>", "<body>" + api + "<script>")
    )
    page.wait_for_function("window.readied == 1")
    raised = [tap for _code, tap in state["h"] if tap]
    cards = page.locator("button.c")
    assert cards.count() == len(raised) and 0 < len(raised) <= len(state["h"])
    assert page.locator(".h > a").count() == len(state["h"]) - len(raised)  # dimmed, not buttons
    names = state["n"]
    first = next(code for code, tap in state["h"] if tap)
    assert cards.first.get_attribute("aria-label") == names.get(first, first)
    assert page.locator(".p > a").count() == len(state["p"])
    said = page.locator(".V").text_content()  # the table as text, for screen readers
    assert said.startswith(state["t"]) and all(p[0] in said for p in state["p"])
    assert all(names.get(code, code) in said for code, _tap in state["h"])
    cards.first.click(position={"x": 6, "y": 30})  # its corner: the next card may lie over the rest
    page.wait_for_function("window.asked.length == 1")
    assert page.evaluate("window.asked[0]") == state["k"] + raised[0]
    page.wait_for_function("document.querySelector('[role=status]').textContent == 'Not now!'")
    assert errors == []


@NEEDS_CHROMIUM
def test_a_new_state_is_drawn_in_place_and_actions_tap(browser: Any) -> None:
    room = new_room("burro_em_pe", private=True, players=3)
    for now in played(room, seed=8):
        view = play.game(now).player_view(now.game, 0)
        if any(a.startswith("draw") for a in view.legal):
            break
    first = pack(screens.painter(room, "en").picture(0))
    page, errors = open_page(browser, "<body><div id=t></div><script>" + VIEW_JS + "</script>")
    page.evaluate(
        "s => { window.taps = []; Table.draw(document.getElementById('t'), s,"
        " {width: 390, onTap: t => window.taps.push(t)}) }",
        first,
    )
    state = json.loads(first)
    buttons = page.locator(".a button")
    assert buttons.count() == len(state["a"]) >= 2  # the tent: draw left, draw right
    assert buttons.first.inner_text() == state["a"][0][0]
    buttons.first.click()
    assert page.evaluate("window.taps") == [state["k"] + state["a"][0][1]]
    assert page.locator("[role=status]").inner_text() == state["u"]
    later = dict(state, u="Waiting for Ben.", a=[], h=[[c, 0] for c, _t in state["h"]])
    page.evaluate("s => Table.draw(document.getElementById('t'), s, {width: 390})", later)
    assert page.locator("#t > style").count() == 1  # drawn in place, not again beside it
    assert page.locator("button").count() == 0
    assert page.locator("[role=status]").inner_text() == "Waiting for Ben."
    assert errors == []


def test_the_screenshots_scenes_come_and_carry_their_picture() -> None:
    for scene in SCENES:
        room = scene_room(scene)
        assert room.status == "playing" and scene.worth(room)
        packed = pack(screens.painter(room, scene.lang).picture(0))
        page = widget_page(packed)
        assert json.dumps(packed).replace("</", "<\\/") in page
        assert page.index("TelegramWidget={") < page.index("var Cards=")  # the API comes first


@NEEDS_CHROMIUM
def test_names_are_text_and_a_bare_table_draws(browser: Any) -> None:
    """A seat's name is drawn as text, never as markup; a public table (no hand, no
    moves) and a picture that gave up its card names draw without an error."""
    room = new_room(
        "cuartetos", private=False, players=3, names=("<img src=x onerror=x()>", 'O\'Neil "B"')
    )
    public = json.loads(pack(screens.painter(room, "en").picture(None)))
    bare = dict(json.loads(pack(screens.painter(room, "en").picture(0))), n={}, y=[])
    page, errors = open_page(browser, "<body><div id=t></div><script>" + VIEW_JS + "</script>")
    draw = "s => Table.draw(document.getElementById('t'), s, {width: 320})"
    page.evaluate(draw, public)
    assert page.locator("#t img").count() == 0 and page.locator("button").count() == 0
    assert "<img src=x onerror=x()>" in page.locator(".p > a").first.inner_text()
    assert 'O\'Neil "B"' in page.locator(".p").inner_text()
    page.evaluate(draw, bare)
    first = bare["h"][0][0]
    assert page.locator("button.c").first.get_attribute("aria-label") == first  # its code
    assert errors == []
