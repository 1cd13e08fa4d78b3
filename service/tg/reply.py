"""Answering a button press in the webhook's own HTTP answer.

Telegram runs one Bot API method put in the answer to a webhook request ({"method": …,
parameters}). A press must be answered (answerCallbackQuery: it stops the button's
spinner, maybe with a popup) and nothing needs that call's result, so the answer rides
on the webhook's 200 instead of costing a request of its own: about a fifth of the
work of a move in `burro serve` (BENCHMARKS.md). Outside a webhook request (tests that
call handlers directly, a second answer to the same update) it is a normal call.
"""

from __future__ import annotations

import contextvars
from typing import Any

from telegram import CallbackQuery

# The method to put in the current webhook answer: None outside a webhook request, an
# empty dict until a handler fills it.
_reply: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "webhook_reply", default=None
)


def open_reply() -> dict[str, Any]:
    """Start collecting the current update's webhook answer (web.py, per request)."""
    reply: dict[str, Any] = {}
    _reply.set(reply)
    return reply


async def answer_press(
    query: CallbackQuery, text: str | None = None, show_alert: bool = False, url: str | None = None
) -> None:
    """answerCallbackQuery, in the webhook's answer if this update has none yet."""
    reply = _reply.get()
    if reply is None or reply:
        await query.answer(text, show_alert=show_alert, url=url)
        return
    reply["method"] = "answerCallbackQuery"
    reply["callback_query_id"] = query.id
    if text:
        reply["text"] = text
    if show_alert:
        reply["show_alert"] = True
    if url:
        reply["url"] = url
