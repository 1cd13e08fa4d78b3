"""The webhook app for fuzzing: `service.web.create_app` served on a thread (the real
uvicorn, Starlette and python-telegram-bot path), real Redis, and the emulator as the
Bot API (so replies and popups land in chats we can read). A two-player group game is in
play, so that fuzzed presses meet a live table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from bench.games import follow_suit
from cli.stack import SECRET, TOKEN
from emulator import RunningEmulator, ServerThread, running_emulator
from engine.follow_suit.game import legal_actions, to_move
from service.infra import tls
from service.infra.redis_server import RedisServer, connect
from service.infra.store import Store, presses_key
from service.platforms.telegram import callbacks
from service.settings import Settings
from service.table.outcome import Outcome
from service.table.room import Room
from service.web import create_app
from tests.service import inproc
from tests.service.inproc import GROUP, press

ANA: dict[str, Any] = {"id": 100001, "is_bot": False, "first_name": "Ana", "language_code": "es"}
BEN: dict[str, Any] = {"id": 100002, "is_bot": False, "first_name": "Ben", "language_code": "pt-br"}


@dataclass
class Webhook:
    url: str
    store: Store
    emu: RunningEmulator
    http: httpx.Client

    def post(self, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
        sent = {"content-type": "application/json", "X-Telegram-Bot-Api-Secret-Token": SECRET}
        return self.http.post(f"{self.url}/telegram/webhook", content=body, headers=headers or sent)

    def send(self, update: dict[str, Any]) -> httpx.Response:
        return self.post(json.dumps(update).encode())

    def room(self) -> Room:
        """The group's room; a new game if the last one is gone (the fuzz may remove the
        bot from the group, which ends its game)."""
        room = self.store.room_in_chat(GROUP, None)
        if room is None:
            self.open_game()
            room = self.store.room_in_chat(GROUP, None)
        assert room is not None
        return room

    def settle(self) -> Room:
        """The group's room with the presses `serve` answered and queued applied, as the
        worker's press job would (no worker runs here): a queued press would otherwise
        be applied by whichever later change comes first, and look like that change's."""
        room = self.room()
        if self.store.redis.llen(presses_key(room.id)):
            self.store.update(room.id, lambda fresh: Outcome())
            room = self.room()
        return room

    def open_game(self) -> None:
        """A game of two in the group: Ana opens it, Ben joins, Ana starts it."""
        assert self.send(command("/burro spanish")).status_code == 200
        room = self.store.room_in_chat(GROUP, None)
        assert room is not None
        self.send(press(BEN, callbacks.encode(room.id, room.version, "J"), GROUP))
        room = self.room()
        self.send(press(ANA, callbacks.encode(room.id, room.version, "S"), GROUP))
        assert self.room().status == "playing"

    def legal_presses(self, room: Room) -> list[tuple[int, str]]:
        """(user id, button data) of every legal move now."""
        game = follow_suit(room)
        seat = to_move(game)
        if seat is None or room.status != "playing":
            return []
        user = room.seats[seat].user_id or 0
        return [
            (user, callbacks.encode(room.id, room.version, callbacks.game_token(action)))
            for action in legal_actions(game, seat)
        ]


def command(text: str, user: dict[str, Any] = ANA, chat: int = GROUP) -> dict[str, Any]:
    """A command update, in the group unless told (tests.service.inproc.command)."""
    return inproc.command(text, user, chat)


@pytest.fixture(scope="package")
def webhook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Webhook]:
    folder: Path = tmp_path_factory.mktemp("fuzz")
    with RedisServer(folder / "redis", persist=False) as redis, running_emulator() as emu:
        settings = Settings(
            telegram_token=SecretStr(TOKEN),
            webhook_secret=SecretStr(SECRET),
            telegram_api_url=emu.api_url,
            redis_url=redis.url,
            bot_delay=3600,  # nothing moves but what a request sends
            max_body_bytes=64 * 1024,
        )
        client = connect(redis.url)
        with ServerThread(create_app(settings, client)) as server, httpx.Client(
            timeout=30, verify=tls.context()
        ) as http:  # fmt: skip
            hook = Webhook(server.url, Store(client, 3600, 3600), emu, http)
            for user in (ANA, BEN):  # both opened the bot's private chat
                emu.start(user["first_name"])
                assert hook.send(command("/start", user, user["id"])).status_code == 200
            hook.open_game()
            yield hook
