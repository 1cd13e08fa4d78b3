"""Inline-keyboard presses: lobby, settings and moves, each checked and committed once."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable

from telegram import CallbackQuery, Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from service.desk import opening
from service.desk.presses import change_for, is_command, managing
from service.i18n import Translator, _
from service.platforms.telegram import callbacks
from service.platforms.telegram.people import actor_of, is_admin
from service.platforms.telegram.reply import answer_press, send_message
from service.services import Services
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.play import STALE
from service.table.room import Room
from service.ui import games
from service.ui.intents import Move, Press
from service.ui.text_limits import cut_utf16

# Answers a press: its popup's text (None: none) and whether it is an alert.
Answering = Callable[[str | None, bool], Awaitable[None]]


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    query = update.callback_query
    if query is None or query.from_user is None:
        return
    raw = callbacks.decode(query.data)
    actor = actor_of(svc, query.from_user)
    tr = Translator(actor.lang)
    if raw is None:
        await answer_press(query, tr.gettext(_("This button is not one of ours.")))
        return
    press = callbacks.press_of(raw)
    if press is not None and isinstance(press.what, Move):

        async def answering(text: str | None, alert: bool) -> None:
            await answer_press(query, text, show_alert=alert)

        await play(svc, press, actor, update.update_id, answering)
        return
    room = svc.store.load(raw.room)
    if room is None or room.status == "cancelled":
        text, alert = unplayable(tr, room)
        await answer_press(query, text, show_alert=alert)
        return
    if press is None:
        await answer(query, tr, Outcome().say(_("This button is not one of ours.")))
        return
    if managing(press):
        actor = Actor(
            actor.user_id, actor.name, actor.lang, await is_admin(context, room, actor.user_id)
        )
    if (
        is_command(press, "join")
        and not room.private
        and not svc.store.user(actor.user_id).get("started")
    ):
        # The bot cannot write to someone who never opened its private chat: send them
        # there first; their /start j<room> seats them (see commands.start).
        link = callbacks.deep_link(svc.bot_username, room.id, join=True)
        await answer_press(query, url=link)
        return
    if is_command(press, "rematch"):
        await rematch(svc, query, tr, room, actor, update.update_id)
        return
    change = change_for(room, press, actor, svc.now(), svc.settings.bot_delay)
    if isinstance(change, Outcome):  # refused before touching the room
        await answer(query, tr, change)
        return
    if is_command(press, "rules") and not await post_rules(svc, context, room, actor):
        # posted a moment ago: this press cannot post them again (no flooding the group)
        await answer_press(query, tr.gettext(_("The rules are just above.")), show_alert=True)
        return
    result = await svc.store.aupdate(press.room, change, update.update_id, loaded=room)
    if result is not None:
        await answer(query, tr, result[1])
        if is_command(press, "keep_playing") or (is_command(press, "cancel") and result[1].changed):
            await remove_question(query)
    else:
        await answer_press(query)


async def play(
    svc: Services, press: Press, actor: Actor, update_id: int, answering: Answering
) -> None:
    """A move's press (a card, draw, pass): checked, committed and answered. It needs no
    Telegram object, so the webhook's fast path (`taps`) takes it too."""
    tr = Translator(actor.lang)
    room = svc.store.load(press.room)
    if room is None or room.status == "cancelled":
        await answering(*unplayable(tr, room))
        return
    change = change_for(room, press, actor, svc.now(), svc.settings.bot_delay)
    if isinstance(change, Outcome):  # refused before touching the room
        await answering(*popup_of(tr, change))
        return
    result = await svc.store.aupdate(press.room, change, update_id, loaded=room)
    await answering(*popup_of(tr, result[1] if result is not None else Outcome()))


def out_of_date(actor: Actor) -> str:
    """The answer to a press of a player whose move of this phase is queued already."""
    return Translator(actor.lang).gettext(STALE)


def unplayable(tr: Translator, room: Room | None) -> tuple[str, bool]:
    """The answer to a press on a room gone (expired) or cancelled: its text and whether
    it is an alert (an old button of a cancelled game does nothing now)."""
    if room is None:
        return tr.gettext(_("This game is over.")), False
    return tr.gettext(_("The game was cancelled.")), True


POPUP = 200  # Telegram's limit on a callback answer, in UTF-16 code units


def popup_of(tr: Translator, outcome: Outcome) -> tuple[str | None, bool]:
    """The popup text (None: none) and whether it is an alert, of an outcome's answer."""
    popup = outcome.popup
    if popup is None:
        return None, False
    text = tr.gettext(popup.message, **dict(popup.values))
    return cut_utf16(text, POPUP), popup.alert


async def remove_question(query: CallbackQuery) -> None:
    """The cancel question is answered: it goes, and its buttons with it."""
    with contextlib.suppress(TelegramError):  # deleted already, or too old to delete
        await query.delete_message()


async def post_rules(
    svc: Services, context: ContextTypes.DEFAULT_TYPE, room: Room, actor: Actor
) -> bool:
    """Post the table's rules to its chat, at most once per `rules_cooldown`."""
    where = f"{room.chat_id}:{room.thread_id or 0}"
    if not svc.store.first_in(f"cooldown:rules:{where}", svc.settings.rules_cooldown):
        return False
    text = games.painter(room, actor.lang).rules_text()
    await send_message(context.bot, room.chat_id, text, message_thread_id=room.thread_id)
    return True


async def rematch(
    svc: Services, query: CallbackQuery, tr: Translator, room: Room, actor: Actor, update_id: int
) -> None:
    await answer(query, tr, opening.rematch(svc, room, actor, update_id))


async def answer(query: CallbackQuery, tr: Translator, outcome: Outcome) -> None:
    text, alert = popup_of(tr, outcome)
    await answer_press(query, text, show_alert=alert)
