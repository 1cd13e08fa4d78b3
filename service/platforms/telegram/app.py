"""The python-telegram-bot application, built once per process with no updater: it
holds the bot (its HTTP client, its lifecycle) and no per-process game state.

Updates are not routed through PTB's handlers: the webhook reads the desk's asks itself
(commands, taps) and hands each update of the adapter's own features to its handler
here (`own_handler`), matched by PTB's own filters, with the request's state passed as
arguments (the webhook's `Exchange`) and its error raised to the webhook. Inline mode's
moves are presses for the desk (inline.chosen_of), not handled here.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Awaitable, Callable

from telegram import Update
from telegram.ext import Application, filters
from telegram.request import HTTPXRequest

from service.infra import tls
from service.platforms.telegram import changes, inline
from service.platforms.telegram.answer import Exchange
from service.platforms.telegram.counting import CountingRequest
from service.services import Services

Handler = Callable[[Update, Exchange, Services], Awaitable[None]]
ANONYMOUS = filters.COMMAND & filters.SenderChat.ALL  # a command sent as a chat

# httpcore runs `import sniffio` on every request to tell asyncio from trio, and falls
# back to asyncio when the import fails. Without sniffio installed, each Bot API call paid
# for a failed import (a search of sys.path: 13% of serve's time at saturation, see
# BENCHMARKS.md). A None entry makes the import fail at once, with the same outcome.
if importlib.util.find_spec("sniffio") is None:
    sys.modules.setdefault("sniffio", None)  # type: ignore[arg-type]


def own_handler(update: Update) -> Handler | None:
    """The handler of an update of the adapter's own: a command sent as a chat (before
    anything else: nobody to take for a player), a group's upgrade, a topic closed, an
    inline query, the bot removed; None when there is nothing to do."""
    if ANONYMOUS.check_update(update):
        return changes.refuse_anonymous
    if filters.StatusUpdate.MIGRATE.check_update(update):
        return changes.on_migrate
    if filters.StatusUpdate.FORUM_TOPIC_CLOSED.check_update(update):
        return changes.on_topic_closed
    if update.inline_query is not None:
        return inline.on_inline_query
    if update.my_chat_member is not None:
        return changes.on_membership
    return None


def build_application(svc: Services, token: str, api_url: str) -> Application:  # type: ignore[type-arg]
    return (
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
