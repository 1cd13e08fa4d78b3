"""The group's word that the bot cannot send someone their cards ("… open a private chat
with @bot and press Start"): it goes once they do.

The outbox posts the word when a player's private chat refuses their hand (403) and
keeps its message id here (`remember`, called with sendMessage's result in
workers.outbox.record_blocked); the player's /start (commands.start) sends them their
hand and deletes every word kept for them (`withdraw_notices`), in each of their rooms.
"""

from __future__ import annotations

import contextlib

import redis
from telegram import Bot
from telegram.error import TelegramError

from service.infra.keys import blocked_notices_key
from service.infra.store import text
from service.services import Services
from service.table import targets
from service.table.outcome import Outcome
from service.table.room import Room

# A room's hash: user id -> "<chat id>:<message id>" of the word about them.
notices_key = blocked_notices_key


def remember(
    client: redis.Redis, room_id: str, user_id: int, chat_id: int, message_id: int, ttl: int
) -> None:
    """Keep where the word about `user_id` was posted (the outbox, once it is sent)."""
    key = notices_key(room_id)
    with client.pipeline() as pipe:
        pipe.hset(key, str(user_id), f"{chat_id}:{message_id}")
        pipe.expire(key, ttl)
        pipe.execute()


def take(client: redis.Redis, room_id: str, user_id: int) -> tuple[int, int] | None:
    """(chat id, message id) of the word about `user_id` in a room, forgotten now."""
    key = notices_key(room_id)
    with client.pipeline() as pipe:
        pipe.hget(key, str(user_id))
        pipe.hdel(key, str(user_id))
        found, _deleted = pipe.execute()
    if not found:
        return None
    chat_id, _colon, message_id = text(found).partition(":")
    return int(chat_id), int(message_id)


def rooms_of(svc: Services, user_id: int) -> list[str]:
    """The rooms a person has sat in lately (the store's people index)."""
    return svc.store.rooms_of(user_id)


def unblocked(room: Room, user_id: int) -> Outcome:
    """The bot may write to `user_id` again: their hand goes to them now."""
    if user_id not in room.blocked:
        return Outcome()
    room.blocked = [u for u in room.blocked if u != user_id]
    playing = room.status == "playing" and not room.private
    return Outcome(changed=True, sync={targets.hand(user_id)} if playing else set())


async def withdraw_notices(svc: Services, bot: Bot, user_id: int) -> None:
    """`user_id` opened the bot's chat: their cards go to them, and the words that the
    bot could not reach them are deleted."""
    for room_id in rooms_of(svc, user_id):
        svc.store.update(room_id, lambda room: unblocked(room, user_id))
        where = take(svc.store.redis, room_id, user_id)
        if where is not None:
            with contextlib.suppress(TelegramError):  # deleted already, or too old
                await bot.delete_message(*where)
