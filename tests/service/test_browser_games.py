"""A game across a day as a family sees it in the web chat (headless Chromium), at a
desktop's width and a phone's: a game against bots played by tapping in the page, and a
group game of three. Every turn comes after a pause here (BURRO_LIVE_WINDOW=0), so each
must arrive as a new message that notified its player; a player's chat keeps one live
hand message; the card buttons come in the order the hand text names the cards, and no
label is cut; the end of a hand and of the game are messages of their own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.games import follow_suit
from cli.stack import Stack
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage
from engine.follow_suit.game import legal_actions, to_move
from service.i18n import Translator
from service.platforms.telegram import callbacks
from service.table import games as table_games
from service.table.room import Room
from tests.emulator.page_parts import button_in_page
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, VIEWPORTS, browser, open_chat, page_at  # noqa: F401  (a fixture)
from tests.service.conftest import make_stack
from tests.service.play import GROUP, action_button, game_buttons, room_in

pytestmark = NEEDS_CHROMIUM
if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, expect

SEPARATOR = " · "
IDS = {"Ana": 100001, "Ben": 100002, "Carla": 100003}
LANGS = {"Ana": "es", "Ben": "pt_BR", "Carla": "en"}  # the emulator's family


def words(lang: str, message: str) -> str:
    """A message's words before its first placeholder, in `lang` ("Your cards: ")."""
    return Translator(lang).gettext(message).split("{")[0]


NAMES = {uid: name for name, uid in IDS.items()}


