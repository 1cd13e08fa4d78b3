"""Where a hand is a widget: only where serve's probe found the Bot API takes widgets
(a 10.1 server does not: every hand is text), in private chats (a group's table is text
unless BURRO_TELEGRAM_WIDGETS_IN_GROUPS, Telegram's test server, where it is drawn with
no hand and no taps); never an ephemeral hand. Each service here is the product in this
process on its own emulator."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from emulator.config import fast_config
from emulator.telegram.driver import ChatMessage
from service.platforms.telegram import botfather, widgets
from tests.service.group_play import open_lobby, tap_lobby
from tests.service.inproc import Hook, running_service
from tests.service.play import GROUP, follow_suit_game, game_buttons, room_in
from tests.service.test_widget_hands import STAND_IN

WIDGET_CALLS = ("sendWidget", "editMessageWidgetData")


@pytest.fixture(autouse=True)
def stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(widgets, "document", lambda: STAND_IN)


def service(tmp_path: Path, **options: Any) -> Iterator[Hook]:
    with running_service(tmp_path, telegram_widgets=True, **options) as running:
        yield running
        assert running.worker is not None
        running.worker.check()


@pytest.fixture
def older(tmp_path: Path) -> Iterator[Hook]:
    yield from service(tmp_path, emulator=fast_config(bot_api="10.1"))


@pytest.fixture
def production(tmp_path: Path) -> Iterator[Hook]:
    yield from service(tmp_path)


@pytest.fixture
def test_server(tmp_path: Path) -> Iterator[Hook]:
    config = fast_config(widgets_in_groups=True)
    yield from service(tmp_path, emulator=config, telegram_widgets_in_groups=True)


def private_hand(stack: Hook, user: str) -> ChatMessage:
    """The user's hand in their private chat, once it shows their moves."""

    def shown() -> ChatMessage | None:
        for message in reversed(stack.emu.messages_in(user)):
            if "widget" in message.raw or game_buttons(message):
                return message
        return None

    return stack.emu.wait_for(shown, what=f"{user}'s hand")


def test_a_bot_api_without_widgets_gets_text_hands(older: Hook) -> None:
    assert botfather.widgets(older.redis) is False
    emu = older.emu
    emu.send_message("Carla", "Carla", "/play spanish")
    lobby = emu.wait_for_message("Carla", lambda m: "▶️ Start" in m.button_texts)
    emu.tap("Carla", lobby, "▶️ Start")
    hand = private_hand(older, "Carla")
    assert "widget" not in hand.raw and "Your cards" in hand.text
    # serve's probe asked (404); nothing else
    assert [c["error_code"] for c in emu.calls() if c["method"] in WIDGET_CALLS] == [404]


def group_game(stack: Hook) -> int:
    """A Spanish game of the family in the group, started."""
    chat = open_lobby(stack.emu, stack, "spanish")
    tap_lobby(stack.emu, "Ana", "S")
    stack.emu.wait_for(lambda: room_in(stack, chat).status == "playing" or None)
    return chat


def table_of(stack: Hook) -> ChatMessage:
    """The group's table (the bot's newest message there with a widget or a game's line)."""

    def shown() -> ChatMessage | None:
        for message in reversed(stack.emu.messages_in(GROUP)):
            if message.sender_id != 0 and ("widget" in message.raw or "🎴" in message.text):
                return message
        return None

    return stack.emu.wait_for(shown, what="the group's table")


def test_in_production_a_groups_table_is_text_and_hands_in_private_are_widgets(
    production: Hook,
) -> None:
    chat = group_game(production)
    assert "widget" not in table_of(production).raw
    hand = private_hand(production, "Ben")
    assert "widget" in hand.raw
    sent = [c for c in production.emu.calls("sendWidget")]
    assert sent and all(c["params"]["chat_id"] > 0 for c in sent)
    room = room_in(production, chat)
    seat = next(i for i, s in enumerate(room.seats) if s.name == "Ben")
    data = json.loads(hand.raw["widget"]["chat_data"])
    game = follow_suit_game(room_in(production, chat))
    assert {code for code, _tap in data["h"]} <= set(game.table.codec.codes(game.hand.hands[seat]))


def test_on_the_test_server_the_groups_table_is_drawn_without_a_hand(test_server: Hook) -> None:
    chat = group_game(test_server)

    def drawn() -> ChatMessage | None:
        table = table_of(test_server)
        return table if "widget" in table.raw else None

    table = test_server.emu.wait_for(drawn, what="the group's table drawn")
    raw = table.raw["widget"]["chat_data"]
    assert len(raw.encode()) <= 1024
    data = json.loads(raw)
    assert data["h"] == []  # nobody's cards
    game = follow_suit_game(room_in(test_server, chat))
    hidden = {c for hand in game.hand.hands for c in game.table.codec.codes(hand)}
    shown = {c for _seat, c in data["m"]} | set(data["n"])
    assert not shown & hidden
