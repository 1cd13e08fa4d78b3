"""The hand through an inline query in the group: "🃏 My cards" opens `@bot g<room>`;
the personal results are the player's cards (the legal ones marked playable) and their
other moves.

Choosing a result posts a message in the group that shows no card ("🃏 I choose a
card."; the table announces the play) with a "✅ Confirm" button that only the chooser
may press. The move is made by whichever comes first: the chosen_inline_result update,
which Telegram sends only with inline feedback on (BotFather's /setinlinefeedback), or
the press. Then the button goes away; a refused move says why (a popup for the press,
the posted message for the chosen result)."""

from __future__ import annotations

import re
from collections.abc import Callable

from telegram import (
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Update,
)
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from service.i18n import Translator, _
from service.platforms.telegram import callbacks
from service.platforms.telegram.answer import POPUP
from service.platforms.telegram.people import actor_of
from service.platforms.telegram.render import MAX_TEXT
from service.platforms.telegram.reply import answer_press
from service.services import Services
from service.table import play
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room
from service.ui import games
from service.ui.intents import Choice, Move, NotPlayable
from service.ui.text_limits import cut_utf16

PAGE = 50  # Telegram's limit on results per answer
# A posted result's button: `i<seat>:<token>`, the seat that chose it and its move.
CHOSEN = re.compile(r"^i(\d{1,2}):(.+)$")
CALLBACK_PATTERN = r"^[a-z0-9]{8}\.\d+\.i\d{1,2}:"  # app.py routes these presses here

Change = Callable[[Room], Outcome]


def result(choice: Choice, seat: int, tr: Translator) -> InlineQueryResultArticle:
    """One entry of the list: choosing it posts its words with the Confirm button that
    only `seat` may press."""
    press = choice.press
    inner = callbacks.token(press.what)
    confirm = InlineKeyboardButton(
        tr.gettext(_("✅ Confirm")),
        callback_data=callbacks.encode(press.room, press.version, f"i{seat}:{inner}"),
    )
    text = choice.said or tr.gettext(_("🃏 I choose a card."))
    return InlineQueryResultArticle(
        id=callbacks.data(press),
        title=choice.title,
        description=choice.description or None,
        input_message_content=InputTextMessageContent(text),
        reply_markup=InlineKeyboardMarkup([[confirm]]),
    )


async def on_inline_query(
    update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services
) -> None:
    query = update.inline_query
    if query is None:
        return
    actor = actor_of(svc, query.from_user)
    tr = Translator(actor.lang)
    room_id = query.query.strip().removeprefix("g")
    room = svc.store.load(room_id) if len(room_id) == 8 else None
    seat = room.seat_of(actor.user_id) if room else None
    if room is None or room.game is None or seat is None or room.status != "playing":
        await query.answer([], cache_time=0, is_personal=True)
        return
    items = [result(c, seat, tr) for c in games.painter(room, actor.lang).choices(seat)]
    offset = int(query.offset or 0) if (query.offset or "0").isdigit() else 0
    page = items[offset : offset + PAGE]
    next_offset = str(offset + PAGE) if offset + PAGE < len(items) else ""
    private = InlineQueryResultsButton(
        text=tr.gettext(_("💬 Play in private")), start_parameter=f"g{room.id}"
    )
    await query.answer(
        page, cache_time=0, is_personal=True, next_offset=next_offset, button=private
    )


def chosen_change(svc: Services, room: Room, raw: callbacks.Raw, actor: Actor) -> Change | Outcome:
    """The move a chosen result's token asks for, or why it cannot be made."""
    what, now, delay = callbacks.intent_of(raw.action), svc.now(), svc.settings.bot_delay
    if isinstance(what, NotPlayable):
        return Outcome().say(_("That card cannot be played now."))
    if not isinstance(what, Move):
        return Outcome().say(_("This button is not one of ours."))
    return play.press(room, raw.version, actor.user_id, what.action, now, delay)


def make_move(
    svc: Services, press: callbacks.Raw, actor: Actor, update_id: int, seat: int | None = None
) -> tuple[Outcome, bool]:
    """Make the move of a chosen result (`seat`: only that seat may): what to tell the
    player, and whether the move was made."""
    room = svc.store.load(press.room)
    if room is None:
        return Outcome().say(_("This game is over.")), False
    if seat is not None and room.seat_of(actor.user_id) != seat:
        return Outcome().say(_("Only the player who chose this card can confirm it.")), False
    change = chosen_change(svc, room, press, actor)
    if isinstance(change, Outcome):
        return change, False
    result = svc.store.update(press.room, change, update_id, loaded=room)
    if result is None:  # handled already (Telegram delivered the update again)
        return Outcome(), False
    return result[1], result[1].changed


async def on_chosen(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    """A result was chosen (inline feedback on): make its move at once and settle the
    posted message: the button goes, and a refused move says why there."""
    chosen = update.chosen_inline_result
    press = callbacks.decode(chosen.result_id) if chosen else None
    if chosen is None or press is None:
        return
    actor = actor_of(svc, chosen.from_user)
    outcome, made = make_move(svc, press, actor, update.update_id)
    if chosen.inline_message_id is None or (not made and outcome.popup is None):
        return
    text = None
    if not made and outcome.popup is not None:
        tr = Translator(actor.lang)
        text = "🃏 " + tr.gettext(outcome.popup.message, **dict(outcome.popup.values))
    await settle(context, chosen.inline_message_id, text)


async def on_press(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    """The posted result's "✅ Confirm": the chooser makes the move (unless the chosen
    result made it already); anyone else is told it is not theirs."""
    query = update.callback_query
    if query is None or query.from_user is None:
        return
    actor = actor_of(svc, query.from_user)
    press = callbacks.decode(query.data)
    match = CHOSEN.match(press.action) if press else None
    if press is None or match is None:
        outcome, made = Outcome().say(_("This button is not one of ours.")), False
    else:
        inner = callbacks.Raw(press.room, press.version, match.group(2))
        outcome, made = make_move(svc, inner, actor, update.update_id, int(match.group(1)))
    await answer(query, Translator(actor.lang), outcome)
    if made and query.inline_message_id is not None:
        await settle(context, query.inline_message_id, None)


async def answer(query: CallbackQuery, tr: Translator, outcome: Outcome) -> None:
    """A Confirm's answer: the outcome's popup, within Telegram's limit."""
    popup = outcome.popup
    text = tr.gettext(popup.message, **dict(popup.values)) if popup else None
    alert = popup.alert if popup else False
    await answer_press(query, cut_utf16(text, POPUP) if text else None, show_alert=alert)


async def settle(
    context: ContextTypes.DEFAULT_TYPE, inline_message_id: str, text: str | None
) -> None:
    """Take the Confirm button off a posted result, saying `text` instead if given."""
    try:
        if text is None:
            await context.bot.edit_message_reply_markup(inline_message_id=inline_message_id)
        else:
            await context.bot.edit_message_text(
                cut_utf16(text, MAX_TEXT), inline_message_id=inline_message_id
            )
    except TelegramError:
        pass  # pressed and chosen at once, or the message is gone: nothing left to settle
