"""A group's title kept as the name of the table played in it.

Telegram names a group in every update from it (`chat.title`), and the table core keeps
a name on the room (`service.table.groups.named`) for the screens of a person who sits
at more than one table. Read from the updates PTB parses (a command, a group renamed),
not from taps (read from their JSON alone, the hot path): a group renamed keeps its old
name on the table until its next such update.
"""

from __future__ import annotations

import asyncio
import logging

import redis
from redis.exceptions import RedisClusterException
from telegram import Update

from service.infra.store import Conflict
from service.platforms.telegram.changes import thread_of
from service.services import Services
from service.table import groups, names

log = logging.getLogger("burro.serve")
GROUPS = ("group", "supergroup")


async def note_title(svc: Services, update: Update) -> None:
    """The update's group title, kept on the table open there if it is new to it. Its
    failure is logged, never the update's: the title comes again with the next one."""
    chat = update.effective_chat
    raw = chat.title if chat is not None else None  # PTB keeps a field of any type as sent
    title = names.clean(raw, "") if isinstance(raw, str) else ""
    if chat is None or chat.type not in GROUPS or not title:
        return
    try:
        room = await asyncio.to_thread(svc.store.room_in_chat, chat.id, thread_of(update))
        if room is not None and not room.private and room.name != title:
            await svc.store.aupdate(room.id, lambda fresh: groups.named(fresh, title))
    except (redis.RedisError, RedisClusterException, Conflict) as error:
        log.warning("group %s: its title was not kept: %r", chat.id, error)
