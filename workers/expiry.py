"""Ending rooms nobody plays: a lobby nobody pressed for `lobby_idle`, a game nobody
moved in for `game_idle` (bots and timers do not count) is cancelled, its table says so,
and its chat gets a word (posted by its platform within its send budget). Its keys then
expire with the retention of an ended game (service.infra.store)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from service.i18n import Translator
from service.infra import indexes
from service.infra.keys import IDLE_KEY, index_key
from service.platforms import registry
from service.platforms.base import Chat
from service.table import lobby
from service.table.outcome import Outcome
from service.table.room import LIVE, Room

if TYPE_CHECKING:
    from workers.runtime import Runtime

log = logging.getLogger("burro.expiry")
BATCH = 100  # rooms ended per sweep at most (the next sweep goes on)


def expire_idle(rt: Runtime, now: float) -> list[str]:
    """End the open rooms whose idle time is up; their ids."""
    store = rt.svc.store
    ended = []
    for room_id, _at in indexes.due(store.redis, IDLE_KEY, now, BATCH):
        room = store.load(room_id)
        if room is None or room.status not in LIVE:
            store.redis.zrem(index_key(IDLE_KEY, room_id), room_id)
            continue
        result = store.update(room_id, ending(room.version, now))
        if result is not None and result[1].changed:
            tell_chat(rt, result[0], room.status)
            ended.append(room_id)
    if ended:
        log.info("ended %d idle rooms", len(ended))
    return ended


def ending(version: int, now: float) -> Callable[[Room], Outcome]:
    """The change that cancels a room, unless someone acted since it was judged idle
    (at `version`)."""

    def end(room: Room) -> Outcome:
        if room.version != version or room.status not in LIVE:
            return Outcome()
        room.status = "cancelled"
        room.deadline = None
        room.updated = now
        return lobby.changed(room)

    return end


def tell_chat(rt: Runtime, room: Room, was: str) -> None:
    svc = rt.svc
    tr = Translator(svc.room_lang(room))
    lobby_days, game_days = (round(s / 86400) for s in svc.store.idle)
    if was == "lobby":
        words = tr.ngettext(
            "🫏 This table closed: nobody pressed a button for {n} day.",
            "🫏 This table closed: nobody pressed a button for {n} days.",
            lobby_days,
        )
    else:
        words = tr.ngettext(
            "🫏 This game ended: nobody moved for {n} day.",
            "🫏 This game ended: nobody moved for {n} days.",
            game_days,
        )
    platform = registry.for_room(rt, room)
    platform.post(Chat(room.chat_id, room.thread_id), words)
