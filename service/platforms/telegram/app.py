"""The python-telegram-bot application: built once per process with no updater (the
webhook feeds it), handlers registered in one place, no per-process game state."""

from __future__ import annotations

import contextvars
import importlib.util
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    ChosenInlineResultHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    filters,
)
from telegram.request import HTTPXRequest

from service.infra import tls
from service.platforms.telegram import changes, inline
from service.platforms.telegram.counting import CountingRequest
from service.services import Services

Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE, Services], Awaitable[None]]

# httpcore runs `import sniffio` on every request to tell asyncio from trio, and falls
# back to asyncio when the import fails. Without sniffio installed, each Bot API call paid
# for a failed import (a search of sys.path: 13% of serve's time at saturation, see
# BENCHMARKS.md). A None entry makes the import fail at once, with the same outcome.
if importlib.util.find_spec("sniffio") is None:
    sys.modules.setdefault("sniffio", None)  # type: ignore[arg-type]

# The exception a handler raised while processing the current update, so the webhook
# can answer 503 (Redis down: Telegram retries) instead of 200.
handler_error: contextvars.ContextVar[BaseException | None] = contextvars.ContextVar(
    "handler_error", default=None
)

Callback = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]
ErrorCallback = Callable[[object, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]


def bind(handler: Handler, svc: Services) -> Callback:
    async def run(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await handler(update, context, svc)

    return run


def error_handler(svc: Services) -> ErrorCallback:
    async def remember_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Keep the handler's error for the webhook's answer; a group found upgraded to a
        supergroup, or a forum topic found closed or deleted, is handled here (its rooms
        move, its game ends) and is no failure."""
        if not await changes.handled(update, context, svc):
            handler_error.set(context.error)

    return remember_error


def build_application(svc: Services, token: str, api_url: str) -> Application:  # type: ignore[type-arg]
    app = (
        Application.builder()
        .token(token)
        .base_url(f"{api_url.rstrip('/')}/bot")
        .base_file_url(f"{api_url.rstrip('/')}/file/bot")
        .updater(None)
        # At most as many connections as Telegram sends updates at once: each update
        # makes one call or two, and every idle connection in a bigger pool is scanned on
        # every call (httpcore), which cost serve a fifth of its time at saturation.
        .request(
            CountingRequest(
                connection_pool_size=svc.settings.webhook_max_connections,
                httpx_kwargs={"verify": tls.context()},
            )
        )
        # Built even with no updater (never used): with the shared context it costs nothing.
        .get_updates_request(HTTPXRequest(httpx_kwargs={"verify": tls.context()}))
        .build()
    )
    # The desk takes commands, typed words and presses (service.platforms.telegram.
    # commands); what is left is Telegram's own: a command sent as a chat, a group's
    # upgrade, a topic closed, the bot removed, and inline mode.
    anonymous = filters.COMMAND & filters.SenderChat.ALL
    app.add_handler(MessageHandler(anonymous, bind(changes.refuse_anonymous, svc)), group=-1)
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, bind(changes.on_migrate, svc)))
    closed = filters.StatusUpdate.FORUM_TOPIC_CLOSED
    app.add_handler(MessageHandler(closed, bind(changes.on_topic_closed, svc)))
    confirm = CallbackQueryHandler(bind(inline.on_press, svc), pattern=inline.CALLBACK_PATTERN)
    app.add_handler(confirm)  # a chosen inline result's "✅ Confirm"
    app.add_handler(InlineQueryHandler(bind(inline.on_inline_query, svc)))
    app.add_handler(ChosenInlineResultHandler(bind(inline.on_chosen, svc)))
    membership = bind(changes.on_membership, svc)
    app.add_handler(ChatMemberHandler(membership, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(error_handler(svc))
    return app
