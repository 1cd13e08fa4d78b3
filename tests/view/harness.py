"""The table's view in this process, for its tests and its bench: `serve`'s view routes
(service.view.routes) over fakeredis, driven as ASGI on the test's own event loop, with
an event stream read as it comes (httpx's ASGI transport waits for a whole body, which a
stream never ends), Mini App launches signed as Telegram signs them, and games played
through the store as the chat's presses play them."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Any
from urllib.parse import urlencode

import fakeredis
import fakeredis.aioredis
import httpx
from pydantic import SecretStr
from starlette.applications import Starlette

from service.access.checks import init_data_hash
from service.desk.asks import Place, PressAsk, Reply, Request, Sender
from service.desk.desk import Desk
from service.infra.store import Store
from service.infra.view_links import ViewAccess
from service.platforms.links import ServiceLinks
from service.platforms.telegram.manual import TelegramManual
from service.services import Services
from service.settings import Settings
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings
from service.ui.intents import Move, Press
from service.view.live import Paint
from service.view.routes import TableView

TOKEN = "123456:TEST-token-of-the-bot"
WAIT = 5.0  # seconds a test waits for an event before it fails


@dataclass
class Clock:
    """The views' clock (tokens' ages and renewals), moved by the test."""

    now: float = field(default_factory=time.time)

    def __call__(self) -> float:
        return self.now


class Views:
    """The view's routes on fakeredis (one Redis server shared by every `Views` made
    with the same `server`: a restarted `serve`), with the desk behind them."""

    def __init__(
        self,
        server: fakeredis.FakeServer | None = None,
        clock: Clock | None = None,
        paint: Paint | None = None,
        **settings: Any,
    ) -> None:
        self.server = server or fakeredis.FakeServer()
        self.clock = clock or Clock()
        self.redis = fakeredis.FakeRedis(server=self.server)
        self.aredis = fakeredis.aioredis.FakeRedis(server=self.server)
        options: dict[str, Any] = {"telegram_token": SecretStr(TOKEN), "bot_delay": 0.0}
        options["view_link_secret"] = SecretStr("a view link secret for the tests, 32+ bytes")
        self.settings = Settings(**(options | settings))
        self.store = Store.of(self.redis, self.settings, self.aredis)
        self.svc = Services(self.settings, self.store)
        access = replace(ViewAccess.of(self.redis, self.settings, TOKEN), clock=self.clock)
        self.view = TableView(access, self.svc, self.aredis, paint)
        self.view.desks = {"telegram": Desk(self.svc, TelegramManual(), ServiceLinks(self.svc))}
        self.app = Starlette(routes=self.view.routes())
        self.marks = 0  # the chat's update ids
        self.http = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.app), base_url="http://view.test"
        )

    async def __aenter__(self) -> Views:
        await self.view.live.start()
        await asyncio.wait_for(self.view.live.listening.wait(), WAIT)
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.view.live.stop()
        await self.http.aclose()

    # ----- requests --------------------------------------------------------------------

    async def open(self, **body: Any) -> httpx.Response:
        return await self.http.post("/view/open", json=body)

    async def opened(self, **body: Any) -> dict[str, Any]:
        answer = await self.open(**body)
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        return found

    async def press(self, token: str, tap: str, mark: str) -> httpx.Response:
        headers = {"authorization": f"Bearer {token}"}
        return await self.http.post("/view/press", json={"tap": tap, "mark": mark}, headers=headers)

    def stream(self, token: str, lang: str = "en") -> Stream:
        return Stream(self.app, f"/view/events?lang={lang}", token)

    def launch(self, user: int, room: str | None, lang: str = "en", age: float = 0) -> str:
        """A Mini App's initData for `user`, signed with the bot's token `age` seconds ago."""
        person = {"id": user, "first_name": f"P{user}", "language_code": lang}
        fields = {"auth_date": str(int(self.clock() - age)), "user": json.dumps(person)}
        fields |= {"query_id": "AAF"} if room is None else {"start_param": room}
        return urlencode(fields | {"hash": init_data_hash(fields, TOKEN)})

    def link(self, person: int, room: str) -> str:
        """A WhatsApp link's token for the person's view of the room."""
        token = self.view.access.link(person, room)
        assert token is not None
        return token

    # ----- games -----------------------------------------------------------------------

    def new_game(
        self,
        people: int = 3,
        preset: str = "spanish",
        langs: tuple[str, ...] = (),
        chat: int = -100,
        first: int = 1001,
    ) -> Room:
        """A group's game of `people` (ids `first` on), dealt and started."""
        actors = [
            Actor(first + i, f"P{i}", langs[i] if i < len(langs) else "en") for i in range(people)
        ]
        now = time.time()
        room = lobby.create_room(chat, None, actors[0], now, settings=RoomSettings(preset=preset))
        for actor in actors[1:]:
            lobby.join(room, actor)
        assert self.store.create(room, lobby.start(room, actors[0], now, 0.0), None)
        found = self.store.load(room.id)
        assert found is not None
        return found

    def room(self, room_id: str) -> Room:
        found = self.store.load(room_id)
        assert found is not None
        return found

    async def chat_press(self, room: Room, user: int, action: str) -> Reply:
        """A move's button pressed in the chat (as Telegram's webhook hands it to the
        desk), then applied as a worker applies it."""
        self.marks += 1
        press = Press(room.id, room.phase_version, Move(action))
        request = Request(
            self.marks, Sender(user, f"P{user}"), Place(room.chat_id, None, False), PressAsk(press)
        )
        handled = await self.view.desks["telegram"].handle(request)
        assert handled.outcome == "ok", handled
        self.apply_queued(room.id)
        return handled.reply

    def apply_queued(self, room_id: str) -> Room:
        """What a worker's press job does: the room's queued presses applied."""
        result = self.store.update(room_id, lambda fresh: Outcome())
        assert result is not None
        return result[0]


