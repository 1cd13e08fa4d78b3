"""The emulator as one object, and the Starlette app that serves it.

Routes:
- `/bot<token>/<method>`: the Bot API (`botapi.py`);
- `/file/bot<token>/<file_path>`: file downloads, as on Telegram;
- `/_emulator/...`: the control API for tests, benchmarks and the web chat (`control.py`);
- `/`: the web chat (`web/`);
- `/v<version>/<id>/...`: the local WhatsApp Cloud API's Graph endpoints, and
  `/_emulator/whatsapp/...` its control API (`whatsapp/`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from emulator.common import tls
from emulator.config import EmulatorConfig
from emulator.telegram.actions import UserActions
from emulator.telegram.botapi import MAX_UPLOAD, BotApi
from emulator.telegram.errors import ApiError, bad_request, internal_error, not_found
from emulator.telegram.limits import FloodControl
from emulator.telegram.params import Params, Upload
from emulator.telegram.webhook import Delivery
from emulator.telegram.world import Bot, World
from emulator.whatsapp.cloud import WhatsAppCloud

log = logging.getLogger("emulator")

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
        values as a JSON request's (read_params)."""
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


def api_response(error: ApiError) -> JSONResponse:
    return JSONResponse(error.to_json(), status_code=error.error_code)


async def read_params(request: Request) -> Params:
    """Parameters from the query string and a JSON, form or multipart body."""
    values: dict[str, Any] = dict(request.query_params)
    files: dict[str, Upload] = {}
    if request.method != "POST":
        return Params(values)
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == "multipart/form-data":
        try:
            form = await request.form(max_part_size=MAX_UPLOAD)
        except Exception:
            raise bad_request("can't parse multipart/form-data body") from None
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                content = await value.read()
                files[key] = Upload(value.filename or key, content, value.content_type)
            else:
                values[key] = value
        return Params(values, files)
    body = await request.body()
    if content_type == "application/json":
        if body.strip():
            try:
                data = json.loads(body)
            except ValueError:
                raise bad_request("can't parse JSON object") from None
            if not isinstance(data, dict):
                raise bad_request("can't parse JSON object")
            values.update(data)
        return Params(values)
    text = body.decode("utf-8", errors="replace")
    values.update(parse_qsl(text, keep_blank_values=True))
    return Params(values)


def create_app(emulator: Emulator | EmulatorConfig | None = None) -> Starlette:
    """The emulator's ASGI app; `app.state.emulator` is the `Emulator` it serves."""
    from emulator.telegram.control import control_routes
    from emulator.whatsapp.control import control_routes as whatsapp_control_routes
    from emulator.whatsapp.graph import graph_routes

    emu = emulator if isinstance(emulator, Emulator) else Emulator(emulator)

    async def bot_api(request: Request) -> Response:
        token = request.path_params["token"]
        method = request.path_params["method"]
        try:
            params = await read_params(request)
            result = await emu.api.call(token, method, params)
        except ApiError as error:
            return api_response(error)
        except Exception:
            log.exception("Bot API call %s failed", method)
            return api_response(internal_error())
        return JSONResponse({"ok": True, "result": result})

    async def file_download(request: Request) -> Response:
        try:
            emu.world.bot_for_token(request.path_params["token"])
        except ApiError as error:
            return api_response(error)
        path = request.path_params["path"]
        for stored in emu.world.files.values():
            if stored.file_path == path:
                return Response(stored.content, media_type=stored.mime_type)
        return api_response(not_found())

    async def index(request: Request) -> Response:
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-store"})

    async def http_error(request: Request, exc: Exception) -> Response:
        code = exc.status_code if isinstance(exc, HTTPException) else 500
        description = "Not Found" if code == 404 else "Method Not Allowed" if code == 405 else None
        return api_response(ApiError(code, description or "Internal Server Error"))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        emu.whatsapp.start()
        yield
        await emu.close()

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/bot{token}/{method}", bot_api, methods=["GET", "POST"]),
            Route("/file/bot{token}/{path:path}", file_download),
            Mount("/_emulator/whatsapp", routes=whatsapp_control_routes(emu.whatsapp)),
            Mount("/_emulator", routes=control_routes(emu)),
            Mount("/static", StaticFiles(directory=WEB_DIR), name="static"),
            *graph_routes(emu.whatsapp),
        ],
        exception_handlers={HTTPException: http_error, Exception: http_error},
        lifespan=lifespan,
    )
    app.state.emulator = emu
    return app
