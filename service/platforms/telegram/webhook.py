"""Telegram's webhook: POST /telegram/webhook.

403 without the right secret header, 413 for a body over the limit, 400 for a body that
is not an Update, 503 while Redis is unreachable (Telegram retries), else the update is
processed and committed before we answer 200 (carrying a press's answerCallbackQuery,
see `reply`); a move's press its phase lists is checked and queued for a worker with
its claim, one round trip (Store.aclaim), and answered at once. Permanent errors are
logged and answered 200 too, so one bad update never stalls a chat. Each update is
handled once (its update_id is claimed in Redis).
"""

from __future__ import annotations

import hmac
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import redis
from telegram import Update

from service.infra import logs, metrics
from service.infra.store import Claim, Conflict
from service.platforms.base import (
    Answer,
    BodyTooLarge,
    Disconnected,
    Receive,
    Scope,
    Send,
    Webhook,
    header,
    read_asgi_body,
)
from service.platforms.telegram import buttons, callbacks, limits, taps
from service.platforms.telegram.app import build_application, handler_error
from service.platforms.telegram.botfather import record_inline_mode
from service.platforms.telegram.reply import in_reply, open_reply
from service.services import Services
from service.settings import Settings
from service.table.outcome import QueuedPress

log = logging.getLogger("burro.serve")
slog = logs.get("burro.serve")
SECRET_HEADER = b"x-telegram-bot-api-secret-token"
PATH = "/telegram/webhook"
NOT_POST = Answer(405, b"Method Not Allowed", headers=((b"allow", b"POST"),))


def webhook(settings: Settings, svc: Services, client: redis.Redis) -> Webhook:
    """The Telegram route of `serve`, with what must run as it starts and stops."""
    token, secret = settings.require_serve()
    limits.ENABLED = settings.rate_limits  # serve's own replies share the outbox's budget
    application = build_application(svc, token, settings.telegram_api_url)

    async def startup() -> None:
        await application.initialize()
        svc.bot_username = application.bot.username or settings.bot_username
        client.set("bot:username", svc.bot_username)
        record_inline_mode(client, application.bot.supports_inline_queries, svc.bot_username)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        """POST /telegram/webhook as a bare ASGI app (Webhook.plain)."""
        try:
            answer = await answer_request(scope, receive)
        except Disconnected:
            return
        await answer.send(send)

    async def answer_request(scope: Scope, receive: Receive) -> Answer:
        if scope["method"] != "POST":
            return NOT_POST
        given = header(scope, SECRET_HEADER) or b""
        if not hmac.compare_digest(given, secret.encode()):
            metrics.UPDATES.labels("invalid", "forbidden").inc()
            return Answer.text("forbidden", 403)
        try:
            body = await read_asgi_body(scope, receive, settings.max_body_bytes)
        except BodyTooLarge:
            metrics.UPDATES.labels("invalid", "too_large").inc()
            return Answer.text("body too large", 413)
        data = parse_json(body)
        tap = taps.tap_of(data) if data is not None else None
        if tap is not None:  # a move's press: no PTB objects (service.platforms.telegram.taps)
            return await process(incoming_tap(tap))
        update = parse_update(data, application) if data is not None else None
        if update is None:
            metrics.UPDATES.labels("invalid", "bad_request").inc()
            return Answer.text("not a Telegram update", 400)
        return await process(incoming_update(update))

    def incoming_update(update: Update) -> Incoming:
        chat, user = update.effective_chat, update.effective_user
        return Incoming(
            update.update_id,
            chat.id if chat else None,
            user.id if user else None,
            update_kind(update),
            *read_ahead(update),
            lambda: application.process_update(update),
        )

    def incoming_tap(tap: taps.Tap) -> Incoming:
        async def dispatch() -> None:
            actor = svc.actor(tap.user_id, tap.name, tap.language)
            try:
                await buttons.play(svc, tap.press, actor, tap.update_id, answering)
            except Exception as raised:  # as PTB's error handler keeps it (app.py)
                handler_error.set(raised)

        async def queued(claim: Claim) -> None:
            if claim == "pressed":  # out of date, in their language (read with the claim)
                actor = svc.actor(tap.user_id, tap.name, tap.language)
                await answering(buttons.out_of_date(actor), False)
            else:  # no popup, as a move applied at once has none
                await answering(None, False)

        async def answering(text: str | None, alert: bool) -> None:
            in_reply(tap.query_id, text, alert)

        user, rooms = tap.user_id, [tap.press.room]
        press = taps.queued_press(tap, svc.now())
        kind = "callback_query"
        return Incoming(
            tap.update_id, tap.chat_id, user, kind, rooms, [user], dispatch, press, queued
        )

    async def process(update: Incoming) -> Answer:
        """Handle one update, counted, timed and logged with its update, chat and game."""
        logs.new_context(update_id=update.update_id, chat_id=update.chat_id, user_id=update.user_id)
        started = time.perf_counter()
        with metrics.UPDATES_IN_PROGRESS.track_inprogress():
            outcome, response = await handle(update)
        seconds = time.perf_counter() - started
        metrics.observe_update(update.kind, outcome, seconds)
        slog.info("update", kind=update.kind, outcome=outcome, seconds=round(seconds, 4))
        return response

    async def handle(update: Incoming) -> tuple[str, Answer]:
        """Each update once: a redelivery of one handled is a duplicate, of one being
        handled now (Telegram gave up waiting) is asked again later."""
        try:
            claim = await svc.store.aclaim(
                update.update_id, update.rooms, update.users, update.press
            )
        except redis.RedisError:
            return "retry", Answer.text("storage unavailable", 503)
        if claim == "duplicate":
            return "duplicate", Answer.text("duplicate")
        if claim == "busy":
            return "retry", Answer.text("being handled", 503)
        if claim in ("accepted", "pressed") and update.queued is not None:
            return await run(update, partial(update.queued, claim))  # marked done already
        outcome, response = await run(update, update.dispatch)
        try:
            if outcome == "retry":
                await svc.store.arelease(update.update_id)
            else:
                await svc.store.afinish(update.update_id)
        except redis.RedisError:
            log.warning("update %s: its dedupe mark was not written", update.update_id)
        return outcome, response

    async def run(update: Incoming, dispatch: Callable[[], Awaitable[None]]) -> tuple[str, Answer]:
        handler_error.set(None)
        reply = open_reply(client)  # a press's answerCallbackQuery rides on our 200
        try:
            await dispatch()
        except Exception as raised:  # PTB routing an update whose fields have odd types
            handler_error.set(raised)
        error = handler_error.get()
        if isinstance(error, redis.RedisError | Conflict):
            log.warning("update %s not committed: %r", update.update_id, error)
            return "retry", Answer.text("storage unavailable", 503)
        answer = Answer.text("ok")
        if reply:
            metrics.bot_api_call(reply["method"], in_answer=True)
            answer = Answer.json(reply)
        if error is not None:
            log.error("update %s failed permanently", update.update_id, exc_info=error)
            return "failed", answer
        return "ok", answer

    return Webhook([], startup, application.shutdown, plain={PATH: app})