class Stream:
    """GET /view/events, run on this loop; its events read one by one as they come."""

    def __init__(self, app: Starlette, path: str, token: str) -> None:
        raw, _, query = path.partition("?")
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": raw,
            "raw_path": raw.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(b"host", b"view.test"), (b"authorization", f"Bearer {token}".encode())],
            "client": ("127.0.0.1", 1),
            "server": ("view.test", 80),
        }
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.chunks: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.gone = asyncio.Event()
        self.asked = False
        self.buffer = ""
        self.comments = 0
        self.last: Any = None  # the last picture read
        self.task = asyncio.create_task(app(self.scope, self.receive, self.send))

    async def receive(self) -> dict[str, Any]:
        if not self.asked:
            self.asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.decode(): v.decode() for k, v in message.get("headers", [])}
        elif message["type"] == "http.response.body":
            await self.chunks.put(message.get("body", b""))
            if not message.get("more_body", False):
                await self.chunks.put(None)

    async def event(self, timeout: float = WAIT) -> tuple[str, Any] | None:
        """The next event (name, data), or None once the stream has ended."""
        async with asyncio.timeout(timeout):
            while True:
                block, found, rest = self.buffer.partition("\n\n")
                if found:
                    self.buffer = rest
                    parsed = parse(block)
                    if parsed is not None:
                        self.last = parsed[1] if parsed[0] == "picture" else self.last
                        return parsed
                    self.comments += 1
                    continue
                chunk = await self.chunks.get()
                if chunk is None:
                    return None
                self.buffer += chunk.decode()

    async def body(self) -> bytes:
        """The whole answer of a stream that ends at once (a refusal)."""
        parts = []
        while (chunk := await asyncio.wait_for(self.chunks.get(), WAIT)) is not None:
            parts.append(chunk)
        return b"".join(parts)

    async def pictures_until(self, done: Callable[[dict[str, Any]], bool]) -> list[Any]:
        """The pictures that come until one is `done` (that one last)."""
        seen: list[Any] = []
        while True:
            found = await self.event()
            assert found is not None, f"the stream ended after {len(seen)} pictures"
            name, data = found
            if name == "picture":
                seen.append(data)
                if done(data):
                    return seen

    async def close(self) -> None:
        self.gone.set()
        await asyncio.wait_for(self.task, WAIT)


def parse(block: str) -> tuple[str, Any] | None:
    """An event's name and JSON data; None for a comment (a heartbeat)."""
    name, data = "message", None
    for line in block.split("\n"):
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            data = json.loads(line.removeprefix("data: "))
    return None if data is None else (name, data)
