"""HTML widgets (Bot API 10.4): `sendWidget`, `editMessageWidgetData`,
`answerWidgetQuery`, the `widget_query` update a user's widget sends, and the frame the
web chat runs a widget in.

As Telegram documents them (the fact sheet: ../shared/telegram-bot-api/bot-api-10.4/
widgets.md): the HTML is 1-32768 bytes and at most 4096 bytes once zlib-compressed at
level 9, and never changes; `public_data` and `chat_data` are 0-1024 bytes each, only
the bot writes them (an empty string clears one, leaving it out keeps it) and an edit
notifies nobody; a widget sent with `allow_queries` may send the bot requests of 1-64
bytes, at most 5 per user in any 5 seconds over all of the bot's widgets, each arriving
as `Update.widget_query` (without the state) and answered once with `answerWidgetQuery`
(0-1024 bytes) within 15 seconds, the answer going to the asking widget only. In
production widgets go to private chats only, and are protected; the test server allows
groups (`EmulatorConfig.widgets_in_groups`).

The references give no error texts for widgets: every refusal's words here are guesses
in Telegram's style (marked GUESS), and each rule they leave open is read the stricter
way.

A shared widget (`is_shared`) is held by the server, like a poll: `sendSharedWidget`
shows it in more messages (each with its own `chat_data`), and its public data, changed
by `editSharedWidgetData` or `editMessageWidgetData` on any of them, at most once a
second, changes in all of them. Shared widgets are kept while the emulator runs (not
saved with the world); forwarding them is not emulated (the emulator has no forwards).
"""

from __future__ import annotations

import json
import math
import re
import secrets
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.common.control import GET, POST, Args
from emulator.common.limits import SlidingWindow
from emulator.telegram.errors import NOT_MODIFIED, QUERY_TOO_OLD, bad_request, too_many_requests
from emulator.telegram.limits import FloodControl
from emulator.telegram.params import Params
from emulator.telegram.validation import caption_text
from emulator.telegram.webhook import Delivery
from emulator.telegram.world import JSON, PRESENT, Account, Bot, Conversation, Message, World

MAX_HTML = 32768  # bytes (sendWidget)
MAX_COMPRESSED = 4096  # bytes after zlib at its maximum level, 9 (sendWidget)
MAX_DATA = 1024  # bytes of public_data, chat_data, or an answer's data
MAX_QUERY_DATA = 64  # bytes a widget's request carries (WidgetQuery.data: 1-64)
QUERIES = 5  # a user's requests to one bot ...
QUERY_WINDOW = 5.0  # ... in any this many seconds
SHARED_EDIT_GAP = 1.0  # seconds between changes of a shared widget's public data
CACHE_TIME = (5, 3600)  # seconds apps may keep a shared widget's public data
DEFAULT_CACHE_TIME = 30
MAX_KEPT_QUERIES = 20_000  # answered or expired queries forgotten past this many

# GUESSES: no reference gives these refusals' words.
PRIVATE_ONLY = "widgets can be sent only to private chats"  # the reference's own sentence
HTML_TOO_LONG = "WIDGET_HTML_TOO_LONG"
HTML_TOO_BIG = "WIDGET_HTML_TOO_BIG"  # over 4096 bytes compressed
DATA_TOO_LONG = "WIDGET_DATA_TOO_LONG"
SIZE_INVALID = "WIDGET_SIZE_INVALID"  # GUESS: a width or height below 1 is refused
NO_WIDGET = "there is no widget in the message to edit"
WIDGET_ID_INVALID = "WIDGET_ID_INVALID"  # not a shared widget of this bot
CACHE_TIME_INVALID = "CACHE_TIME_INVALID"
# What the user's app says when a request cannot go (GUESS: the apps' words are unknown).
NO_QUERIES = "this widget does not send requests (it was sent without allow_queries)"
BAD_QUERY_DATA = "a widget request carries 1-64 bytes"
TOO_MANY = "too many widget requests: retry in {} s"


class WidgetRefused(Exception):
    """A request a user's widget could not send, as the app would refuse it."""


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))


