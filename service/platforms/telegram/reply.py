"""Messages serve sends itself (command replies, the rules, a chat's changes) take
their turn in the flood budget the outbox keeps in Redis, or wait for it as notices
(`send_message`). A press's answer rides on the webhook's own HTTP answer instead
(answer.Exchange).
"""

from __future__ import annotations

import datetime as dt
import time
import warnings
from typing import Any

import redis
from telegram import Bot, Message, ReplyParameters, TelegramObject
from telegram.error import RetryAfter
from telegram.warnings import PTBDeprecationWarning

from service.platforms.telegram import limits, notices


async def send_message(
    bot: Bot, chat_id: int, text: str, budget: redis.Redis | None = None, **params: Any
) -> None:
    """sendMessage within the chat's share of the flood budget the outbox keeps in Redis
    (`limits`, in `budget`: the webhook request's; None sends at once): sent now if the
    budget allows, else queued as a notice to be sent when it does
    (service.infra.notices); a 429 queues it too, so no reply is lost (only a chat
    flooding commands, with a queue already full, has more dropped)."""
    if budget is None:
        await bot.send_message(chat_id, text, **params)
        return
    wait = limits.reserve(budget, chat_id, group=chat_id < 0)
    if wait <= 0:
        try:
            await bot.send_message(chat_id, text, **params)
            return
        except RetryAfter as error:
            wait = retry_seconds(error)
    notices.queue(budget, {"chat_id": chat_id, "text": text, **as_json(params)}, time.time() + wait)


async def reply_to(message: Message, text: str, budget: redis.Redis | None, **params: Any) -> None:
    """A reply to a message, in its topic; quoting it in a group, as PTB's reply_text."""
    _in_place(message, params)
    await send_message(message.get_bot(), message.chat_id, text, budget, **params)


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
