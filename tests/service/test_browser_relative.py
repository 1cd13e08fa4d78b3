"""A Telegram relative at Grandma's WhatsApp table, from the link to the end, read in the
web chat at a phone's width (headless Chromium): Grandma writes "family" on WhatsApp and
shares the Telegram link; Ana follows it, is welcomed to Grandma's table (told that the
table and her cards come to this chat), and plays every turn by tapping in the page.
Each turn's message shows the table as a group would (every player with their cards'
count and points, the stock, whose table) with her hand below it and no card of
another's hand; nothing is wider than the phone, no label is cut; the game's end comes
to her chat too."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from emulator.telegram.driver import ChatMessage
from engine.follow_suit.game import GameState, to_move
from engine.follow_suit.views import public_view
from engine.registry import find_game
from service.i18n import Translator
from service.table.room import Room
from service.ui.follow_suit import FollowSuitPainter
from service.ui.screens import table_name
from tests.emulator.page_parts import button_in_page
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, VIEWPORTS, browser, open_chat, page_at  # noqa: F401  (a fixture)
from tests.service.group_play import ending_at
from tests.service.inproc import Hook, running_service
from tests.service.play import names_in, room_in
from tests.service.test_browser_games import check_page, live_hand, moves_in, words
from tests.service.whatsapp.play import act, outgoing
from tests.service.whatsapp.test_family_table import lobby_offering, player_id
from tests.service.whatsapp.test_mixed_table import LINK, play_whatsapp_turn, wait_moved

pytestmark = [NEEDS_CHROMIUM, pytest.mark.e2e]  # a browser in its own processes
if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, expect

HOST, RELATIVE = "Grandma", "Ana"  # the emulator's: Grandma on WhatsApp (en), Ana (es)
TELEGRAM_LINK = re.compile(r"https://t\.me/\S+\?start=j[a-z0-9]{8}")


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    folder = tmp_path_factory.mktemp("relative")
    with running_service(folder, whatsapp_pair_rate=0.0, game_target=2) as running:
        yield running


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:  # noqa: F811
    with page_at(browser, "phone") as opened:
        yield opened


def test_a_telegram_relative_at_grandmas_whatsapp_table(hook: Hook, phone: Page) -> None:
    emu, wa = hook.emu, hook.emu.whatsapp
    wa.send(HOST, "family")
    told = wa.wait_for(
        lambda: next((m for m in outgoing(wa, HOST) if LINK.search(m.text)), None),
        what="the links to share",
    )
    link = TELEGRAM_LINK.search(told.text)
    assert link is not None, told.text
    open_chat(phone, emu, RELATIVE, "bot")
    emu.open_link(RELATIVE, link[0])
    welcome = Translator("es").gettext(
        "👋 Welcome to {host}'s table, {name}! The table and your cards will come "
        "here, in this chat, when the game starts.",
        host=HOST,
        name=RELATIVE,
    )
    expect(phone.locator(".msg", has_text=welcome).last).to_be_visible()
    host = player_id(hook, HOST)
    tr = Translator("en")
    lobby = lobby_offering(wa, HOST, tr.gettext("🤖 Add bot"), 0)
    act(wa, HOST, lobby, tr.gettext("🤖 Add bot"))
    emu.wait_for(lambda: len(room_in(hook, host).seats) == 3 or None, what="the bot seated")
    hook.store().update(room_in(hook, host).id, ending_at(2))
    act(wa, HOST, lobby_offering(wa, HOST, tr.gettext("▶️ Start"), lobby.seq), "▶️ Start")
    emu.wait_for(lambda: room_in(hook, host).status != "lobby" or None, what="the start")
    turns = play_out(hook, host, phone)
    assert turns >= 2
    scores = words("es", "Scores: {scores}")
    phone.reload()
    expect(phone.locator(".msg", has_text=scores).last).to_be_visible()
    assert live_hand(emu, RELATIVE, room_in(hook, host)) is None


def play_out(hook: Hook, host: int, phone: Page) -> int:
    """The game played to its end: Ana's turns tapped in the page, each read first,
    Grandma's from her WhatsApp prompts, the bot's awaited; Ana's turns played."""
    seen, turns = (0, 0), 0
    for _ in range(2000):
        room = room_in(hook, host)
        if room.status == "over":
            return turns
        assert isinstance(room.game, GameState)
        seat = to_move(room.game)
        assert seat is not None
        player = room.seats[seat]
        if player.name == RELATIVE:
            tap_in_page(hook, host, phone)
            turns += 1
        elif player.bot is None:
            seen, _opened = play_whatsapp_turn(hook, HOST, room, seat, seen)
        wait_moved(hook, host, room)
    raise AssertionError("the game did not end")


def tap_in_page(hook: Hook, host: int, phone: Page) -> None:
    """Ana's turn as her phone shows it: the table above her hand, read and checked,
    then the first move's button tapped in the page."""
    emu = hook.emu
    room = room_in(hook, host)
    hand: ChatMessage = emu.wait_for(
        lambda: live_hand(emu, RELATIVE, room), timeout=20, what="Ana's turn"
    )
    check_table(room, hand)
    check_page(phone, hand)
    button_in_page(phone, hand, moves_in(hand, room)[0]).click()  # as Ana would


def check_table(room: Room, hand: ChatMessage) -> None:
    """Every seat's line, the stock and whose table, and no card of another's hand."""
    assert isinstance(room.game, GameState)
    seat = next(i for i, info in enumerate(room.seats) if info.name == RELATIVE)
    painter = FollowSuitPainter(room, room.seats[seat].lang)
    view = public_view(room.game)
    for other in range(len(room.seats)):
        assert painter.seat_line(view, other) in hand.text, hand.text
    assert painter.stock_line(view) in hand.text
    assert table_name(room, painter.tr) in hand.text.splitlines()[0]
    game = find_game(room.settings.preset)[0]
    hidden = {
        painter.card(code)
        for other in range(len(room.seats))
        if other != seat
        for code in game.hand(room.game, other)
    }
    shown = hand.text + " " + " ".join(b.text for row in hand.buttons for b in row)
    assert not names_in(shown, hidden), names_in(shown, hidden)
