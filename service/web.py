"""`burro serve`: the webhook web process (Starlette + uvicorn): each chat platform's
webhook route (`service.platforms.<name>.webhook`), the table's view (`/view`,
service.view.routes), `/healthz` and `/metrics`. A new
platform is its adapter plus its route here."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis
import redis.asyncio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from service.desk.ports import Manual
from service.infra import metrics
from service.infra.outage import UNAVAILABLE
from service.infra.redis_server import aconnect_jobs, aconnect_state, connect_jobs, connect_state
from service.infra.store import Store
from service.platforms.base import ASGIApp, Receive, Scope, Send, Webhook
from service.platforms.links import ServiceLinks
from service.platforms.telegram import webhook as telegram
from service.platforms.telegram.manual import TelegramManual
from service.platforms.whatsapp import webhook as whatsapp
from service.platforms.whatsapp.manual import WhatsAppManual
from service.services import Services
from service.settings import Settings
from service.view import routes as view_routes


def create_app(
    settings: Settings | None = None,
    client: redis.Redis | None = None,
    aclient: redis.asyncio.Redis | None = None,
) -> ASGIApp:
    """The app; `client` and `aclient` (the event loop's, for the updates' own round
    trips) are made from the settings if not given."""
    settings = settings or Settings()
    assert settings.redis_url is not None, "serve needs BURRO_REDIS_URL (burro local sets it)"
    client = client or connect_state(settings)
    aclient = aclient or aconnect_state(settings)
    jobs, ajobs = connect_jobs(settings), aconnect_jobs(settings)
    svc = Services(settings, Store.of(client, settings, aclient, jobs, ajobs))
    metrics.watch_redis(client, jobs)
    links = ServiceLinks(svc)  # every platform's links to a table, for each platform's desk
    hooks = [telegram.webhook(settings, svc, client, links)]
    if settings.whatsapp:  # else the service is Telegram's alone
        hooks.append(whatsapp.webhook(settings, svc, client, links))
    manuals: dict[str, Manual] = {"telegram": TelegramManual(), "whatsapp": WhatsAppManual()}
    hooks.append(view_routes.webhook(settings, svc, client, aclient, links, manuals))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        for hook in hooks:
            await hook.startup()
        try:
            yield
        finally:
            for hook in hooks:
                await hook.shutdown()
            await aclient.aclose()

    async def healthz(request: Request) -> Response:
        try:
            await aclient.ping()
        except UNAVAILABLE:
            return JSONResponse({"ok": False, "redis": "unreachable"}, status_code=503)
        return JSONResponse({"ok": True})

    async def metrics_page(request: Request) -> Response:
        body, content_type = metrics.render()
        return Response(body, media_type=content_type)

    routes = [route for hook in hooks for route in hook.routes]
    routes += [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", metrics_page, methods=["GET"]),
    ]
    return in_front(Starlette(routes=routes, lifespan=lifespan), hooks)


def in_front(starlette: Starlette, hooks: list[Webhook]) -> ASGIApp:
    """The webhooks' plain paths (Webhook.plain) answered before Starlette sees them."""
    plain = {path: app for hook in hooks for path, app in hook.plain.items()}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        handler = plain.get(scope["path"]) if scope["type"] == "http" else None
        await (handler or starlette)(scope, receive, send)

    return app