def read_ahead(update: Update) -> tuple[list[str], list[int]]:
    """The room and the person an update is about, read with its claim: a press names
    its room; every handler asks for the sender's language. Nothing when the update's
    fields are not what Telegram sends (its handler answers that)."""
    try:
        user, query = update.effective_user, update.callback_query
    except (AttributeError, TypeError):
        return [], []
    data = query.data if query is not None else None
    raw = callbacks.decode(data) if isinstance(data, str) else None
    users = [user.id] if user is not None and isinstance(user.id, int) else []
    return [raw.room] if raw is not None else [], users


def update_kind(update: Update) -> str:
    """The metrics label of an update; "other" when its fields are not what Telegram
    sends (PTB does not check their types: a `"text": true` is kept as it is)."""
    try:
        return metrics.update_kind(update)
    except (AttributeError, TypeError):
        return "other"


@dataclass(frozen=True)
class Incoming:
    """An update to handle: what its claim, its log line and its metrics need, and how
    to handle it (through PTB, or a move's press without it)."""

    update_id: int
    chat_id: int | None
    user_id: int | None
    kind: str  # the metrics label (update_kind)
    rooms: list[str]  # read ahead with the claim (read_ahead)
    users: list[int]
    dispatch: Callable[[], Awaitable[None]]
    # A move's press that its claim may queue for a worker, and how it is answered then
    press: QueuedPress | None = None
    queued: Callable[[Claim], Awaitable[None]] | None = None


def parse_json(body: bytes) -> dict[str, Any] | None:
    """A request body's JSON if it is an object with an int update_id, else None."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):  # nested past the parser's depth
        return None
    if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
        return None
    return data


def parse_update(data: dict[str, Any], application: Any) -> Update | None:
    """An Update from a request's JSON, or None if it is not one."""
    try:
        return Update.de_json(data, application.bot)
    except Exception:  # PTB raises various errors on malformed nested objects
        return None