def check_html(html: str) -> str:
    """The widget's document, within its size, raw and compressed ("html is empty" for
    none is the ordinary missing-parameter check's)."""
    raw = html.encode("utf-8")
    if len(raw) > MAX_HTML:
        raise bad_request(HTML_TOO_LONG)
    if len(zlib.compress(raw, 9)) > MAX_COMPRESSED:
        raise bad_request(HTML_TOO_BIG)
    return html


def check_data(value: str) -> str:
    if utf8_size(value) > MAX_DATA:
        raise bad_request(DATA_TOO_LONG)
    return value


def _dimension(params: Params, name: str) -> int | None:
    """A width or height: apps clamp it (200 to the bubble's width, 50-600), so any
    positive size is taken as given."""
    value = params.integer(name)
    if value is not None and value < 1:
        raise bad_request(SIZE_INVALID)
    return value


@dataclass
class WidgetQuery:
    """A request a user's widget sent the bot, and the bot's answer (once)."""

    id: str
    bot_id: int
    user_id: int
    data: str
    chat_id: int
    scope: int
    message_id: int
    created: float
    answer: str | None = None
    answered: bool = False
    widget_id: str | None = None  # a shared widget's


@dataclass
class SharedWidget:
    """A widget the server holds (sent with is_shared): one public state for every
    message that shows it."""

    id: str
    bot_id: int
    widget: JSON  # html, width, height, public_data: what each message shows of it
    allow_queries: bool
    cache_time: int = DEFAULT_CACHE_TIME
    changed: float = -math.inf  # time.monotonic() of the public data's last change
    shown_in: list[tuple[int, int, int]] = field(default_factory=list)  # chat, scope, id


def _with(widget: JSON, name: str, value: str | None) -> JSON:
    """The widget with one state changed: kept (None), cleared ("") or set."""
    if value is None:
        return widget
    changed = {key: kept for key, kept in widget.items() if key != name}
    if value:
        changed[name] = check_data(value)
    return changed


def _check_gap(shared: SharedWidget) -> None:
    """A shared widget's public data changes at most once a second (GUESS: refused as a
    flood limit is, 429 retry after 1)."""
    if time.monotonic() - shared.changed < SHARED_EDIT_GAP:
        raise too_many_requests(1)


NewMessage = Callable[[Bot, Conversation, Params], Message]
Editable = Callable[[Bot, Params], tuple[Message, bool]]


