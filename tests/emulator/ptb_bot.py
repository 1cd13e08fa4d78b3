"""A tiny real python-telegram-bot application, served by webhook, for end-to-end tests
of the emulator. It uses the Bot API the way the service will: commands, inline
keyboards, callback answers, edits, inline mode, documents, and honouring 429s."""

from __future__ import annotations

import asyncio
import datetime as dtm
import warnings
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import RetryAfter
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
)

from emulator import ServerThread

SECRET = "s3cret_token-for-tests"


@dataclass
class BotRecord:
    """What the bot saw and did, for the test to check."""

    chosen: list[str] = field(default_factory=list)
    retries: list[float] = field(default_factory=list)  # retry_after values honoured
    webhook_failures_left: int = 0
    delivered: int = 0


def _seconds(error: RetryAfter) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value: Any = error.retry_after
    return value.total_seconds() if isinstance(value, dtm.timedelta) else float(value)


def build_application(
    api_url: str, token: str, record: BotRecord
) -> Application[Any, Any, Any, Any, Any, Any]:
    application = (
        Application.builder()
        .token(token)
        .base_url(f"{api_url}/bot")
        .base_file_url(f"{api_url}/file/bot")
        .updater(None)
        .build()
    )

    def play_keyboard(n: int) -> InlineKeyboardMarkup:
        return InlineKeyboardMarkup(
            [
                [InlineKeyboardButton(f"Play {n}", callback_data=f"play:{n}")],
                [
                    InlineKeyboardButton("Hand", switch_inline_query_current_chat="hand"),
                    InlineKeyboardButton("Alert", callback_data="alert"),
                ],
            ]
        )

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_message and update.effective_user
        payload = " ".join(context.args or [])
        text = f"Hello <b>{update.effective_user.first_name}</b>!"
        if payload:
            text += f" payload={payload}"
        await update.effective_message.reply_text(
            text, parse_mode=ParseMode.HTML, reply_markup=play_keyboard(1)
        )

    async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None and query.data is not None
        if query.data == "alert":
            await query.answer("Careful!", show_alert=True)
        elif query.data.startswith("play:"):
            n = int(query.data.split(":")[1])
            await query.answer(f"Played {n}")
            await query.edit_message_text(f"Played {n}", reply_markup=play_keyboard(n + 1))
        elif query.data.startswith("take:"):
            await query.answer("Taken")
            await query.edit_message_text(f"Taken by {query.from_user.first_name}")

    async def inline(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.inline_query is not None
        cards = [("AS", "Ace of spades", "A♠"), ("7H", "Seven of hearts", "7♥")]
        results = [
            InlineQueryResultArticle(
                id=code,
                title=title,
                description=f"query: {update.inline_query.query}",
                input_message_content=InputTextMessageContent(
                    f"{update.inline_query.from_user.first_name} plays {glyph}"
                ),
                reply_markup=InlineKeyboardMarkup(
                    [[InlineKeyboardButton("Take", callback_data=f"take:{code}")]]
                ),
            )
            for code, title, glyph in cards
        ]
        await update.inline_query.answer(results, cache_time=0, is_personal=True)

    async def chosen(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.chosen_inline_result is not None
        record.chosen.append(update.chosen_inline_result.result_id)

    async def burst(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None
        count = int((context.args or ["5"])[0])
        for i in range(1, count + 1):
            for _attempt in range(10):
                try:
                    await context.bot.send_message(update.effective_chat.id, f"burst {i}")
                    break
                except RetryAfter as error:
                    record.retries.append(_seconds(error))
                    await asyncio.sleep(_seconds(error))

    async def document(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None
        await context.bot.send_document(
            update.effective_chat.id,
            document=b'{"format": "burro-record/1"}',
            filename="game.json",
            caption="The <i>record</i>",
            parse_mode=ParseMode.HTML,
        )

    application.add_handler(CommandHandler("start", start))
    application.add_handler(CommandHandler("burst", burst))
    application.add_handler(CommandHandler("record", document))
    application.add_handler(CallbackQueryHandler(button))
    application.add_handler(InlineQueryHandler(inline))
    application.add_handler(ChosenInlineResultHandler(chosen))
    return application


def webhook_app(
    application: Application[Any, Any, Any, Any, Any, Any], record: BotRecord, url: list[str]
) -> Starlette:
    """The bot's web process: checks the secret, processes the update, then answers."""

    async def hook(request: Request) -> Response:
        if request.headers.get("X-Telegram-Bot-Api-Secret-Token") != SECRET:
            return Response(status_code=403)
        if record.webhook_failures_left > 0:
            record.webhook_failures_left -= 1
            return Response(status_code=500)
        update = Update.de_json(await request.json(), application.bot)
        await application.process_update(update)
        record.delivered += 1
        return Response()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await application.initialize()
        await application.bot.set_webhook(url[0], secret_token=SECRET)
        yield
        await application.shutdown()

    return Starlette(routes=[Route("/telegram/webhook", hook, methods=["POST"])], lifespan=lifespan)


@contextmanager
def running_bot(api_url: str, token: str) -> Iterator[BotRecord]:
    record = BotRecord()
    application = build_application(api_url, token, record)
    url: list[str] = []
    server = ServerThread(webhook_app(application, record, url))
    url.append(f"{server.url}/telegram/webhook")
    with server:
        yield record
