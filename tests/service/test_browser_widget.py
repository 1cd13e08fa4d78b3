"""A one-to-one game against bots played to its end by tapping cards in the hand's widget
(Bot API 10.4), in the local Telegram's web chat (headless Chromium) at a phone's width
and at a desktop's, with the product in this process (issue #39).

The player writes `/play spanish` in the bot's chat and taps Start there; from then on
every move is a tap on a raised card (else on a move's button: draw, pass) inside the
widget's sandboxed frame, which the web chat delivers to the bot as a `widget_query`.
The widget is edited in place after each move. On the first turn the phone is made slow
(the chat holds back the widget's new state): the card tapped in the old drawing after
a move is stale, refused with a stale button's words shown in the widget, and nothing
is played. No widget's data ever holds a card still hidden in a bot's hand. The game's
end shows in the widget."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from emulator.telegram import widgets as emulator_widgets
from emulator.telegram.driver import ChatMessage
from engine.follow_suit.game import GameState
from service.i18n import Translator
from service.table.room import Room
from tests.emulator.page_parts import button_in_page
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, VIEWPORTS, browser, open_chat, page_at  # noqa: F401  (a fixture)
from tests.service.inproc import Hook, running_service
from tests.service.play import action_button, follow_suit_game

pytestmark = [NEEDS_CHROMIUM, pytest.mark.e2e]  # a browser in its own processes
if CHROMIUM.exists():
    from playwright.sync_api import Browser, FrameLocator, Page, expect

# Who plays at each width, and their language (the emulator's cast).
PLAYERS = {"phone": ("Ana", 100001, "es"), "desktop": ("Carla", 100003, "en")}
WAIT = 20_000  # ms the page may take to show what the bot did (a loaded machine)
STALE = "This button is out of date: use the newest message."


@pytest.fixture
def hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hook]:
    """The product in this process with widgets on, a game to one hand's end. The test
    taps faster than a person: Telegram's 5 widget requests in 5 seconds (tested in
    tests/emulator/test_widgets_web.py) are lifted here."""
    monkeypatch.setattr(emulator_widgets, "QUERIES", 10_000)
    with running_service(tmp_path, telegram_widgets=True, game_target=1) as running:
        yield running


@pytest.fixture(params=sorted(VIEWPORTS))
def viewport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def page(viewport: str, browser: Browser) -> Iterator[Page]:  # noqa: F811
    with page_at(browser, viewport, timeout_ms=WAIT) as opened:
        yield opened


def test_a_game_against_bots_is_played_to_its_end_in_the_widget(
    hook: Hook, page: Page, viewport: str
) -> None:
    user, user_id, lang = PLAYERS[viewport]
    for _ in range(3):  # a deal whose hand her first tap ends (forced draws, the bot out): another
        start_a_game(page, hook, user, user_id)
        stale_checked, moves = played_to_the_end(page, hook, user, user_id, lang)
        if stale_checked and moves >= 1:
            break
    assert stale_checked and moves >= 1
    final = last_widget(hook, user)
    assert final is not None and data_of(final)["o"] == 1  # the widget shows the end
    expect(frame_of(page, final).locator("[role=status]")).to_have_text(
        data_of(final)["u"], timeout=WAIT
    )


def played_to_the_end(
    page: Page, hook: Hook, user: str, user_id: int, lang: str
) -> tuple[bool, int]:
    """The game in the page played to its end, a stale tap tried on its first turn:
    whether the stale tap could be tried (the game went on after her first move), and
    her moves after it."""
    moves, stale_checked, first = 0, False, True
    while (current := room(hook, user_id)).status == "playing":
        hand = hand_widget(hook, user, current)
        assert_secret(current, hand)
        frame = drawn(page, hand)
        if first:
            words = Translator(lang).gettext(STALE)
            stale_checked = tap_stale_card(page, hook, frame, current, user_id, words)
            first = False
            continue
        expect(frame.locator("[data-t]").first).to_be_visible(timeout=WAIT)
        tap_in(frame)
        hook.emu.wait_for(lambda: room(hook, user_id).version > current.version or None)
        settle(hook)
        moves += 1
    return stale_checked, moves


# ----- the chat ---------------------------------------------------------------------------


def start_a_game(page: Page, hook: Hook, user: str, user_id: int) -> None:
    """In the page: /play spanish in the bot's chat, then the lobby's Start."""
    hook.emu.start(user)
    open_chat(page, hook.emu, user, "bot")
    page.locator("#input").fill("/play spanish")
    page.locator("#input").press("Enter")
    lobby = hook.emu.wait_for_message(user, lambda m: action_button(m, "S") is not None)
    data = action_button(lobby, "S")
    assert data is not None
    button_in_page(page, lobby, data).click()
    hook.emu.wait_for(lambda: room(hook, user_id).status == "playing" or None, what="the start")


def room(hook: Hook, user_id: int) -> Room:
    found = hook.store().room_in_chat(user_id, None)
    assert found is not None
    return found


def settle(hook: Hook) -> None:
    assert hook.worker is not None
    hook.worker.settle()


def data_of(message: ChatMessage) -> dict[str, Any]:
    widget = widget_of(message)
    found: dict[str, Any] = json.loads(widget["chat_data"])
    return found


def widget_of(message: ChatMessage) -> dict[str, Any]:
    widget = message.raw.get("widget")
    assert isinstance(widget, dict), f"no widget in {message.text!r}"
    assert len(str(widget["chat_data"]).encode()) <= 1024  # Telegram's chat_data limit
    return widget


def last_widget(hook: Hook, user: str) -> ChatMessage | None:
    found = [m for m in hook.emu.messages_in(user) if "widget" in m.raw]
    return found[-1] if found else None


def hand_widget(hook: Hook, user: str, current: Room) -> ChatMessage:
    """The player's widget once it offers this turn's moves."""
    phase = f".{current.phase_version}."

    def ready() -> ChatMessage | None:
        widget = last_widget(hook, user)
        if widget is None:
            return None
        data = data_of(widget)
        taps = [t for _code, t in data["h"] if t] + [a[1] for a in data["a"]]
        return widget if taps and phase in str(data["k"]) + str(taps[0]) else None

    return hook.emu.wait_for(ready, what=f"{user}'s widget with this turn's moves")


# ----- the widget in the page -------------------------------------------------------------


def frame_of(page: Page, message: ChatMessage) -> FrameLocator:
    frame = page.locator(f'[data-message-id="{message.message_id}"] iframe.widget-frame')
    expect(frame).to_have_count(1, timeout=WAIT)
    return frame.content_frame


def drawn(page: Page, message: ChatMessage) -> FrameLocator:
    """The message's widget once its frame has been told the message's state (and so has
    drawn it: the frame draws as it is told). The page learns of an edit after the bot
    made it; a tap in the drawing before would be a stale one, refused, as it should be."""
    frame = frame_of(page, message)
    told = frame.owner.element_handle().content_frame()
    assert told is not None
    told.wait_for_function(
        "state => window.TelegramWidget && TelegramWidget.chatData === state",
        arg=widget_of(message)["chat_data"],
        timeout=WAIT,
    )
    return frame


def tap_in(frame: FrameLocator) -> None:
    """A raised card tapped near its top left corner (the fanned cards overlap: that
    corner is the card's own), else the first move's button (draw, pass)."""
    cards = frame.locator("button.c[data-t]")
    moves = frame.locator("button.b[data-t]")
    expect(cards.or_(moves).first).to_be_visible(timeout=WAIT)  # not a frame still loading
    if cards.count():
        cards.first.click(position={"x": 4, "y": 6})
    else:
        moves.first.click()


def tap_stale_card(
    page: Page, hook: Hook, frame: FrameLocator, current: Room, user_id: int, words: str
) -> bool:
    """A slow phone: the chat holds back the widget's new state. A card is played, then
    one tapped in the drawing that is now out of date is refused, with the stale words
    in the widget, and nothing moves; then the state comes through. False when the card
    played ended the hand (no stale tap to try: the hand's widget gives way to the next
    hand's, or shows the game's end)."""
    expect(frame.locator("[data-t]").first).to_be_visible(timeout=WAIT)
    page.evaluate("window.__tell = tellWidgetState; window.tellWidgetState = () => {}")
    tap_in(frame)
    hook.emu.wait_for(lambda: room(hook, user_id).version > current.version or None)
    settle(hook)
    after = room(hook, user_id)
    goes_on = after.status == "playing" and hand_no(after) == hand_no(current)
    if goes_on:
        tap_in(frame)  # the old drawing: a tap of the turn that is gone
        expect(frame.locator("[role=status]")).to_have_text(words, timeout=WAIT)
        settle(hook)
        assert room(hook, user_id).version == after.version  # nothing played
    page.evaluate(
        "window.tellWidgetState = window.__tell;"
        "for (const f of document.querySelectorAll('iframe.widget-frame')) {"
        " const v = widgetView(f); if (v && v.widget) tellWidgetState(f, v); }"
    )
    return goes_on


def hand_no(current: Room) -> int:
    return follow_suit_game(current).hand_no


# ----- secrets ----------------------------------------------------------------------------


def assert_secret(current: Room, message: ChatMessage) -> None:
    """The widget holds the player's own cards and none still hidden in a bot's hand."""
    data = data_of(message)
    game: GameState = follow_suit_game(current)
    codes = game.table.codec.codes
    shown = {c for c, _tap in data["h"]} | {c for _s, c in data["m"]} | set(data["n"])
    assert {c for c, _tap in data["h"]} == set(codes(game.hand.hands[0]))
    for seat in range(1, len(current.seats)):
        hidden = set(codes(game.hand.hands[seat] & ~game.hand.known[seat]))
        assert not shown & hidden, f"seat {seat}'s {shown & hidden} in the widget"
