"""Who is talking: an `Actor` from a Telegram user, and whether they are a group admin."""

from __future__ import annotations

from telegram import Bot, User
from telegram.error import TelegramError

from service.desk.asks import IsAdmin
from service.services import Services
from service.table import names
from service.table.lobby import Actor
from service.table.room import Room


def display_name(user: User) -> str:
    return name_of(user.id, user.first_name, user.username)


def name_of(user_id: int, first_name: str | None, username: str | None) -> str:
    """The name we call a Telegram user by: their first name, else (none, or nothing
    visible in it) their username, else their id; cleaned (`service.table.names`)."""
    name = names.clean(first_name or "", "")
    return name or names.clean(username or "", str(user_id))


def language_of(user: User) -> str | None:
    """The language Telegram hints for a user; a malformed one (not a string) is none."""
    code = user.language_code
    return code if isinstance(code, str) else None


def actor_of(svc: Services, user: User, admin: bool = False) -> Actor:
    return svc.actor(user.id, display_name(user), language_of(user), admin)


def admins(bot: Bot) -> IsAdmin:
    """Whether a person administers a room's group, asked of Telegram when a use case
    needs it (the creator needs no check)."""

    async def is_admin(room: Room, user_id: int) -> bool:
        if room.private or user_id == room.creator:
            return user_id == room.creator
        try:
            member = await bot.get_chat_member(room.chat_id, user_id)
        except TelegramError:
            return False
        return member.status in ("creator", "administrator")

    return is_admin
