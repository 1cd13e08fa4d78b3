"""Groups that change under a game: a group upgraded to a supergroup (its id changes),
a forum topic closed or deleted, the bot removed from the group.

A move to the new chat id keeps the room, its version and its timers, and posts the
table afresh there (the old group's messages cannot be edited through the new id). A
game whose chat is gone for good is stopped: the room is kept as cancelled and expires
after the retention (`Store`), like any ended game.
"""

from __future__ import annotations

from service.infra.store import Store, text
from service.table.outcome import Outcome
from service.table.room import Room
from service.ui.i18n import Translator, _

LIVE = ("lobby", "playing")


def rooms_in_chat(store: Store, chat_id: int) -> list[tuple[str, str]]:
    """(chat index key, room id) of every room indexed in a chat, any topic.

    A SCAN of the chat keys: only for rare events (an upgrade, the bot removed)."""
    found: list[tuple[str, str]] = []
    for key in store.redis.scan_iter(match=f"chat:{chat_id}:*", count=1000):
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
        result = store.update(room_id, lambda room: move(room, old_chat, new_chat))
        if result is not None and result[1].changed:
            moved.append(room_id)
        unindex(store, key, room_id)
        store.redis.smove(f"open:chat:{old_chat}", f"open:chat:{new_chat}", room_id)  # caps
    if moved:
        store.redis.expire(f"open:chat:{new_chat}", store.live_ttl)
    move_stats(store, old_chat, new_chat)
    return moved


def move_stats(store: Store, old_chat: int, new_chat: int) -> None:
    """The group's statistics go with it; each person counted in them has the new chat
    in their index (`user:<id>:chats`), so that forgetting them still finds it."""
    stats = f"stats:chat:{new_chat}"
    if not store.redis.exists(f"stats:chat:{old_chat}") or store.redis.exists(stats):
        return
    store.redis.rename(f"stats:chat:{old_chat}", stats)
    for field in store.redis.hkeys(stats):
        name = text(field)
        if name.startswith("burro:"):
            index = f"user:{name.removeprefix('burro:')}:chats"
            store.redis.sadd(index, str(new_chat))
            store.redis.expire(index, store.people_ttl)


def move(room: Room, old_chat: int, new_chat: int) -> Outcome:
    """The room's change for an upgrade: its new chat, and a live table posted there."""
    if room.chat_id != old_chat:
        return Outcome()
    room.chat_id = new_chat
    return Outcome(changed=True, sync={"table:new"} if room.status in LIVE else set())


def unindex(store: Store, key: str, room_id: str) -> None:
    """Drop a chat index entry if it still names the room."""
    current = store.redis.get(key)
    if current is not None and text(current) == room_id:
        store.redis.delete(key)


def stop(store: Store, room_id: str, now: float, show: bool = False) -> Room | None:
    """End a live game whose chat is gone (kept as cancelled until it expires); the room
    if this call stopped it, None if it was not live. `show`: the table says so."""

    def change(room: Room) -> Outcome:
        if room.status not in LIVE:
            return Outcome()
        room.status = "cancelled"
        room.deadline = None
        room.updated = now
        room.version += 1
        return Outcome(changed=True, sync={"table"} if show else set())

    result = store.update(room_id, change)
    if result is None or not result[1].changed:
        return None
    return result[0]


def stop_chat(store: Store, chat_id: int, now: float) -> list[Room]:
    """Stop every live game in a chat (the bot was removed from it); the rooms stopped."""
    stopped = (stop(store, room_id, now) for _, room_id in rooms_in_chat(store, chat_id))
    return [room for room in stopped if room is not None]


def topic_gone_word(tr: Translator, closed: bool) -> str:
    """What General is told when a game's topic was closed (or deleted)."""
    if closed:
        return tr.gettext(
            _("🫏 A game of Burro ended: its topic was closed. Send /burro to play again.")
        )
    return tr.gettext(
        _("🫏 A game of Burro ended: its topic was deleted. Send /burro to play again.")
    )