class WidgetMethods:
    """The widget methods of the Bot API, and the users' side of widgets."""

    def __init__(
        self,
        world: World,
        flood: FloodControl,
        delivery: Callable[[Bot], Delivery],
        new_message: NewMessage,
        editable: Editable,
    ) -> None:
        self.world = world
        self.flood = flood
        self.delivery = delivery
        self.new_message = new_message  # botapi's: markup, topic, reply, flood checked
        self.editable = editable  # botapi's: the message an edit names, the bot's own
        self.queries: dict[str, WidgetQuery] = {}
        self.shared: dict[str, SharedWidget] = {}
        self._asked: dict[tuple[int, int], SlidingWindow] = {}  # (bot, user) -> requests

    def handlers(self) -> dict[str, Callable[[Bot, Params], Any]]:
        return {
            "sendwidget": self.send_widget,
            "editmessagewidgetdata": self.edit_data,
            "answerwidgetquery": self.answer_query,
            "sendsharedwidget": self.send_shared_widget,
            "editsharedwidgetdata": self.edit_shared_data,
        }

    # ----- the bot's side ------------------------------------------------------

    def send_widget(self, bot: Bot, params: Params) -> JSON:
        conv = self._conversation(bot, params)
        widget = self._widget(params)
        allow_queries = params.flag("allow_queries")
        if not params.flag("is_shared"):
            return self.world.message_json(self._send(bot, conv, params, widget, allow_queries))
        public = {key: value for key, value in widget.items() if key != "chat_data"}
        shared = SharedWidget(f"sw{secrets.token_hex(12)}", bot.id, public, allow_queries)
        message = self._send(bot, conv, params, {**widget, "id": shared.id}, allow_queries)
        self._show(shared, message)
        return self.world.message_json(message)

    def send_shared_widget(self, bot: Bot, params: Params) -> JSON:
        """Show a shared widget in one more message, with a chat_data of its own."""
        shared = self._shared(bot, params)
        conv = self._conversation(bot, params)
        widget = _with({**shared.widget, "id": shared.id}, "chat_data", params.text("chat_data"))
        message = self._send(bot, conv, params, widget, shared.allow_queries)
        self._show(shared, message)
        return self.world.message_json(message)

    def _conversation(self, bot: Bot, params: Params) -> Conversation:
        """Where a widget goes: production's private chats, or the test server's groups."""
        conv = self.world.bot_conversation(bot, params.chat_id())
        self.world.check_can_write(bot, conv)
        if conv.chat.type != "private" and not self.world.config.widgets_in_groups:
            raise bad_request(PRIVATE_ONLY)
        return conv

    def _send(
        self, bot: Bot, conv: Conversation, params: Params, widget: JSON, allow_queries: bool
    ) -> Message:
        caption, entities = caption_text(
            params.string("caption"), params.string("parse_mode"), params.json("caption_entities")
        )
        message = self.new_message(bot, conv, params)
        message.widget = widget
        message.widget_queries = allow_queries
        # production protects every widget; the test server as asked (GUESS)
        test_server = self.world.config.widgets_in_groups
        message.protected = not test_server or params.flag("protect_content")
        message.caption, message.caption_entities = caption or None, entities
        self.world.add_message(conv, message)
        return message

    def _widget(self, params: Params) -> JSON:
        """The Widget object a sendWidget call describes."""
        widget: JSON = {"html": check_html(params.string("html") or "")}
        for name in ("width", "height"):
            size = _dimension(params, name)
            if size is not None:
                widget[name] = size
        for name in ("public_data", "chat_data"):
            widget = _with(widget, name, params.text(name))
        return widget

    def _shared(self, bot: Bot, params: Params) -> SharedWidget:
        shared = self.shared.get(params.required_str("widget_id"))
        if shared is None or shared.bot_id != bot.id:
            raise bad_request(WIDGET_ID_INVALID)
        return shared

    def _show(self, shared: SharedWidget, message: Message) -> None:
        self.shared[shared.id] = shared
        shared.shown_in.append((message.chat_id, message.scope, message.message_id))

    def edit_data(self, bot: Bot, params: Params) -> bool:
        """Change a widget's state: what is given (an empty string clears it), the rest
        kept; a shared widget's public data in every message showing it. Nobody is
        notified and the message is not marked edited (GUESS: the references say
        neither), and an edit changing nothing is refused as Telegram refuses any such
        edit (GUESS)."""
        message, _ = self.editable(bot, params)
        if message.widget is None:
            raise bad_request(NO_WIDGET)
        public, chat_data = params.text("public_data"), params.text("chat_data")
        shared = self.shared.get(str(message.widget.get("id", "")))
        changed = _with(message.widget, "chat_data", chat_data)
        if shared is None:
            changed = _with(changed, "public_data", public)
        shared_changes = (
            shared is not None
            and public is not None
            and _with(shared.widget, "public_data", public) != shared.widget
        )
        if changed == message.widget and not shared_changes:
            raise bad_request(NOT_MODIFIED)
        if shared is not None and shared_changes:
            _check_gap(shared)
        chat = self.world.chats[message.chat_id]
        self.flood.take(bot.id, chat.id, chat.is_group)  # GUESS: counts as any edit
        if shared is not None and shared_changes:
            self._set_public(shared, public or "")  # in this message too
            changed = _with(message.widget, "chat_data", chat_data)
        if changed != message.widget:
            message.widget = changed
            self.world.publish_message(message)
        return True

    def edit_shared_data(self, bot: Bot, params: Params) -> bool:
        """Change a shared widget's public data everywhere it is shown (and, when given,
        how long apps may keep it)."""
        shared = self._shared(bot, params)
        cache_time = params.integer("cache_time")
        if cache_time is not None and not CACHE_TIME[0] <= cache_time <= CACHE_TIME[1]:
            raise bad_request(CACHE_TIME_INVALID)
        public = params.text("public_data") or ""
        if _with(shared.widget, "public_data", public) == shared.widget:
            raise bad_request(NOT_MODIFIED)  # GUESS, as for any edit changing nothing
        _check_gap(shared)
        self._set_public(shared, public)
        if cache_time is not None:
            shared.cache_time = cache_time
        return True

    def _set_public(self, shared: SharedWidget, public: str) -> None:
        """A shared widget's new public data, in each message showing it."""
        shared.widget = _with(shared.widget, "public_data", public)
        shared.changed = time.monotonic()
        for where in shared.shown_in:
            message = self.world.find_message(*where)
            if message is None or message.widget is None:
                continue
            kept = {k: v for k, v in message.widget.items() if k != "public_data"}
            message.widget = _with(kept, "public_data", public)
            self.world.publish_message(message)

    def answer_query(self, bot: Bot, params: Params) -> bool:
        """Answer a widget's request, once, within the answer window (GUESS: a second
        answer is refused as a callback query's is); the stored state is unchanged."""
        query = self.queries.get(params.required_str("widget_query_id"))
        too_old = query is not None and (
            time.monotonic() - query.created > self.world.config.answer_timeout
        )
        if query is None or query.bot_id != bot.id or query.answered or too_old:
            raise bad_request(QUERY_TOO_OLD)
        data = check_data(params.text("data") or "")
        query.answer, query.answered = data, True
        self.world.events.publish(
            {
                "type": "widget_answer",
                "user_id": query.user_id,
                "query_id": query.id,
                "chat_id": query.chat_id,
                "scope": query.scope,
                "message_id": query.message_id,
                "data": data,
            }
        )
        return True

    # ----- the user's side -----------------------------------------------------

    def ask(self, user: Account, message: Message, data: str) -> WidgetQuery:
        """A user's widget sends the bot a request: `widget_query` reaches the bot."""
        bot = self._bot_of(message)
        if not message.widget_queries:
            raise WidgetRefused(NO_QUERIES)
        if not 1 <= utf8_size(data) <= MAX_QUERY_DATA:
            raise WidgetRefused(BAD_QUERY_DATA)
        self._count(bot, user)
        query = WidgetQuery(
            id=str(secrets.randbits(62)),
            bot_id=bot.id,
            user_id=user.id,
            data=data,
            chat_id=message.chat_id,
            scope=message.scope,
            message_id=message.message_id,
            created=time.monotonic(),
            widget_id=message.widget.get("id") if message.widget else None,
        )
        self._keep(query)
        self.world.record("widget_query", bot_id=bot.id, user_id=user.id, query_id=query.id)
        update = {"update_id": bot.new_update_id(), "widget_query": self._payload(user, query)}
        self.delivery(bot).enqueue(update, message.chat_id)
        return query

    def _bot_of(self, message: Message) -> Bot:
        bot = self.world.bots.get(message.sender_id)
        if message.widget is None or bot is None:
            raise WidgetRefused("no widget of a bot in that message")
        return bot

    def _count(self, bot: Bot, user: Account) -> None:
        """At most QUERIES requests per user to one bot in any QUERY_WINDOW seconds."""
        window = self._asked.setdefault((bot.id, user.id), SlidingWindow())
        now = time.monotonic()
        wait = window.wait(now, QUERIES, QUERY_WINDOW)
        if wait > 0:
            raise WidgetRefused(TOO_MANY.format(max(1, round(wait))))
        window.take(now)

    def _keep(self, query: WidgetQuery) -> None:
        self.queries[query.id] = query
        while len(self.queries) > MAX_KEPT_QUERIES:
            del self.queries[next(iter(self.queries))]

    def _payload(self, user: Account, query: WidgetQuery) -> JSON:
        """A WidgetQuery as the bot receives it (no chat_data: the bot keeps its own)."""
        return {
            "id": query.id,
            "from": user.to_api(),
            "chat_instance": str(abs(hash((query.chat_id, query.scope))) % 10**18),
            "type": {"type": "data"},
            "data": query.data,
            "chat": self.world.chats[query.chat_id].to_api(),
            "message_id": query.message_id,
            **({"widget_id": query.widget_id} if query.widget_id else {}),
        }

    def query_view(self, query_id: str) -> JSON:
        query = self.queries.get(query_id)
        if query is None:
            raise LookupError("no such widget query")
        return {
            "query_id": query.id,
            "user_id": query.user_id,
            "data": query.data,
            "chat_id": query.chat_id,
            "message_id": query.message_id,
            "answered": query.answered,
            "answer": query.answer,
        }


