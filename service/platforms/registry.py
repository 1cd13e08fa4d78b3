"""Every chat platform the workers deliver to, by name (`service.platforms.base`).

A room's messages go through the platform of its chat (`Room.chat`, a ChatRef): every
room is Telegram's today; another platform registers its factory here.
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
    name = room.chat.platform
    if name not in _factories:
        _load_builtin()
    return _factories[name](runtime)


def _load_builtin() -> None:
    from service.platforms.telegram import delivery

    register("telegram", delivery.for_runtime)
