"""`burro serve`: the webhook web process (Starlette + uvicorn).

POST /telegram/webhook: 403 without the right secret header, 413 for a body over the
limit, 400 for a body that is not an Update, 503 while Redis is unreachable (Telegram
retries), else the update is processed and committed before we answer 200. Permanent
errors are logged and answered 200 too, so one bad update never stalls a chat.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import redis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from telegram import Update

from service.redis_server import connect
from service.services import Services
from service.settings import Settings
from service.store import Conflict, Store
from service.tg.app import build_application, handler_error

log = logging.getLogger("burro.serve")
SECRET_HEADER = "x-telegram-bot-api-secret-token"


class BodyTooLarge(Exception):
    pass


async def read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BodyTooLarge
    return body


def create_app(settings: Settings | None = None, client: redis.Redis | None = None) -> Starlette:
    settings = settings or Settings()
    token, secret = settings.require_serve()
    assert settings.redis_url is not None, "serve needs BURRO_REDIS_URL (burro local sets it)"
    client = client or connect(settings.redis_url)
    svc = Services(settings, Store(client, settings.retention, settings.dedupe_ttl))
    application = build_application(svc, token, settings.telegram_api_url)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await application.initialize()
        svc.bot_username = application.bot.username or settings.bot_username
        client.set("bot:username", svc.bot_username)
        try:
            yield
        finally:
            await application.shutdown()

    async def webhook(request: Request) -> Response:
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), secret.encode()):
            return PlainTextResponse("forbidden", status_code=403)
        try:
            body = await read_body(request, settings.max_body_bytes)
        except BodyTooLarge:
            return PlainTextResponse("body too large", status_code=413)
        update = parse_update(body, application)
        if update is None:
            return PlainTextResponse("not a Telegram update", status_code=400)
        return await process(update)

    async def process(update: Update) -> Response:
        try:
            if svc.store.seen(update.update_id):
                return PlainTextResponse("duplicate")
        except redis.RedisError:
            return PlainTextResponse("storage unavailable", status_code=503)
        handler_error.set(None)
        await application.process_update(update)
        error = handler_error.get()
        if isinstance(error, redis.RedisError | Conflict):
            log.warning("update %s not committed: %r", update.update_id, error)
            return PlainTextResponse("storage unavailable", status_code=503)
        if error is not None:
            log.error("update %s failed permanently", update.update_id, exc_info=error)
        return PlainTextResponse("ok")

    async def healthz(request: Request) -> Response:
        try:
            client.ping()
        except redis.RedisError:
            return JSONResponse({"ok": False, "redis": "unreachable"}, status_code=503)
        return JSONResponse({"ok": True})

    return Starlette(
        routes=[
            Route("/telegram/webhook", webhook, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
        ],
        lifespan=lifespan,
    )


def parse_update(body: bytes, application: Any) -> Update | None:
    """An Update from a request body, or None if it is not one."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
        return None
    try:
        return Update.de_json(data, application.bot)
    except Exception:  # PTB raises various errors on malformed nested objects
        return None
