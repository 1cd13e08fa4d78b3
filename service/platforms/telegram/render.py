"""Screens as Bot API parameters (plain text, inline keyboards): pure, no I/O.

Each button's intent (service.ui.intents) becomes its wire form here (`callbacks`):
a press callback_data, "show my cards" an inline query in the current chat, "open in
private" a deep link to the bot's chat.
"""

from __future__ import annotations

from typing import Any

from service.platforms.telegram import callbacks
from service.ui.intents import OpenPrivate, Press, ShowCards
from service.ui.screens import Button, Screen
from service.ui.text_limits import cut_utf16

MAX_TEXT = 4096  # UTF-16 code units, as Telegram counts
DEFAULT_BOT = "burro_bot"


def keyboard(
    screen: Screen, inline: bool = True, bot_username: str = DEFAULT_BOT
) -> dict[str, Any] | None:
    """The screen's buttons; without `inline` (the bot has no inline mode, see
    tg.botfather) none that opens an inline query."""
    rows = [
        [b for b in row if inline or not isinstance(b.intent, ShowCards)] for row in screen.rows
    ]
    rows = [row for row in rows if row]
    if not rows:
        return None
    return {"inline_keyboard": [[button(b, bot_username) for b in row] for row in rows]}


def button(b: Button, bot_username: str = DEFAULT_BOT) -> dict[str, Any]:
    intent = b.intent
    if isinstance(intent, Press):
        return {"text": b.label, "callback_data": callbacks.data(intent)}
    if isinstance(intent, ShowCards):
        query = callbacks.inline_query(intent.room)
        return {"text": b.label, "switch_inline_query_current_chat": query}
    assert isinstance(intent, OpenPrivate)
    return {"text": b.label, "url": callbacks.deep_link(bot_username, intent.room)}


def message_params(
    screen: Screen, inline: bool = True, bot_username: str = DEFAULT_BOT
) -> dict[str, Any]:
    """sendMessage / editMessageText parameters for a screen (chat and ids added later)."""
    params: dict[str, Any] = {"text": cut_utf16(screen.text, MAX_TEXT)}
    markup = keyboard(screen, inline, bot_username)
    if markup is not None:
        params["reply_markup"] = markup
    return params