@pytest.fixture(scope="module")
def stack(emu: RunningEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {"BURRO_LIVE_WINDOW": "0"}  # every turn after a pause: each one must ring
    with make_stack(emu, tmp_path_factory.mktemp("browser"), env=env) as running:
        yield running


@pytest.fixture(params=sorted(VIEWPORTS))
def page(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:  # noqa: F811
    with page_at(browser, request.param) as opened:
        yield opened


# ----- what a player's chat shows ---------------------------------------------------


def moves_in(message: ChatMessage, room: Room) -> list[str]:
    """The data of the message's buttons that play the room's current version."""
    found = []
    for button in game_buttons(message):
        press = callbacks.decode(str(button.value))
        if press is not None and press.room == room.id and press.version == room.version:
            found.append(str(button.value))
    return found


def live_hand(emu: RunningEmulator, user: str, room: Room) -> ChatMessage | None:
    """The one message of `user`'s chat that offers a move now (asserting it is one)."""
    live = [m for m in emu.messages_in(user) if not m.deleted and moves_in(m, room)]
    assert len(live) <= 1, f"{user} has {len(live)} live hand messages"
    return live[0] if live else None


def check_order(message: ChatMessage, lang: str) -> None:
    """The card buttons name cards in the order the hand text does."""
    cards = words(lang, "Your cards: {cards}")
    line = next(x for x in message.text.splitlines() if x.startswith(cards))
    hand = line.removeprefix(cards).split(SEPARATOR)
    labels = [b.text for b in game_buttons(message) if b.text in hand]
    assert labels == [card for card in hand if card in labels], (hand, labels)


def check_page(page: Page, message: ChatMessage) -> None:
    """The page shows the message and its buttons, and no button label is cut."""
    shown = page.locator(f'[data-message-id="{message.message_id}"]')
    expect(shown.locator(".kb-btn").first).to_be_visible()
    cut = page.evaluate(
        """() => [...document.querySelectorAll('.kb-btn')]
            .filter(b => b.scrollWidth > b.clientWidth + 1).map(b => b.textContent)"""
    )
    assert cut == [], f"button labels cut at this width: {cut}"
    wide = page.evaluate("() => document.documentElement.scrollWidth > window.innerWidth")
    assert not wide, "the page scrolls sideways"


def wait_turn(emu: RunningEmulator, stack: Stack, chat: int, user: str) -> Room:
    """The room once it is over or `user`'s live hand message offers its moves."""

    def ready() -> Room | None:
        room = room_in(stack, chat)
        if room.status != "playing" or live_hand(emu, user, room) is not None:
            return room
        return None

    return emu.wait_for(ready, what=f"{user}'s turn")


def news_in(emu: RunningEmulator, chat: str | int, lang: str) -> list[ChatMessage]:
    """The hand's and the game's end, said as messages of their own."""
    scores = words(lang, "Scores: {scores}")
    return [m for m in emu.messages_in(chat) if scores in m.text]


def tap_token(emu: RunningEmulator, stack: Stack, user: str, chat: int, token: str) -> None:
    """Tap the room's lobby button `token` (on its current version) as `user`."""
    room = room_in(stack, chat)
    data = callbacks.encode(room.id, room.version, token)
    message = emu.wait_for_message(
        chat, lambda m: data in {str(b.value) for row in m.buttons for b in row}
    )
    emu.tap(user, message, data)
    emu.wait_for(lambda: room_in(stack, chat).version != room.version, what=token)


def one_point(emu: RunningEmulator, stack: Stack, user: str, chat: int) -> None:
    """The lobby's goal set to one point (5 → 7 → 10 → 1), for a short game."""
    tap_token(emu, stack, user, chat, "C")
    for _ in range(3):
        tap_token(emu, stack, user, chat, "o:target")
    tap_token(emu, stack, user, chat, "o:done")
    assert table_games.rules_of(room_in(stack, chat).settings).target == 1


def moved(emu: RunningEmulator, stack: Stack, chat: int, version: int) -> None:
    emu.wait_for(lambda: room_in(stack, chat).version != version or None, what="a move")


def first_move(room: Room, seat: int) -> str:
    return callbacks.game_token(legal_actions(follow_suit(room), seat)[0])


def wait_news(emu: RunningEmulator, chat: str, lang: str) -> None:
    emu.wait_for(lambda: news_in(emu, chat, lang) or None, what=f"the end said in {chat}")


# ----- the games ------------------------------------------------------------------------


def test_a_game_against_bots_tapped_in_the_page(
    page: Page, emu: RunningEmulator, stack: Stack
) -> None:
    emu.send_message("Carla", "Carla", "/play spanish")
    lobby = emu.wait_for_message("Carla", lambda m: "▶️ Start" in m.button_texts)
    chat = lobby.chat_id
    one_point(emu, stack, "Carla", chat)
    tap_token(emu, stack, "Carla", chat, "S")  # Carla and one bot
    open_chat(page, emu, "Carla", "bot")
    turns = 0
    while (room := wait_turn(emu, stack, chat, "Carla")).status == "playing":
        hand = live_hand(emu, "Carla", room)
        assert hand is not None
        assert IDS["Carla"] in hand.notified, f"turn {turns}: it came without a notification"
        check_order(hand, "en")
        check_page(page, hand)
        button_in_page(page, hand, moves_in(hand, room)[0]).click()  # as Carla would
        moved(emu, stack, chat, room.version)
        turns += 1
    # one turn at least: her other moves may all be forced (an only card is played for
    # her), and a one-point game can be a single hand
    assert room.status == "over" and turns >= 1
    wait_news(emu, "Carla", "en")
    page.reload()
    expect(page.locator(".msg", has_text=words("en", "Scores: {scores}")).last).to_be_visible()


def test_a_group_game_each_player_told_in_their_chat(
    page: Page, emu: RunningEmulator, stack: Stack
) -> None:
    players = ("Ana", "Ben", "Carla")
    for name in players:
        emu.start(name)
    emu.send_message("Ana", GROUP, "/burro spanish")
    chat = emu.wait_for_message(GROUP, lambda m: action_button(m, "S") is not None).chat_id
    for name in players[1:]:
        tap_token(emu, stack, name, chat, "J")
    one_point(emu, stack, "Ana", chat)
    tap_token(emu, stack, "Ana", chat, "S")
    seen = {name: 0 for name in players}
    while (room := room_in(stack, chat)).status == "playing":
        seat = to_move(follow_suit(room))
        user = room.seats[seat].user_id if seat is not None else None
        if seat is None or user is None:
            moved(emu, stack, chat, room.version)
            continue
        name = NAMES[user]
        room = wait_turn(emu, stack, chat, name)
        hand = live_hand(emu, name, room)
        if hand is None:
            continue
        assert user in hand.notified, f"{name}'s turn came silently"
        check_order(hand, LANGS[name])
        if seen[name] == 0:  # each player's chat once in the page
            open_chat(page, emu, name, "bot")
            check_page(page, hand)
        seen[name] += 1
        emu.tap(name, hand, callbacks.encode(room.id, room.version, first_move(room, seat)))
        moved(emu, stack, chat, room.version)
    assert room.status == "over" and sum(seen.values()) >= 3  # forced moves play themselves
    told = {**LANGS, GROUP: "es"}  # the group's language: its opener's
    for where, lang in told.items():
        wait_news(emu, where, lang)
    for name in players:
        assert live_hand(emu, name, room) is None
