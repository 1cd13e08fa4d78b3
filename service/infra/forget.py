"""Forgetting a person (on every platform, once confirmed) in Redis: their settings and
statistics are deleted, their name and id are taken out of every room kept (what a room
becomes is the table's, `service.table.privacy.without`), and so are the outbox's traces
of their private chat. The rooms and chats to visit come from the person's own index
(`user:<id>:rooms`, `user:<id>:chats`, see service.infra.store), so nothing scans every
key."""

from __future__ import annotations

from rq.exceptions import NoSuchJobError
from rq.job import Job as RqJob

from service.infra import keys
from service.infra.keys import (
    DUE_KEY,
    IDLE_KEY,
    PENDING_SYNC,
    TIMERS_KEY,
    chat_key,
    index_key,
    room_key,
)
from service.infra.queue import job_id
from service.infra.store import Store, text
from service.table.outcome import Job, JobKind
from service.table.privacy import ROOM_PARTS, without
from service.table.room import Room


def forget(store: Store, user_id: int, now: float) -> None:
    """Delete what is kept about `user_id` and take them out of every room kept."""
    client = store.redis
    for member in client.smembers(keys.user_rooms_key(user_id)):
        forget_in_room(store, text(member), user_id, now)
    for member in client.smembers(keys.user_chats_key(user_id)):
        client.hdel(keys.chat_stats_key(text(member)), f"burro:{user_id}")
    own = (  # their own keys, and those of their private chat (its id is theirs)
        keys.user_key(user_id),
        keys.user_rooms_key(user_id),
        keys.user_seated_key(user_id),
        keys.user_chats_key(user_id),
        keys.user_hints_key(user_id),
        keys.user_stats_key(user_id),
        keys.chat_stats_key(user_id),
        keys.user_open_key(user_id),
        keys.chat_open_key(user_id),
        keys.chat_limit_key(user_id),
        keys.widgets_key(user_id),
        keys.rules_cooldown_key(user_id, None),
        chat_key(user_id, None),
    )
    client.delete(*own)
    store.hints_met.pop(user_id, None)  # (other processes forget theirs within the hour)


def forget_in_room(store: Store, room_id: str, user_id: int, now: float) -> None:
    room = store.load(room_id)
    if room is None:
        return
    if room.chat_id == user_id:  # their one-to-one game: it goes
        delete_room(store, room)
        return
    store.update(room_id, lambda fresh: without(fresh, user_id, now))
    drop_hand(store, room_id, user_id)


def delete_room(store: Store, room: Room) -> None:
    """A room and everything kept for it, at once."""
    client = store.redis
    with client.pipeline() as pipe:
        pipe.delete(room_key(room.id), *(keys.room_part_key(room.id, p) for p in ROOM_PARTS))
        if client.get(chat_key(room.chat_id, room.thread_id)) == room.id.encode():
            pipe.delete(chat_key(room.chat_id, room.thread_id))
        for index in (DUE_KEY, TIMERS_KEY, IDLE_KEY):
            pipe.zrem(index_key(index, room.id), room.id)
        for target in ("table", "table:new"):
            pipe.zrem(index_key(PENDING_SYNC, room.id), f"{room.id}|{target}")
        pipe.execute()


def drop_hand(store: Store, room_id: str, user_id: int) -> None:
    """The outbox's traces of the person's hand messages for a room (in their private
    chat, and shown to them alone in the group): what they showed, their pending syncs,
    locks and queued jobs (their ids name the person), a press waiting to be answered."""
    client, hands = store.redis, (f"hand:{user_id}", f"mine:{user_id}")
    with client.pipeline() as pipe:
        pipe.hdel(keys.msgs_key(room_id), *hands)
        pipe.hdel(keys.sent_key(room_id), *hands)
        pipe.hdel(keys.live_key(room_id), *live_fields(user_id))
        pipe.hdel(keys.blocked_notices_key(room_id), str(user_id))
        pipe.delete(keys.answer_key(room_id, user_id))
        for target in hands:
            pending = index_key(PENDING_SYNC, room_id)
            pipe.zrem(pending, f"{room_id}|{target}", f"{room_id}|{target}:new")
            pipe.delete(keys.lock_key(room_id, target))
        pipe.execute()
    for ident in syncs_naming(store, room_id, user_id):
        delete_job(store, ident)


def live_fields(user_id: int) -> tuple[str, ...]:
    """The fields of a room's live hash about the person (workers.outbox writes them):
    when they last acted, the turn and the hands they were told, their chat's table."""
    return (str(user_id), f"{user_id}:turn", f"{user_id}:told", f"top:{user_id}")


def syncs_naming(store: Store, room_id: str, user_id: int) -> list[str]:
    """The ids of the room's sync jobs that name the person's hand, whatever their tag
    (a change's version, a retry's time): an id holds its targets, as `hand_<user>`
    (`mine_<user>`), then its tag, each after a `-`."""
    prefix = RqJob.key_for(job_id(Job(JobKind.SYNC, room_id, "", 0.0)))
    named = {f"{kind}_{user_id}{new}" for kind in ("hand", "mine") for new in ("", "_new")}
    found = []
    for key in store.jobs.scan_iter(match=f"{prefix}*", count=1000):
        ident = text(key).removeprefix(RqJob.redis_job_namespace_prefix)
        targets = ident.removeprefix(f"sync-{room_id}-").split("-")
        if named & set(targets):
            found.append(ident)
    return found


def delete_job(store: Store, ident: str) -> None:
    try:
        job = RqJob.fetch(ident, connection=store.jobs)
    except NoSuchJobError:
        return
    job.delete()
    store.jobs.delete(f"rq:results:{ident}")