# ----- the web chat's frame ------------------------------------------------------

# What a widget may load: nothing from anywhere (its CSS and scripts are inline, images
# data: URLs); `sandbox` makes its origin opaque (no cookies, storage or the page's DOM).
FRAME_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; font-src data:; media-src data:; connect-src 'none'; "
    "form-action 'none'; base-uri 'none'; sandbox allow-scripts"
)
BRIDGE = Path(__file__).resolve().parent.parent / "web" / "widget_bridge.js"
_HEAD_RE = re.compile(r"<head(?:\s[^>]*)?>", re.IGNORECASE)
_HTML_RE = re.compile(r"<html(?:\s[^>]*)?>", re.IGNORECASE)


def sees(world: World, user: Account, message: Message) -> bool:
    """Whether the message is in a chat of the user's: their private chat, or a group
    they are in."""
    chat = world.chats[message.chat_id]
    if chat.type == "private":
        return chat.id == user.id
    return chat.members.get(user.id) in PRESENT


def frame_document(widget: JSON, bridge: str) -> str:
    """The widget's HTML with the in-widget API's script, and its state now, ahead of
    its own scripts (later states reach it by postMessage)."""
    state = {key: widget.get(key, "") for key in ("public_data", "chat_data")}
    # "<" escaped: the state cannot end the script element
    as_json = json.dumps(state).replace("<", "\\u003c")
    script = f"<script>window.__burroWidgetState = {as_json};\n{bridge}</script>"
    html = str(widget["html"])
    for pattern in (_HEAD_RE, _HTML_RE):
        found = pattern.search(html)
        if found:
            return html[: found.end()] + script + html[found.end() :]
    return script + html


