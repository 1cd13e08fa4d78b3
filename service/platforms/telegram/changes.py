"""Updates about the chat rather than the game: a group upgraded to a supergroup, a
forum topic closed, the bot removed from a group, a command sent anonymously (as the
group by an anonymous admin, or as a channel). Each handler gets the update, the
webhook's exchange (the flood budget its messages take their turn in) and the services;
the bot is the update's own (`get_bot`)."""

from __future__ import annotations

import logging

import redis
from telegram import Bot, Update
from telegram.error import BadRequest, ChatMigrated, TelegramError

from service.desk.asks import Place
from service.i18n import Translator, _
from service.infra import chats
from service.platforms.telegram.answer import Exchange
from service.platforms.telegram.reply import reply_to, send_message
from service.services import Services
from service.table import groups
from service.table.room import Room

log = logging.getLogger("burro.serve")
GONE = ("left", "kicked")
TOPIC_GONE = ("topic_closed", "message thread not found")  # in a 400's (PTB changes case)


async def on_migrate(update: Update, exchange: Exchange, svc: Services) -> None:
    """`migrate_to_chat_id` in the old group, `migrate_from_chat_id` in the new one:
    whichever comes first moves the group's rooms (the second finds nothing to do)."""
    message = update.effective_message
    if message is None:
        return
    here = group_id(message.chat_id)
    to, since = group_id(message.migrate_to_chat_id), group_id(message.migrate_from_chat_id)
    if here is not None and to is not None:
        chats.migrate(svc.store, here, to)
    elif here is not None and since is not None:
        chats.migrate(svc.store, since, here)


def group_id(value: object) -> int | None:
    """A group's chat id (a negative integer), or None for anything else: a malformed
    update must not move a room to a chat id that is no chat's."""
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return value
    return None


async def handled(update: Update, exchange: Exchange, svc: Services, error: Exception) -> bool:
    """Whether a handler's call failed because the update's chat changed, and was dealt
    with (`after_error`)."""
    if update.effective_chat is None:
        return False
    place = Place(update.effective_chat.id, thread_of(update), False)
    return await after_error(svc, update.get_bot(), place, error, exchange.budget)


async def after_error(
    svc: Services, bot: Bot, place: Place, error: object, budget: redis.Redis | None
) -> bool:
    """Whether a call of ours failed because the chat changed, and was dealt with: the
    group was upgraded (400 with `migrate_to_chat_id`: its rooms move) or the forum
    topic is closed or deleted (its game ends)."""
    if place.chat is None:
        return False
    if isinstance(error, ChatMigrated):
        old, new = group_id(place.chat), group_id(error.new_chat_id)
        if old is not None and new is not None:
            chats.migrate(svc.store, old, new)
        return True
    text = str(error).lower() if isinstance(error, BadRequest) else ""
    if place.topic is None or not any(gone in text for gone in TOPIC_GONE):
        return False
    closed = TOPIC_GONE[0] in text
    await end_in_topic(bot, svc, place.chat, place.topic, closed, budget)
    return True


def thread_of(update: Update) -> int | None:
    message = update.effective_message
    return message.message_thread_id if message and message.is_topic_message else None


async def on_topic_closed(update: Update, exchange: Exchange, svc: Services) -> None:
    """A forum topic was closed: its game ends, with a word in General."""
    chat, thread = update.effective_chat, thread_of(update)
    if chat is not None and thread is not None:
        await end_in_topic(update.get_bot(), svc, chat.id, thread, True, exchange.budget)


async def end_in_topic(
    bot: Bot,
    svc: Services,
    chat_id: int,
    thread: int,
    closed: bool,
    budget: redis.Redis | None = None,
) -> None:
    """End the live game of a closed or deleted topic and say so in General (once)."""
    room = svc.store.room_in_chat(chat_id, thread)
    if room is None or chats.stop(svc.store, room.id, svc.now(), show=closed) is None:
        return
    text = groups.topic_gone_word(Translator(svc.room_lang(room)), closed)
    try:
        await send_message(bot, room.chat_id, text, budget)
    except TelegramError as error:
        log.warning("room %s: could not say in General that it ended: %s", room.id, error)


async def on_membership(update: Update, exchange: Exchange, svc: Services) -> None:
    """The bot was removed from (or banned in) a group: its games end and expire like
    any ended game; each player who opened a private chat with the bot is told there."""
    change, chat = update.my_chat_member, update.effective_chat
    chat_id = group_id(chat.id) if chat is not None else None
    if change is None or chat is None or chat_id is None:
        return
    if change.new_chat_member.status not in GONE:
        return
    for room in chats.stop_chat(svc.store, chat_id, svc.now()):
        await tell_players(update.get_bot(), exchange, svc, room, str(chat.title or ""))


async def tell_players(bot: Bot, exchange: Exchange, svc: Services, room: Room, title: str) -> None:
    for seat in room.seats:
        user_id = seat.user_id
        if user_id is None or user_id in room.blocked:
            continue
        if not svc.store.user(user_id).get("started"):
            continue  # the bot cannot write first
        text = Translator(seat.lang).gettext(
            _("🫏 Your game of Burro in {group} has ended: I was removed from the group."),
            group=title,
        )
        try:
            await send_message(bot, user_id, text, exchange.budget)
        except TelegramError as error:
            log.info("room %s: could not tell %s: %s", room.id, user_id, error)


async def refuse_anonymous(update: Update, exchange: Exchange, svc: Services) -> None:
    """A command sent as the group (an anonymous admin) or as a channel: nobody to seat
    or to check as an admin. Answer with a hint, and nothing else (even when the hint
    cannot be sent, nobody takes the group for a player)."""
    chat, message = update.effective_chat, update.effective_message
    room = svc.store.room_in_chat(chat.id, thread_of(update)) if chat else None
    tr = Translator(svc.room_lang(room) if room is not None else "en")
    hint = _(
        "🫏 I cannot tell who you are when you write as the group or as a channel. "
        "Please send the command again as yourself."
    )
    try:
        if message is not None:
            await reply_to(message, tr.gettext(hint), exchange.budget)
    except TelegramError as error:
        log.info("could not answer a command sent as a chat: %s", error)
