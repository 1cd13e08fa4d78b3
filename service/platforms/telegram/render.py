"""Screens as Bot API parameters (plain text with entities, inline keyboards): pure, no
I/O.

Each button's intent (service.ui.intents) becomes its wire form here (`callbacks`):
a press callback_data; "show my cards" a press answered with the hand shown to the
presser alone (ephemeral messages, where Telegram takes them: `Wire.personal`), else
an inline query in the current chat (inline mode on), else nothing; "open in private" a
deep link to the bot's chat. A screen's marks (service.ui.spans) become entities: a
mention notifies its person, a moment shows in each reader's own time zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.platforms.telegram import callbacks
from service.platforms.telegram.view_buttons import MiniApp, view_button
from service.ui import spans
from service.ui.intents import Command, OpenPrivate, OpenView, Press, ShowCards
from service.ui.screens import Button, Screen
from service.ui.text_limits import cut_utf16, utf16_len

MAX_TEXT = 4096  # UTF-16 code units, as Telegram counts
DEFAULT_BOT = "burro_bot"
# Bot API button styles for our tones: green to play, blue to call, red for what costs.
STYLES = {"go": "success", "call": "primary", "danger": "danger"}
# How a moment is drawn: the reader's short time ("18:00"); a deadline is within a day.
TIME_FORMAT = "t"


@dataclass(frozen=True)
class Wire:
    """What the bot can use on Telegram (BotFather's settings, the API's answers):
    `inline` mode, `personal` (ephemeral) messages in groups."""

    inline: bool = True
    personal: bool = False
    bot_username: str = DEFAULT_BOT
    mini_app: MiniApp | None = None  # the view's Mini App (None: no "🖼 Table" button)


def keyboard(screen: Screen, wire: Wire = Wire()) -> dict[str, Any] | None:
    """The screen's buttons; none that the bot cannot serve (a "show my cards" with
    neither ephemeral messages nor inline mode)."""
    rows = [[b for b in row if shown(b, wire)] for row in screen.rows]
    rows = [row for row in rows if row]
    if not rows:
        return None
    return {"inline_keyboard": [[button(b, wire) for b in row] for row in rows]}


def shown(b: Button, wire: Wire) -> bool:
    if isinstance(b.intent, OpenView):
        return wire.mini_app is not None
    return not isinstance(b.intent, ShowCards) or wire.inline or wire.personal


def button(b: Button, wire: Wire = Wire()) -> dict[str, Any]:
    drawn = wire_form(b, wire)
    return drawn | {"style": STYLES[b.tone]} if b.tone is not None else drawn


def wire_form(b: Button, wire: Wire) -> dict[str, Any]:
    intent = b.intent
    if isinstance(intent, Press):
        return {"text": b.label, "callback_data": callbacks.data(intent)}
    if isinstance(intent, ShowCards) and wire.personal:
        press = Press(intent.room, 0, Command("hand"))  # the hand as it is: no version
        return {"text": b.label, "callback_data": callbacks.data(press)}
    if isinstance(intent, ShowCards):
        query = callbacks.inline_query(intent.room)
        return {"text": b.label, "switch_inline_query_current_chat": query}
    if isinstance(intent, OpenView):
        assert wire.mini_app is not None  # `shown` leaves it out otherwise
        return view_button(b.label, intent, wire.mini_app, wire.bot_username)
    assert isinstance(intent, OpenPrivate)
    return {"text": b.label, "url": callbacks.deep_link(wire.bot_username, intent.room)}


def text_params(text: str) -> dict[str, Any]:
    """A text with its marks as entities, within Telegram's length."""
    words, marks = spans.split(text)
    cut = cut_utf16(words, MAX_TEXT)
    params: dict[str, Any] = {"text": cut}
    entities = [entity(cut, span) for span in marks if span.end <= len(cut)]
    if entities:
        params["entities"] = entities
    return params


def entity(text: str, span: spans.Span) -> dict[str, Any]:
    """A mark as a Bot API MessageEntity (offsets in UTF-16 code units)."""
    offset = utf16_len(text[: span.start])
    length = utf16_len(text[span.start : span.end])
    at = {"offset": offset, "length": length}
    if span.kind == "mention":
        user = {"id": span.value, "is_bot": False, "first_name": text[span.start : span.end]}
        return {"type": "text_mention", **at, "user": user}
    return {"type": "date_time", **at, "unix_time": span.value, "date_time_format": TIME_FORMAT}


def message_params(screen: Screen, wire: Wire = Wire()) -> dict[str, Any]:
    """sendMessage / editMessageText parameters for a screen (chat and ids added later)."""
    params = text_params(screen.text)
    markup = keyboard(screen, wire)
    if markup is not None:
        params["reply_markup"] = markup
    return params
