"""Who and where, on any chat platform: a chat (and its topic) and a player, each with
the platform it belongs to. Rooms and seats keep their platform beside the platform's
own id (rooms saved before platforms were named are Telegram's); the outbox delivers a
room's messages through its chat's platform (service.platforms.registry)."""

from __future__ import annotations

from dataclasses import dataclass

TELEGRAM = "telegram"  # every room and seat saved before platforms were named


@dataclass(frozen=True)
class ChatRef:
    """A chat on a platform: a group, or a person's private chat with the bot."""

    platform: str
    id: int
    thread: int | None = None  # a topic of a forum group


@dataclass(frozen=True)
class PlayerRef:
    """A person on a platform."""

    platform: str
    id: int
