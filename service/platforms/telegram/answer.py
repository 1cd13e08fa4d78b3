"""The desk's reply drawn on Telegram: a press's popup rides on the webhook's own HTTP
answer (answerCallbackQuery, see `reply`), its lines are messages to the chat (a
command's quote it in a group, in its topic), their choices inline buttons, a file a
document; the pressed question goes or says its answer (`Reply.replaced`). A line's
marks (service.ui.spans: a mention, a moment) go as entities; a popup has none, so its
words alone."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from typing import Any

import redis
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, ReplyParameters
from telegram.error import RetryAfter, TelegramError

from service.desk.asks import Choice, Line, Place, Reply, Request
from service.platforms.telegram import limits
from service.platforms.telegram.render import text_params
from service.platforms.telegram.reply import send_message
from service.ui import spans
from service.ui.text_limits import cut_utf16

POPUP = 200  # Telegram's limit on a callback answer's text


@dataclass(frozen=True)
class Pressed:
    """The callback query a press came with, and the message its button was on."""

    query_id: str
    chat_id: int | None = None
    message_id: int | None = None
    inline_message_id: str | None = None


@dataclass
class Exchange:
    """One webhook request of Telegram's: the flood budget its messages take their turn
    in, and the method that rides on its HTTP answer (filled once)."""

    budget: redis.Redis | None
    answer: dict[str, Any] = field(default_factory=dict)

    def answer_press(self, pressed: Pressed, reply: Reply) -> None:
        """answerCallbackQuery in the HTTP answer: every press is answered (the
        button's spinner stops), with the reply's popup or link if it has one."""
        self.answer = {"method": "answerCallbackQuery", "callback_query_id": pressed.query_id}
        if reply.popup:
            self.answer["text"] = cut_utf16(spans.plain(reply.popup), POPUP)
        if reply.alert and reply.popup:
            self.answer["show_alert"] = True
        if reply.url:
            self.answer["url"] = reply.url


async def deliver(
    bot: Bot, exchange: Exchange, request: Request, reply: Reply, pressed: Pressed | None
) -> None:
    """Draw the reply: a press's answer and the pressed question, then the lines."""
    if pressed is not None:
        exchange.answer_press(pressed, reply)
        if reply.replaced:
            await replace_question(bot, pressed, reply)
            return
    lines = reply.lines
    if pressed is None and not lines and reply.popup:  # a command refused: said in the chat
        lines = (Line(reply.popup),)
    if reply.private and not request.place.private:  # the sender's alone: their own chat
        request = replace(request, place=Place(request.sender.player), message=None)
    for line in lines:
        await send_line(bot, exchange, request, line)


async def replace_question(bot: Bot, pressed: Pressed, reply: Reply) -> None:
    """The question is answered: it says the answer (the reply's first line), or goes."""
    if pressed.chat_id is None or pressed.message_id is None:
        return
    with contextlib.suppress(TelegramError):  # deleted already, or too old to change
        if reply.lines:
            text, marks = drawn(reply.lines[0].text)
            await bot.edit_message_text(text, pressed.chat_id, pressed.message_id, **marks)
        else:
            await bot.delete_message(pressed.chat_id, pressed.message_id)


async def send_line(bot: Bot, exchange: Exchange, request: Request, line: Line) -> None:
    place = request.place
    if place.chat is None:
        return
    params: dict[str, Any] = {}
    if place.topic is not None:
        params["message_thread_id"] = place.topic
    if not place.private and request.message is not None:  # quote the command
        params["reply_parameters"] = ReplyParameters(
            request.message, allow_sending_without_reply=True
        )
    if line.choices:
        params["reply_markup"] = keyboard(line.choices)
    if line.file is not None:
        await send_file(bot, exchange, place.chat, line, params)
        return
    text, marks = drawn(line.text)
    await send_message(bot, place.chat, text, budget=exchange.budget, **params, **marks)


def drawn(text: str, key: str = "entities") -> tuple[str, dict[str, Any]]:
    """A line's words, and its marks as the `key` parameter (entities, caption_entities)
    if it has any. The entities stay JSON values: PTB sends them as they are, and a line
    kept waiting for the flood budget (a notice) is kept as JSON."""
    params = text_params(text)
    entities = params.get("entities")
    return params["text"], {key: entities} if entities else {}


async def send_file(
    bot: Bot, exchange: Exchange, chat: int, line: Line, params: dict[str, Any]
) -> None:
    """A file within the chat's flood budget. A file is not kept waiting in Redis: when
    the budget is spent (or Telegram answers 429) the chat gets the line's `busy`."""
    assert line.file is not None
    busy, busy_marks = drawn(line.busy or line.text)
    budget = exchange.budget
    if budget is not None and limits.reserve(budget, chat, chat < 0) > 0:
        await send_message(bot, chat, busy, budget=budget, **params, **busy_marks)
        return
    document = InputFile(line.file.data, filename=line.file.name)
    caption, marks = drawn(line.text, "caption_entities")
    try:
        await bot.send_document(chat, document, caption=caption, **params, **marks)
    except RetryAfter:
        await send_message(bot, chat, busy, budget=budget, **params, **busy_marks)


def keyboard(rows: tuple[tuple[Choice, ...], ...]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[button(choice) for choice in row] for row in rows])


def button(choice: Choice) -> InlineKeyboardButton:
    label = spans.plain(choice.label)  # a button shows words only
    if choice.url is not None:
        return InlineKeyboardButton(label, url=choice.url)
    return InlineKeyboardButton(label, callback_data=choice.ask)
