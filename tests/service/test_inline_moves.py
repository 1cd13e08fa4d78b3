"""Inline mode's moves go through the desk as presses (service.platforms.telegram.inline):
a chosen result or its Confirm becomes a `PressAsk` for the desk; only inline mode's own
checks (a card that cannot be played, the chooser's seat) answer before it. And the
adapter's other own updates find their handler without PTB's Application (app.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import fakeredis
import pytest
from telegram import Update

from service.desk.asks import PressAsk, Reply, Request
from service.desk.desk import Desk, Handled
from service.infra.store import Store
from service.platforms.telegram import app, changes, inline
from service.platforms.telegram.answer import Exchange
from service.platforms.telegram.manual import TelegramManual
from service.services import Services
from service.settings import Settings
from service.table import lobby
from service.table.lobby import Actor
from service.table.room import RoomSettings
from service.ui.intents import Move

ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")
USER = {"is_bot": False, "language_code": "en"}


class Recording(Desk):
    """A desk that records the requests it is given and answers each with `reply`."""

    def __init__(self, svc: Services, reply: Reply) -> None:
        super().__init__(svc, TelegramManual(), links=None)  # type: ignore[arg-type]
        self.requests: list[Request] = []
        self.reply = reply

    async def handle(self, request: Request) -> Handled:
        self.requests.append(request)
        return Handled("ok", self.reply)


class Bot:
    """Records the edits of a posted message."""

    def __init__(self) -> None:
        self.edits: list[tuple[str, dict[str, Any]]] = []

    async def edit_message_reply_markup(self, **params: Any) -> None:
        self.edits.append(("markup", params))

    async def edit_message_text(self, text: str, **params: Any) -> None:
        self.edits.append((text, params))


@pytest.fixture
def svc() -> Services:
    return Services(Settings(), Store(fakeredis.FakeRedis(), 3600, 3600))


def seated_room(svc: Services) -> str:
    """A room where Ana has seat 0 and Ben seat 1."""
    room = lobby.create_room(-100, None, ANA, time.time(), settings=RoomSettings())
    lobby.join(room, BEN)
    assert svc.store.create(room, lobby.changed(room), None)
    return room.id


def confirm(room: str, by: int, seat: int, token: str = "d") -> Update:
    query = {
        "id": "q1",
        "chat_instance": "c",
        "from": {"id": by, "first_name": "X", **USER},
        "inline_message_id": "posted",
        "data": f"{room}.3.i{seat}:{token}",
    }
    return Update.de_json({"update_id": 10, "callback_query": query}, None)


def chosen(room: str, by: int, token: str = "d") -> Update:
    result = {
        "result_id": f"{room}.3.{token}",
        "from": {"id": by, "first_name": "X", **USER},
        "query": f"g{room}",
        "inline_message_id": "posted",
    }
    return Update.de_json({"update_id": 11, "chosen_inline_result": result}, None)


def move(desk: Desk, update: Update, bot: Bot) -> tuple[Handled, Exchange]:
    found = inline.chosen_of(update)
    assert found is not None
    exchange = Exchange(None)
    handled = asyncio.run(inline.make_move(desk, exchange, found, bot))  # type: ignore[arg-type]
    return handled, exchange


def test_a_confirm_by_its_chooser_is_a_press_for_the_desk(svc: Services) -> None:
    room, bot = seated_room(svc), Bot()
    desk = Recording(svc, Reply())  # queued for a worker: no popup
    handled, exchange = move(desk, confirm(room, BEN.user_id, 1), bot)
    [request] = desk.requests
    assert isinstance(request.ask, PressAsk) and request.ask.press.what == Move("draw")
    assert request.mark == 10 and request.sender.player == BEN.user_id
    assert request.place == inline.NOWHERE
    assert handled.outcome == "ok" and exchange.answer["callback_query_id"] == "q1"
    assert bot.edits == [("markup", {"inline_message_id": "posted"})]  # the Confirm goes


def test_a_confirm_by_anyone_else_is_refused_before_the_desk(svc: Services) -> None:
    room, bot = seated_room(svc), Bot()
    desk = Recording(svc, Reply())
    _handled, exchange = move(desk, confirm(room, ANA.user_id, 1), bot)
    assert desk.requests == []
    assert exchange.answer["text"] == "Only the player who chose this card can confirm it."
    assert bot.edits == []  # the posted message waits for its chooser


def test_a_card_that_cannot_be_played_is_said_in_the_posted_message(svc: Services) -> None:
    room, bot = seated_room(svc), Bot()
    desk = Recording(svc, Reply())
    move(desk, chosen(room, BEN.user_id, token="n3"), bot)
    assert desk.requests == []
    assert bot.edits == [("🃏 That card cannot be played now.", {"inline_message_id": "posted"})]


def test_a_chosen_result_the_desk_refuses_says_why_in_the_posted_message(
    svc: Services,
) -> None:
    room, bot = seated_room(svc), Bot()
    desk = Recording(svc, Reply(popup="Not your turn."))
    _handled, exchange = move(desk, chosen(room, BEN.user_id), bot)
    assert len(desk.requests) == 1 and exchange.answer == {}  # no query to answer
    assert bot.edits == [("🃏 Not your turn.", {"inline_message_id": "posted"})]


def test_a_chosen_result_the_desk_applied_loses_its_confirm(svc: Services) -> None:
    room, bot = seated_room(svc), Bot()
    desk = Recording(svc, Reply(popup="You drew.", quiet=True))  # applied at once
    move(desk, chosen(room, BEN.user_id), bot)
    assert bot.edits == [("markup", {"inline_message_id": "posted"})]


def test_the_adapters_own_updates_find_their_handlers() -> None:
    user = {"id": 1, "first_name": "Ana", **USER}
    chat = {"id": -100, "type": "supergroup", "title": "Family"}
    anonymous = {
        "message_id": 1,
        "date": 0,
        "chat": chat,
        "sender_chat": chat,
        "text": "/burro",
        "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
    }
    member = {"user": {"id": 9, "first_name": "Burro", "is_bot": True}, "status": "left"}
    removed = {
        "chat": chat,
        "from": user,
        "date": 0,
        "old_chat_member": {**member, "status": "member"},
        "new_chat_member": member,
    }
    query = {"id": "7", "from": user, "query": "gabc", "offset": ""}
    updates = {
        "message": (anonymous, changes.refuse_anonymous),
        "my_chat_member": (removed, changes.on_membership),
        "inline_query": (query, inline.on_inline_query),
    }
    for kind, (body, handler) in updates.items():
        assert app.own_handler(Update.de_json({"update_id": 1, kind: body}, None)) is handler
    plain = {**anonymous, "sender_chat": None, "from": user, "text": "hi", "entities": []}
    assert app.own_handler(Update.de_json({"update_id": 2, "message": plain}, None)) is None
