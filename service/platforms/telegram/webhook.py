"""Telegram's webhook: POST /telegram/webhook.

403 without the right secret header, 413 for a body over the limit, 400 for a body that
is no JSON object with an integer `update_id`; 503 while Redis is unreachable (Telegram
retries). Anything else is answered 200: an update is read into the desk's request
(service.platforms.telegram.commands; a move's press from its JSON alone, `taps`),
handled by the desk (service.desk), and its reply drawn (`answer`; a press's
answerCallbackQuery rides on the 200). Inline mode's moves are presses for the desk too
(`inline`); any other update of the adapter's own (an inline query, chat changes) goes
to its handler (`app.own_handler`) under the desk's claim. An authentic
update PTB cannot read is logged (`outcome=unparsed`) and answered 200 too, since
Telegram would only send it again while holding the chat's later updates back.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
from dataclasses import dataclass
from functools import partial
from typing import Any

import redis
from telegram import Update
from telegram.error import TelegramError
from telegram.ext import Application

from service.desk.asks import CommandAsk, Reply, Request
from service.desk.desk import Desk, Handled
from service.desk.ports import Links
from service.infra import keys, logs, metrics
from service.infra.outage import UNAVAILABLE
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
from service.platforms.telegram import (
    answer,
    blocked,
    botfather,
    changes,
    commands,
    inline,
    limits,
    menu,
    notices,
    probe,
    taps,
    titles,
    widget_queries,
)
from service.platforms.telegram.answer import Exchange, Pressed
from service.platforms.telegram.app import build_application, own_handler
from service.platforms.telegram.botfather import (
    ephemeral,
    record_ephemeral,
    record_inline_mode,
    record_widgets,
)
from service.platforms.telegram.manual import TelegramManual
from service.services import Services
from service.settings import Settings

log = logging.getLogger("burro.serve")
slog = logs.get("burro.serve")
SECRET_HEADER = b"x-telegram-bot-api-secret-token"
PATH = "/telegram/webhook"
NOT_POST = Answer(405, b"Method Not Allowed", headers=((b"allow", b"POST"),))


@dataclass(frozen=True)
class Incoming:
    """An update to handle: what its log line and metrics need, the desk's request it
    makes (None: the adapter's own, or unreadable), and PTB's reading of it (none for a
    tap read from its JSON alone)."""

    update_id: int
    chat_id: int | None
    user_id: int | None
    kind: str  # the metrics label (update_kind), or "unparsed"
    request: Request | None = None
    update: Update | None = None
    pressed: Pressed | None = None
    widget: widget_queries.Asked | None = None  # a widget's request (answered its way)


def webhook(settings: Settings, svc: Services, client: redis.Redis, links: Links) -> Webhook:
    """The Telegram route of `serve`, with what must run as it starts and stops."""
    hook = TelegramWebhook(settings, svc, client, links)
    return Webhook([], hook.startup, hook.application.shutdown, plain={PATH: hook.app})


class TelegramWebhook:
    """Authenticates, reads and answers Telegram's updates; the desk handles them."""

    def __init__(
        self, settings: Settings, svc: Services, client: redis.Redis, links: Links
    ) -> None:
        token, self.secret = settings.require_serve()
        limits.ENABLED = settings.rate_limits  # serve's own replies share the outbox's budget
        self.settings, self.svc, self.client = settings, svc, client
        self.application = build_application(svc, token, settings.telegram_api_url)
        # replies still waiting for their chat (with the send budget: RQ's Redis)
        forget = partial(notices.drop_chat, svc.store.jobs)
        self.desk = Desk(svc, TelegramManual(), links, on_forget=forget)

    async def startup(self) -> None:
        bot = self.application.bot
        await self.application.initialize()
        self.svc.bot_username = bot.username or self.settings.bot_username
        self.client.set(keys.BOT_USERNAME, self.svc.bot_username)
        record_inline_mode(self.client, bot.supports_inline_queries, self.svc.bot_username)
        await self.probe_ephemeral()
        await self.probe_widgets()

    async def probe_ephemeral(self) -> None:
        """Whether the Bot API takes ephemeral messages (hands shown in the group), kept
        for every process; so, /hand joins the groups' menu. No answer keeps the last
        finding (off until one), and the menu follows it."""
        found = await probe.ephemeral(self.application.bot)
        advice = {"advice": probe.ADVICE} if found is False else {}
        slog.info("ephemeral messages probed", found=probe.told(found), **advice)
        if found is not None:
            record_ephemeral(self.client, found)
        if found or (found is None and botfather.ephemeral(self.client)):
            await self.offer_hand()

    async def probe_widgets(self) -> None:
        """Whether the Bot API takes widgets (hands drawn in the private chat), kept for
        every process; no answer keeps the last finding (off until one)."""
        found = await probe.widgets(self.application.bot)
        advice = {"advice": probe.WIDGETS_ADVICE} if found is False else {}
        slog.info("widgets probed", found=probe.told(found), **advice)
        if found is not None:
            record_widgets(self.client, found)

    async def offer_hand(self) -> None:
        """/hand in the groups' menus (`burro serve` set them without it just before)."""
        try:
            await menu.register_ephemeral(self.application.bot)
        except TelegramError as error:  # the menu is a help: /hand works without it
            log.warning("setMyCommands with /hand failed: %s", logs.redact(str(error)))

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        """POST /telegram/webhook as a bare ASGI app (Webhook.plain)."""
        try:
            answer = await self.answer_request(scope, receive)
        except Disconnected:
            return
        await answer.send(send)

    async def answer_request(self, scope: Scope, receive: Receive) -> Answer:
        if scope["method"] != "POST":
            return NOT_POST
        given = header(scope, SECRET_HEADER) or b""
        if not hmac.compare_digest(given, self.secret.encode()):
            metrics.UPDATES.labels("invalid", "forbidden").inc()
            return Answer.text("forbidden", 403)
        try:
            body = await read_asgi_body(scope, receive, self.settings.max_body_bytes)
        except BodyTooLarge:
            metrics.UPDATES.labels("invalid", "too_large").inc()
            return Answer.text("body too large", 413)
        data = parse_json(body)
        if data is None:
            metrics.UPDATES.labels("invalid", "bad_request").inc()
            return Answer.text("not a Telegram update", 400)
        return await self.process(self.incoming(data))

    def incoming(self, data: dict[str, Any]) -> Incoming:
        """What an update asks: a move's press read from its JSON alone (taps), else the
        desk's request PTB's reading makes, else the adapter's own, else nothing we can
        read."""
        widget = widget_queries.asked_of(data, self.application.bot)
        if widget is not None:
            ids = (widget.update_id, widget.chat_id, widget.user_id, widget_queries.KIND)
            return Incoming(*ids, widget.request, widget=widget)
        tap = taps.tap_of(data)
        if tap is not None:
            request = taps.request_of(tap)
            pressed = Pressed(tap.query_id)
            return Incoming(
                tap.update_id, tap.chat_id, tap.user_id, "callback_query", request, None, pressed
            )
        update = parse_update(data, self.application)
        if update is None:
            return Incoming(data["update_id"], None, None, "unparsed")
        chat, user = update.effective_chat, update.effective_user
        chat_id = chat.id if chat and type(chat.id) is int else None
        user_id = user.id if user and type(user.id) is int else None
        bot, name = self.application.bot, self.svc.bot_username
        asked = commands.request_of(update, bot, name, personal=ephemeral(self.client))
        kind = update_kind(update)
        held = commands.pressed_of(update) if asked is not None else None
        return Incoming(update.update_id, chat_id, user_id, kind, asked, update, held)

    async def process(self, update: Incoming) -> Answer:
        """Handle one update, counted, timed and logged with its update, chat and game."""
        logs.new_context(update_id=update.update_id, chat_id=update.chat_id, user_id=update.user_id)
        started = time.perf_counter()
        metrics.UPDATES_IN_PROGRESS.inc()  # as track_inprogress, without its object
        try:
            outcome, response = await self.handle(update)
        finally:
            metrics.UPDATES_IN_PROGRESS.dec()
        seconds = time.perf_counter() - started
        metrics.observe_update(update.kind, outcome, seconds)
        slog.info("update", kind=update.kind, outcome=outcome, seconds=round(seconds, 4))
        return response

    async def handle(self, update: Incoming) -> tuple[str, Answer]:
        if update.kind == "unparsed":
            log.warning("update %s: not readable as Telegram's, left alone", update.update_id)
            return "unparsed", Answer.text("ok")
        exchange = Exchange(self.svc.store.jobs)  # the send budget: with RQ's queue
        try:
            handled = await self.run(update, exchange)
        except UNAVAILABLE as error:  # outside the desk's claim: reading, answering
            log.warning("update %s: storage unavailable: %r", update.update_id, error)
            return "retry", Answer.text("storage unavailable", 503)
        if handled.outcome == "retry":
            return "retry", Answer.text("storage unavailable", 503)
        if exchange.answer:
            metrics.bot_api_call(exchange.answer["method"], in_answer=True)
            return handled.outcome, Answer.json(exchange.answer)
        return handled.outcome, Answer.text(handled.outcome)

    async def run(self, update: Incoming, exchange: Exchange) -> Handled:
        handled = await self.dispatch(update, exchange)
        if update.update is not None:  # after it: a /burro may have opened the table
            await titles.note_title(self.svc, update.update)
        return handled

    async def dispatch(self, update: Incoming, exchange: Exchange) -> Handled:
        if update.widget is not None:
            bot = self.application.bot
            return await widget_queries.answered(self.desk, bot, exchange, update.widget)
        if update.request is None:
            return await self.own(update, exchange)
        handled = await self.desk.handle(update.request)
        if handled.outcome in ("ok", "duplicate"):
            await self.draw(exchange, update, handled.reply)
        if handled.outcome == "ok" and opened_private(update.request):
            # their cards may go to them now: the group's words that they could not are
            # deleted (the outbox's, service.platforms.telegram.blocked)
            bot, player = self.application.bot, update.request.sender.player
            await blocked.withdraw_notices(self.svc, bot, player)
        return handled

    async def draw(self, exchange: Exchange, update: Incoming, reply: Reply) -> None:
        """The desk's reply drawn on Telegram; a chat found changed while sending it
        (upgraded, a topic closed) is dealt with, anything else refused is logged."""
        assert update.request is not None
        bot = self.application.bot
        try:
            await answer.deliver(bot, exchange, update.request, reply, update.pressed)
        except TelegramError as error:
            place, budget = update.request.place, exchange.budget
            if not await changes.after_error(self.svc, bot, place, error, budget):
                log.warning("update %s: its reply was refused: %s", update.update_id, error)

    async def own(self, update: Incoming, exchange: Exchange) -> Handled:
        """An update of the adapter's own features: an inline move is a press for the
        desk (`inline`); anything else runs its handler under the desk's claim."""
        assert update.update is not None
        chosen = inline.chosen_of(update.update)
        if chosen is not None:
            return await inline.make_move(self.desk, exchange, chosen, self.application.bot)
        work = partial(self.run_own, update.update, exchange)
        return await self.desk.handle_own(update.update_id, work)

    async def run_own(self, update: Update, exchange: Exchange) -> None:
        """Its handler (app.own_handler), if any; a call refused because the chat
        changed (upgraded, a topic closed) is dealt with, any other refusal is Telegram's
        word on a late or gone thing (an inline query answered too late, a chat not
        found): a warning, not a failure of ours."""
        handler = own_handler(update)
        if handler is None:
            return
        try:
            await handler(update, exchange, self.svc)
        except TelegramError as error:
            if not await changes.handled(update, exchange, self.svc, error):
                log.warning("update %s: Telegram refused our call: %s", update.update_id, error)


def opened_private(request: Request) -> bool:
    """Whether the person (re)opened their private chat with the bot: /start there."""
    ask = request.ask
    return isinstance(ask, CommandAsk) and ask.name == "start" and request.place.private


def update_kind(update: Update) -> str:
    """The metrics label of an update; "other" when its fields are not what Telegram
    sends (PTB does not check their types: a `"text": true` is kept as it is)."""
    try:
        return metrics.update_kind(update)
    except (AttributeError, TypeError):
        return "other"


def parse_json(body: bytes) -> dict[str, Any] | None:
    """A request body's JSON if it is an object with an int update_id, else None."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):  # nested past the parser's depth
        return None
    if not isinstance(data, dict) or type(data.get("update_id")) is not int:
        return None
    return data


def parse_update(data: dict[str, Any], application: Application) -> Update | None:  # type: ignore[type-arg]
    """An Update from a request's JSON, or None if PTB cannot read it."""
    try:
        return Update.de_json(data, application.bot)
    except Exception:  # PTB raises various errors on malformed nested objects
        return None
