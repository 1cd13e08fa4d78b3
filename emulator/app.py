"""The emulator as one object, and the Starlette app that serves it.

Routes (each table a class with a method per route):
- `/bot<token>/<method>`: the Bot API, and `/file/bot<token>/<file_path>`: file
  downloads, as on Telegram (`telegram/routes.py`, `telegram/botapi.py`);
- `/_emulator/...`: the control API for tests, benchmarks and the web chat
  (`telegram/control.py`);
- `/`: the web chat (`web/`);
- `/v<version>/<id>/...`: the local WhatsApp Cloud API's Graph endpoints, and
  `/_emulator/whatsapp/...` its control API (`whatsapp/`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from emulator.common import tls
from emulator.config import EmulatorConfig
from emulator.telegram.actions import UserActions
from emulator.telegram.botapi import BotApi
from emulator.telegram.control import TelegramControl
from emulator.telegram.errors import ApiError
from emulator.telegram.limits import FloodControl
from emulator.telegram.params import Params
from emulator.telegram.routes import BotApiRoutes, api_response
from emulator.telegram.webhook import Delivery
from emulator.telegram.world import Bot, World
from emulator.whatsapp.cloud import WhatsAppCloud
from emulator.whatsapp.control import WhatsAppControl
from emulator.whatsapp.graph import GraphRoutes

WEB_DIR = Path(__file__).resolve().parent / "web"


class Emulator:
    """Everything the emulator knows and does; lives on the server's event loop."""

    def __init__(self, config: EmulatorConfig | None = None) -> None:
        self.config = config or EmulatorConfig()
        self.world = World(self.config)
        self.flood = FloodControl(self.config.flood_limits)
        self.api = BotApi(self.world, self.flood, self.delivery)
        self.actions = UserActions(self.world, self.delivery)
        self._deliveries: dict[int, Delivery] = {}
        self._http: httpx.AsyncClient | None = None
        self.whatsapp = WhatsAppCloud(self.config.whatsapp, self.http)
        for token in self.config.tokens:
            self.world.bot_for_token(token)

    def http(self) -> httpx.AsyncClient:
        if self._http is None:
            # trust_env=False: webhooks go where they say, never through a proxy.
            self._http = httpx.AsyncClient(trust_env=False, verify=tls.context())
        return self._http

    def delivery(self, bot: Bot) -> Delivery:
        found = self._deliveries.get(bot.id)
        if found is None:
            found = self._deliveries[bot.id] = Delivery(
                bot, self.world, self.http, reply=self.webhook_reply
            )
        return found

    async def webhook_reply(self, bot: Bot, method: str, values: dict[str, Any]) -> Any:
        """A Bot API call that came in a webhook's answer (logged with via="webhook"); its
        values as a JSON request's (telegram/routes.py, read_params)."""
        return await self.api.call(bot.token, method, Params(values), via="webhook")

    def set_flood_limits(self, enabled: bool) -> None:
        self.flood.limits = dataclasses.replace(self.flood.limits, enabled=enabled)

    def close_streams(self) -> None:
        """End the web chat's event streams (the Telegram and WhatsApp ones), so that a
        stopping server need not wait for them."""
        self.world.events.close()
        self.whatsapp.world.events.close()

    async def close(self) -> None:
        for delivery in self._deliveries.values():
            await delivery.close()
        await self.whatsapp.close()
        if self._http is not None:
            await self._http.aclose()
            self._http = None


async def index(request: Request) -> Response:
    """The web chat's page."""
    return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-store"})


async def http_error(request: Request, exc: Exception) -> Response:
    """A path or method nobody serves, or a failure: answered in the Bot API's shape."""
    code = exc.status_code if isinstance(exc, HTTPException) else 500
    description = "Not Found" if code == 404 else "Method Not Allowed" if code == 405 else None
    return api_response(ApiError(code, description or "Internal Server Error"))


def create_app(emulator: Emulator | EmulatorConfig | None = None) -> Starlette:
    """The emulator's ASGI app; `app.state.emulator` is the `Emulator` it serves."""
    emu = emulator if isinstance(emulator, Emulator) else Emulator(emulator)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        emu.whatsapp.start()
        yield
        await emu.close()

    app = Starlette(
        routes=[
            Route("/", index),
            *BotApiRoutes(emu.api, emu.world).routes(),
            Mount("/_emulator/whatsapp", routes=WhatsAppControl(emu.whatsapp).routes()),
            Mount("/_emulator", routes=TelegramControl(emu).routes()),
            Mount("/static", StaticFiles(directory=WEB_DIR), name="static"),
            *GraphRoutes(emu.whatsapp).routes(),
        ],
        exception_handlers={HTTPException: http_error, Exception: http_error},
        lifespan=lifespan,
    )
    app.state.emulator = emu
    return app
