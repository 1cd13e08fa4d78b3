"""Fixtures for the emulator's tests: a running emulator, a raw Bot API client, and a
webhook receiver whose answers a test scripts."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from emulator import RunningEmulator, ServerThread, running_emulator
from emulator.common import tls
from emulator.config import fast_config
from tests.conftest import WAIT_AT_MOST

TOKEN = "123456:TEST-token_abc"


@pytest.fixture
def emu(request: pytest.FixtureRequest) -> Iterator[RunningEmulator]:
    """A running emulator; a test may change its config, indirectly:
    `@pytest.mark.parametrize("emu", [{"bot_api": "10.1"}], indirect=True)`."""
    with running_emulator(fast_config(**getattr(request, "param", {}))) as running:
        running.timeout = WAIT_AT_MOST  # a loaded machine: a browser's tap may take seconds
        yield running


class BotApiClient:
    """Calls the Bot API as a bot would, over HTTP."""

    def __init__(self, url: str, token: str = TOKEN) -> None:
        self.http = httpx.Client(
            base_url=f"{url}/bot{token}/", trust_env=False, timeout=10, verify=tls.context()
        )

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """A JSON body; returns the whole answer."""
        response = self.http.post(method, json=params)
        body: dict[str, Any] = response.json()
        assert response.status_code == (200 if body["ok"] else body["error_code"])
        return body

    def form(self, method: str, **params: Any) -> dict[str, Any]:
        """A form body, nested values JSON-encoded (python-telegram-bot's way)."""
        data = {
            k: v if isinstance(v, str) else json.dumps(v)
            for k, v in params.items()
            if v is not None
        }
        response = self.http.post(method, data=data)
        body: dict[str, Any] = response.json()
        return body

    def ok(self, method: str, **params: Any) -> Any:
        body = self.call(method, **params)
        assert body["ok"], body
        return body["result"]

    def error(self, method: str, **params: Any) -> tuple[int, str]:
        body = self.call(method, **params)
        assert not body["ok"], body
        return body["error_code"], body["description"]

    def close(self) -> None:
        self.http.close()


@pytest.fixture
def api(emu: RunningEmulator) -> Iterator[BotApiClient]:
    client = BotApiClient(emu.url)
    client.ok("getMe")  # the bot exists from here on
    yield client
    client.close()


class Receiver:
    """A webhook endpoint that records what it gets and answers with scripted statuses
    (then 200)."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, Any], dict[str, str]]] = []
        self.statuses: dict[int, list[int]] = {}  # chat key -> statuses to answer first
        self.default_statuses: list[int] = []
        # What to answer an update with: a Bot API call for Telegram to run, or None.
        self.reply: Callable[[dict[str, Any]], dict[str, Any] | None] = lambda update: None

        async def hook(request: Request) -> Response:
            update = await request.json()
            self.received.append((update, dict(request.headers)))
            chat = _chat_key(update)
            queue = self.statuses.get(chat, self.default_statuses)
            status = queue.pop(0) if queue else 200
            answer = self.reply(update)
            if status == 200 and answer is not None:
                return JSONResponse(answer)
            return Response(status_code=status)

        self.app = Starlette(routes=[Route("/hook", hook, methods=["POST"])])

    @property
    def updates(self) -> list[dict[str, Any]]:
        return [update for update, _ in self.received]


def _chat_key(update: dict[str, Any]) -> int:
    for kind in ("message", "edited_message", "my_chat_member"):
        if kind in update:
            return int(update[kind]["chat"]["id"])
    if "callback_query" in update:
        return int(update["callback_query"]["message"]["chat"]["id"])
    return int(next(v for k, v in update.items() if k != "update_id")["from"]["id"])


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, str]]:
    hook = Receiver()
    with ServerThread(hook.app) as server:
        yield hook, f"{server.url}/hook"
