"""The hand through an inline query in the group: "🃏 My cards" opens `@bot g<room>`;
the personal results are the player's cards (the legal ones marked playable) and their
other moves.

Choosing a result posts a message in the group that shows no card ("🃏 I choose a
card."; the table announces the play) with a "✅ Confirm" button that only the chooser
may press. The move is made by whichever comes first: the chosen_inline_result update,
which Telegram sends only with inline feedback on (BotFather's /setinlinefeedback), or
the press. Either is a press of the move for the desk, as any other (its claim, the
queued press, its answer); inline mode checks only what is its own first (a card that
cannot be played, the chooser's seat). Then the button goes away; a refused move says
why (a popup for the press, the posted message for the chosen result)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Update,
    User,
)
from telegram.error import TelegramError

from service.desk.asks import Place, PressAsk, Reply, Request, Sender
from service.desk.desk import Desk, Handled
from service.i18n import Translator, _
from service.platforms.telegram import callbacks
from service.platforms.telegram.answer import Exchange, Pressed
from service.platforms.telegram.people import actor_of, display_name, language_of
from service.platforms.telegram.render import MAX_TEXT
from service.services import Services
from service.ui import games
from service.ui.intents import Choice, Move, NotPlayable, Press
from service.ui.text_limits import cut_utf16

PAGE = 50  # Telegram's limit on results per answer
# A posted result's button: `i<seat>:<token>`, the seat that chose it and its move.
CHOSEN = re.compile(r"^i(\d{1,2}):(.+)$")
CALLBACK_PATTERN = r"^[a-z0-9]{8}\.\d+\.i\d{1,2}:"  # these presses are inline mode's
NOWHERE = Place(None, None, False)  # a posted result is in no chat the bot reads


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


async def on_inline_query(update: Update, exchange: Exchange, svc: Services) -> None:
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


# ----- a chosen result's move -------------------------------------------------------


@dataclass(frozen=True)
class Chosen:
    """A chosen result's move: the result chosen (`seat` None), or the posted message's
    Confirm pressed (by `sender`; only `seat` may); `press` None when it is not ours."""

    mark: int  # the update's id
    sender: Sender
    press: Press | None
    posted: str | None  # the posted message's inline_message_id
    seat: int | None = None
    pressed: Pressed | None = None  # the Confirm's callback query


def chosen_of(update: Update) -> Chosen | None:
    """The move an update of inline mode makes; None for any other update (or one whose
    fields are not what Telegram sends: PTB keeps odd types as sent)."""
    try:
        return chosen_result(update) or confirm_pressed(update)
    except (AttributeError, TypeError, ValueError):
        return None


def chosen_result(update: Update) -> Chosen | None:
    result = update.chosen_inline_result
    if result is None or result.from_user is None or type(result.from_user.id) is not int:
        return None
    press, sender = callbacks.press(result.result_id), sender_of(result.from_user)
    return Chosen(update.update_id, sender, press, result.inline_message_id)


def confirm_pressed(update: Update) -> Chosen | None:
    query = update.callback_query
    data = query.data if query is not None else None
    if query is None or query.from_user is None or type(query.id) is not str:
        return None
    if type(query.from_user.id) is not int:
        return None
    if not isinstance(data, str) or not re.match(CALLBACK_PATTERN, data):
        return None
    raw = callbacks.decode(data)
    match = CHOSEN.match(raw.action) if raw is not None else None
    press, seat = None, None
    if raw is not None and match is not None:
        press = callbacks.press_of(callbacks.Raw(raw.room, raw.version, match.group(2)))
        seat = int(match.group(1))
    posted, sender = query.inline_message_id, sender_of(query.from_user)
    pressed = Pressed(query.id, inline_message_id=posted)
    return Chosen(update.update_id, sender, press, posted, seat, pressed)


def sender_of(user: User) -> Sender:
    return Sender(user.id, display_name(user), language_of(user))


async def make_move(desk: Desk, exchange: Exchange, chosen: Chosen, bot: Bot) -> Handled:
    """Make a chosen result's move through the desk, unless inline mode refuses it
    first; a Confirm is answered in the webhook's HTTP answer, and the posted message
    is settled."""
    refusal = refusal_of(desk.svc, chosen)
    if refusal is None:
        assert chosen.press is not None
        request = Request(chosen.mark, chosen.sender, NOWHERE, PressAsk(chosen.press))
        handled = await desk.handle(request)
    else:
        handled = Handled("ok", Reply(popup=refusal))
    if chosen.pressed is not None and handled.outcome in ("ok", "duplicate"):
        exchange.answer_press(chosen.pressed, handled.reply)
    if handled.outcome == "ok" and chosen.posted is not None:
        await close_result(bot, chosen, handled.reply)
    return handled


def refusal_of(svc: Services, chosen: Chosen) -> str | None:
    """Why inline mode refuses a chosen move before the desk sees it: not ours, a card
    that cannot be played, or a Confirm pressed by anyone but its chooser."""
    sender, press = chosen.sender, chosen.press
    tr = Translator(svc.user_lang(sender.player, sender.lang_hint))
    if press is not None and isinstance(press.what, NotPlayable):
        return tr.gettext(_("That card cannot be played now."))
    if press is None or not isinstance(press.what, Move):
        return tr.gettext(_("This button is not one of ours."))
    room = svc.store.load(press.room) if chosen.seat is not None else None
    if room is not None and room.seat_of(sender.player) != chosen.seat:
        return tr.gettext(_("Only the player who chose this card can confirm it."))
    return None


async def close_result(bot: Bot, chosen: Chosen, reply: Reply) -> None:
    """The posted message after its move: the Confirm button goes; a refused chosen
    result says why there instead (a Confirm's refusal was its popup)."""
    assert chosen.posted is not None
    refusal = None if reply.quiet else reply.popup  # a made move's popup is quiet
    if refusal and chosen.pressed is not None:
        return
    try:
        if refusal:
            text = cut_utf16("🃏 " + refusal, MAX_TEXT)
            await bot.edit_message_text(text, inline_message_id=chosen.posted)
        else:
            await bot.edit_message_reply_markup(inline_message_id=chosen.posted)
    except TelegramError:
        pass  # pressed and chosen at once, or the message is gone: nothing left to settle
