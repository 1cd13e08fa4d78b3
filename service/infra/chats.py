"""Groups that change under a game, in Redis: a group upgraded to a supergroup (every
room, index and statistic moves to its new id), the bot removed (every live game in the
chat stops), a topic gone (its game stops). What each room becomes is the table's
(`service.table.groups`); finding the rooms and moving the keys is here."""

from __future__ import annotations

from service.infra import keys
from service.infra.store import Store, text
from service.table import groups
from service.table.groups import stopped
from service.table.room import Room


def rooms_in_chat(store: Store, chat_id: int) -> list[tuple[str, str]]:
    """(chat index key, room id) of every room indexed in a chat, any topic.

    A SCAN of the chat keys: only for rare events (an upgrade, the bot removed)."""
    found: list[tuple[str, str]] = []
    for key in store.redis.scan_iter(match=keys.chat_pattern(chat_id), count=1000):
        room_id = store.redis.get(key)
        if room_id:
            found.append((text(key), text(room_id)))
    return found


def migrate(store: Store, old_chat: int, new_chat: int) -> list[str]:
    """Move every room of a group upgraded to a supergroup to the new chat id (its chat
    index and statistics with it); the ids of the rooms moved. Safe to run again."""
    if old_chat == new_chat:
        return []
    moved: list[str] = []
    for key, room_id in rooms_in_chat(store, old_chat):
        result = store.update(room_id, lambda room: groups.move(room, old_chat, new_chat))
        if result is not None and result[1].changed:
            moved.append(room_id)
        old, new = keys.chat_open_key(old_chat), keys.chat_open_key(new_chat)
        # caps, before the old index goes: then (two commands, not SMOVE: on a cluster
        # the two chats' keys lie in two slots)
        if store.redis.srem(old, room_id):
            store.redis.sadd(new, room_id)
        unindex(store, key, room_id)  # a room gone from the old chat has moved whole
    if moved:
        store.redis.expire(keys.chat_open_key(new_chat), store.live_ttl)
    move_stats(store, old_chat, new_chat)
    return moved


def move_stats(store: Store, old_chat: int, new_chat: int) -> None:
    """The group's statistics go with it; each person counted in them has the new chat
    in their index (`user:<id>:chats`), so that forgetting them still finds it."""
    old, stats = keys.chat_stats_key(old_chat), keys.chat_stats_key(new_chat)
    if not store.redis.exists(old) or store.redis.exists(stats):
        return
    counters = store.redis.hgetall(old)  # copied, not RENAMEd: two slots on a cluster
    store.redis.hset(stats, mapping=counters)
    store.redis.expire(stats, store.people_ttl)
    store.redis.delete(old)
    for field in counters:
        name = text(field)
        if name.startswith("burro:"):
            index = keys.user_chats_key(name.removeprefix("burro:"))
            store.redis.sadd(index, str(new_chat))
            store.redis.expire(index, store.people_ttl)


def unindex(store: Store, key: str, room_id: str) -> None:
    """Drop a chat index entry if it still names the room."""
    current = store.redis.get(key)
    if current is not None and text(current) == room_id:
        store.redis.delete(key)


def stop(store: Store, room_id: str, now: float, show: bool = False) -> Room | None:
    """End a live game whose chat is gone (kept as cancelled until it expires); the room
    if this call stopped it, None if it was not live. `show`: the table says so."""

    result = store.update(room_id, lambda room: stopped(room, now, show))
    if result is None or not result[1].changed:
        return None
    return result[0]


def stop_chat(store: Store, chat_id: int, now: float) -> list[Room]:
    """Stop every live game in a chat (the bot was removed from it); the rooms stopped."""
    stopped = (stop(store, room_id, now) for _, room_id in rooms_in_chat(store, chat_id))
    return [room for room in stopped if room is not None]
