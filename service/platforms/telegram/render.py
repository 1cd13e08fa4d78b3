"""Screens as Bot API parameters (plain text with entities, inline keyboards): pure, no
I/O.

Each button's intent (service.ui.intents) becomes its wire form here (`callbacks`):
a press callback_data; "show my cards" a press answered with the hand shown to the
presser alone (ephemeral messages, where Telegram takes them: `Wire.personal`), else
an inline query in the current chat (inline mode on), else nothing; "open in private" a
deep link to the bot's chat. A screen's marks (service.ui.spans) become entities: a
mention notifies its person, a moment shows in each reader's own time zone.

A screen with a picture (a hand drawn: service.ui.picture), where the Bot API takes
widgets (`Wire.widgets`), carries its widget form beside its text (`WIDGET`,
`widget_form`): the packed picture, and a caption of the table's name and status line.
The delivery sends the widget where the chat takes one, else the text.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from service.platforms.telegram import callbacks
from service.platforms.telegram.view_buttons import MiniApp, view_button
from service.platforms.telegram.widgets import WidgetForm
from service.ui import spans
from service.ui.intents import Command, OpenPrivate, OpenView, Press, ShowCards
from service.ui.picture import Picture, pack
from service.ui.screens import Button, Screen
from service.ui.text_limits import cut_utf16, utf16_len

MAX_TEXT = 4096  # UTF-16 code units, as Telegram counts
MAX_CAPTION = 1024  # a widget's caption, counted as a text is
WIDGET = "widget"  # a rendered message's widget form (`widget_form`), beside its text
DEFAULT_BOT = "burro_bot"
# Bot API button styles for our tones: green to play, blue to call, red for what costs.
STYLES = {"go": "success", "call": "primary", "danger": "danger"}
# How a moment is drawn: the reader's short time ("18:00"); a deadline is within a day.
TIME_FORMAT = "t"
log = logging.getLogger("burro.outbox")


@dataclass(frozen=True)
class Wire:
    """What the bot can use on Telegram (BotFather's settings, the API's answers):
    `inline` mode, `personal` (ephemeral) messages in groups."""

    inline: bool = True
    personal: bool = False
    bot_username: str = DEFAULT_BOT
    mini_app: MiniApp | None = None  # the view's Mini App (None: no "🖼 Table" button)
    widgets: bool = False  # the Bot API takes widgets (10.4): a picture may be drawn


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


def drawn_params(screen: Screen, wire: Wire = Wire()) -> dict[str, Any]:
    """A screen's message: its text form (`message_params`) and, for a screen with a
    picture where the Bot API takes widgets, its widget form beside it (`WIDGET`)."""
    params = message_params(screen, wire)
    if screen.picture is None or not wire.widgets:
        return params
    form = widget_form(screen.picture)
    return params if form is None else params | {WIDGET: form}


def widget_form(picture: Picture) -> WidgetForm | None:
    """The picture as a widget message's data and caption; None (the text alone) for a
    picture that does not fit a widget's data even cut short (service.ui.picture.pack)."""
    try:
        data = pack(picture)
    except ValueError as error:
        log.warning("a picture left out: %s", error)
        return None
    words, marks = spans.split("\n".join(line for line in (picture.title, picture.status) if line))
    caption = cut_utf16(words, MAX_CAPTION)
    form: WidgetForm = {"chat_data": data, "caption": caption}
    entities = [entity(caption, span) for span in marks if span.end <= len(caption)]
    if entities:
        form["caption_entities"] = entities
    return form


def text_form(message: dict[str, Any]) -> dict[str, Any]:
    """A rendered message without its widget form: what sendMessage takes."""
    return {key: value for key, value in message.items() if key != WIDGET}
