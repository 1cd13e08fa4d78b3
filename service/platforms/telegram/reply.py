"""Answering a button press in the webhook's own HTTP answer.

Telegram runs one Bot API method put in the answer to a webhook request ({"method": …,
parameters}). A press must be answered (answerCallbackQuery: it stops the button's
spinner, maybe with a popup) and nothing needs that call's result, so the answer rides
on the webhook's 200 instead of costing a request of its own: about a fifth of the
work of a move in `burro serve` (BENCHMARKS.md). Outside a webhook request (tests that
call handlers directly, a second answer to the same update) it is a normal call.

Messages serve sends itself (command replies, the rules) take their turn in the flood
budget the outbox keeps in Redis, or wait for it as notices (`send_message`).
"""

from __future__ import annotations

import contextvars
import datetime as dt
import time
import warnings
from typing import Any

import redis
from telegram import Bot, CallbackQuery, InputFile, Message, ReplyParameters, TelegramObject
from telegram.error import RetryAfter
from telegram.warnings import PTBDeprecationWarning

from service.platforms.telegram import limits, notices

# The method to put in the current webhook answer: None outside a webhook request, an
# empty dict until a handler fills it.
_reply: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "webhook_reply", default=None
)


def open_reply(budget: redis.Redis | None = None) -> dict[str, Any]:
    """Start collecting the current update's webhook answer (web.py, per request); the
    messages the update sends take their turn in `budget`'s flood limits."""
    reply: dict[str, Any] = {}
    _reply.set(reply)
    _budget.set(budget)
    return reply


async def answer_press(
    query: CallbackQuery, text: str | None = None, show_alert: bool = False, url: str | None = None
) -> None:
    """answerCallbackQuery, in the webhook's answer if this update has none yet."""
    if type(query.id) is not str:  # not Telegram's: nothing to answer (PTB keeps odd fields)
        return
    if not in_reply(query.id, text, show_alert, url):
        await query.answer(text, show_alert=show_alert, url=url)


def in_reply(
    query_id: str, text: str | None = None, show_alert: bool = False, url: str | None = None
) -> bool:
    """answerCallbackQuery put in the webhook's answer; False when there is no answer
    to put it in (outside a webhook request, or this update's has a method already)."""
    reply = _reply.get()
    if reply is None or reply:
        return False
    reply["method"] = "answerCallbackQuery"
    reply["callback_query_id"] = query_id
    if text:
        reply["text"] = text
    if show_alert:
        reply["show_alert"] = True
    if url:
        reply["url"] = url
    return True


# ----- messages serve sends itself ----------------------------------------------------

# Redis for the flood budget of the current webhook request; None outside one (a test
# calling a handler directly sends at once).
_budget: contextvars.ContextVar[redis.Redis | None] = contextvars.ContextVar(
    "webhook_budget", default=None
)


async def send_message(
    bot: Bot, chat_id: int, text: str, budget: redis.Redis | None = None, **params: Any
) -> None:
    """sendMessage within the chat's share of the flood budget the outbox keeps in Redis
    (`limits`; `budget`, else the current webhook request's): sent now if the budget
    allows, else queued as a notice to be sent when it does (service.infra.notices); a
    429 queues it too, so no reply is lost (only a chat flooding commands, with a queue
    already full, has more dropped)."""
    client = budget or _budget.get()
    if client is None:
        await bot.send_message(chat_id, text, **params)
        return
    wait = limits.reserve(client, chat_id, group=chat_id < 0)
    if wait <= 0:
        try:
            await bot.send_message(chat_id, text, **params)
            return
        except RetryAfter as error:
            wait = retry_seconds(error)
    notices.queue(client, {"chat_id": chat_id, "text": text, **as_json(params)}, time.time() + wait)


async def reply_to(message: Message, text: str, **params: Any) -> None:
    """A reply to a message, in its topic; quoting it in a group, as PTB's reply_text."""
    _in_place(message, params)
    await send_message(message.get_bot(), message.chat_id, text, **params)


async def reply_with_file(
    message: Message, document: InputFile, caption: str, busy: str, **params: Any
) -> None:
    """A file in reply to a message, within the chat's flood budget. A file is not kept
    waiting in Redis: when the budget is spent (or Telegram answers 429) the chat gets
    `busy` instead (asking to try again), which waits its turn like any reply."""
    _in_place(message, params)
    client, bot = _budget.get(), message.get_bot()
    if client is not None and limits.reserve(client, message.chat_id, message.chat_id < 0) > 0:
        await send_message(bot, message.chat_id, busy, **params)
        return
    try:
        await bot.send_document(message.chat_id, document, caption=caption, **params)
    except RetryAfter:
        await send_message(bot, message.chat_id, busy, **params)


def _in_place(message: Message, params: dict[str, Any]) -> None:
    """Where a reply to `message` goes: its topic; quoting it in a group (sent even if
    it was deleted meanwhile)."""
    if message.is_topic_message and message.message_thread_id is not None:
        params.setdefault("message_thread_id", message.message_thread_id)
    if message.chat.type != "private":
        params.setdefault(
            "reply_parameters",
            ReplyParameters(message.message_id, allow_sending_without_reply=True),
        )


def retry_seconds(error: RetryAfter) -> float:
    """A 429's wait (PTB warns that its type will change from int to timedelta)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, dt.timedelta) else float(value)


def as_json(params: dict[str, Any]) -> dict[str, Any]:
    """PTB's keyword arguments as the Bot API's JSON values."""
    return {
        key: value.to_dict() if isinstance(value, TelegramObject) else value
        for key, value in params.items()
        if value is not None
    }