class WidgetControl:
    """The control API's widget routes: a user's widget sends a request, a request's
    state, and the document a widget runs in (served with a policy that forbids any
    network, for the web chat's sandboxed frame)."""

    def __init__(self, control: Any, widgets: WidgetMethods) -> None:
        self.control = control  # TelegramControl: names users and messages, wraps routes
        self.widgets = widgets

    def routes(self) -> list[Route]:
        route = self.control.route
        return [
            route("/widget_query", self.query, POST),
            route("/widget_queries/{query_id}", self.query_state, GET),
            Route("/widget_frame", self.frame, methods=GET),
        ]

    def query(self, args: Args) -> JSON:
        message = self.control.message(args)
        user = self.control.user(args)
        if not sees(self.widgets.world, user, message):
            raise ValueError(f"{user.first_name} does not see that message")
        try:
            query = self.widgets.ask(user, message, str(args.get("data", "")))
        except WidgetRefused as refused:
            raise ValueError(str(refused)) from None
        return {"query_id": query.id}

    def query_state(self, args: Args) -> JSON:
        return self.widgets.query_view(str(args["query_id"]))

    async def frame(self, request: Request) -> Response:
        args = dict(request.query_params)
        try:
            message = self.control.message(args)
        except (LookupError, ValueError, KeyError):
            return Response("no such message", status_code=404)
        if message.widget is None:
            return Response("no widget in that message", status_code=404)
        return Response(
            frame_document(message.widget, BRIDGE.read_text("utf-8")),
            media_type="text/html",
            headers={"Content-Security-Policy": FRAME_POLICY, "Cache-Control": "no-store"},
        )
