"""A widget's request (Bot API 10.4's `widget_query` update) read as the desk's ask, and
answered with answerWidgetQuery.

python-telegram-bot 22.8 does not know the update: it is read from the JSON here, each
field checked as Telegram sends it (as `taps` reads a callback query). A hand's widget
(service.platforms.telegram.widgets) sends a press's text, the very callback_data its
button would carry (service.ui.tokens: `<room>.<version>.<token>`), so a tap in the
widget is the same ask as a button's press: the same dedupe (the update id), the same
stale check, the same answer. The answer's words, the popup a press would get ("" for
none), ride on the webhook's HTTP answer as answerWidgetQuery, well within its 15
seconds; a reply's lines go to the chat as a button's would. Data that is no press of
ours gets the desk's word for a button that is not ours; a request whose sender cannot
be read is answered that it could not be; never an HTTP error, which Telegram would
only send again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

from telegram import Bot
from telegram.error import TelegramError

from service.desk.asks import Ask, Place, Reply, Request, Sender, UnknownAsk
from service.desk.desk import Desk, Handled
from service.i18n import Translator, _, language_for
from service.platforms.telegram import answer, people, widgets
from service.platforms.telegram.answer import Exchange
from service.platforms.telegram.commands import ask_of
from service.platforms.telegram.people import name_of
from service.ui import spans

KIND = "widget_query"  # the update's field, and its metrics label
MAX_DATA = 64  # bytes a widget's request carries (WidgetQuery.data: 1-64)
UNREADABLE = _("I could not read this tap. Try again, or send /start.")
log = logging.getLogger("burro.serve")


@dataclass(frozen=True)
class Asked:
    """A widget's request: its update and query ids, and the desk's request it makes
    (None when its sender cannot be read: it is answered so)."""

    update_id: int
    query_id: str
    request: Request | None
    lang: str | None = None  # the sender's language_code, as Telegram gave it

    @property
    def user_id(self) -> int | None:
        return self.request.sender.player if self.request is not None else None

    @property
    def chat_id(self) -> int | None:
        return self.request.place.chat if self.request is not None else None


def asked_of(update: dict[str, Any], bot: Bot) -> Asked | None:
    """The widget's request an update carries; None for any other update, or one
    without a query id to answer."""
    query = update.get(KIND)
    if not isinstance(query, dict) or not isinstance(query.get("id"), str) or not query["id"]:
        return None
    user = query.get("from")
    if not isinstance(user, dict) or not _user(user):
        return Asked(update["update_id"], query["id"], None)
    lang = user.get("language_code")
    sender = Sender(user["id"], name_of(user["id"], user["first_name"], user.get("username")), lang)
    request = Request(
        update["update_id"], sender, place_of(query), ask_in(query), people.admins(bot)
    )
    return Asked(update["update_id"], query["id"], request, lang)


def ask_in(query: dict[str, Any]) -> Ask:
    """What a request's data asks: a press (or a desk command's button), as a button's
    data would; anything else is no button of ours."""
    kind, data = query.get("type"), query.get("data")
    if not isinstance(kind, dict) or kind.get("type") != "data" or not isinstance(data, str):
        return UnknownAsk()
    if not data or len(data.encode()) > MAX_DATA:
        return UnknownAsk()
    return ask_of(data)


def place_of(query: dict[str, Any]) -> Place:
    """The chat of the widget's message (none for an inline message's widget)."""
    chat = query.get("chat")
    if not isinstance(chat, dict) or type(chat.get("id")) is not int:
        return Place(None, None, False)
    return Place(chat["id"], None, chat.get("type") == "private")


def _user(user: dict[str, Any]) -> bool:
    """Whether a request's `from` is a user as Telegram sends one."""
    return (
        type(user.get("id")) is int
        and isinstance(user.get("first_name"), str)
        and isinstance(user.get("username", ""), str)
        and isinstance(user.get("language_code", ""), str)
    )


async def answered(desk: Desk, bot: Bot, exchange: Exchange, asked: Asked) -> Handled:
    """Handle the request through the desk and answer it: its popup's words to the
    widget (answerWidgetQuery in the HTTP answer), its lines to the chat."""
    request = asked.request
    if request is None:
        words = Translator(language_for(asked.lang)).gettext(UNREADABLE)
        exchange.answer = widgets.answer(asked.query_id, words)
        return Handled("ok")
    handled = await desk.handle(request)
    if handled.outcome not in ("ok", "duplicate"):
        return handled  # retried by Telegram: answered then
    reply = handled.reply
    exchange.answer = widgets.answer(asked.query_id, spans.plain(reply.popup or ""))
    if reply.lines:
        await tell(bot, exchange, request, replace(reply, popup=None, url=None))
    return handled


async def tell(bot: Bot, exchange: Exchange, request: Request, reply: Reply) -> None:
    """The reply's lines in the chat, as a button's press would have them."""
    try:
        await answer.deliver(bot, exchange, request, reply, None)
    except TelegramError as error:
        log.warning("update %s: its reply was refused: %s", request.mark, error)
