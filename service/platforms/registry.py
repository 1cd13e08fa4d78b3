"""Every chat platform the workers deliver to, by name (`service.platforms.base`).

A room's messages go through the platform of the chat they go to: the room's own chat's
(`Room.chat`, a ChatRef), or a player's own chat on their seat's platform. The built-in
platforms (Telegram, WhatsApp) register themselves; another registers its factory here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.platforms.base import Platform
from service.table.room import Room

# A platform made for a worker's runtime (its Redis, its clients, the bot's name).
Factory = Callable[[Any], Platform]

_factories: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    _factories[name] = factory


def for_room(runtime: Any, room: Room) -> Platform:
    """The platform of the room's chat, for this runtime."""
    return named(runtime, room.chat.platform)


def for_chat(runtime: Any, room: Room, chat_id: int) -> Platform:
    """The platform of a chat a room's message goes to: the room's own chat's, or the
    platform of the player whose chat it is (a table may seat players of several)."""
    if chat_id == room.chat_id:
        return for_room(runtime, room)
    seat = room.seat_of(chat_id)
    return named(runtime, room.seats[seat].platform if seat is not None else room.platform)


def named(runtime: Any, name: str) -> Platform:
    if name not in _factories:
        _load_builtin()
    return _factories[name](runtime)


def _load_builtin() -> None:
    from service.platforms.telegram import delivery
    from service.platforms.whatsapp import delivery as whatsapp

    register("telegram", delivery.for_runtime)
    register("whatsapp", whatsapp.for_runtime)
