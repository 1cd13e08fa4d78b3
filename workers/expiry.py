"""Ending rooms nobody plays: a lobby nobody pressed for `lobby_idle`, a game nobody
moved in for `game_idle` (bots and timers do not count) is cancelled, its table says so,
and its chat gets a word (a notice, in the flood budget). Its keys then expire with the
retention of an ended game (service.infra.store)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from service.i18n import Translator
from service.infra import notices
from service.infra.keys import IDLE_KEY
from service.infra.store import text
from service.services import Services
from service.table import lobby
from service.table.outcome import Outcome
from service.table.room import LIVE, Room

log = logging.getLogger("burro.expiry")
BATCH = 100  # rooms ended per sweep at most (the next sweep goes on)


def expire_idle(svc: Services, now: float) -> list[str]:
    """End the open rooms whose idle time is up; their ids."""
    store = svc.store
    ended = []
    for member in store.redis.zrangebyscore(IDLE_KEY, "-inf", now, 0, BATCH):
        room_id = text(member)
        room = store.load(room_id)
        if room is None or room.status not in LIVE:
            store.redis.zrem(IDLE_KEY, room_id)
            continue
        result = store.update(room_id, ending(room.version, now))
        if result is not None and result[1].changed:
            tell_chat(svc, result[0], room.status)
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


def tell_chat(svc: Services, room: Room, was: str) -> None:
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
    params: dict[str, object] = {"chat_id": room.chat_id, "text": words}
    if room.thread_id and room.chat_id < 0:
        params["message_thread_id"] = room.thread_id
    notices.queue(svc.store.redis, params, 0.0)  # now
