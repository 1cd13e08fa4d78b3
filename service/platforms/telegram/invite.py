"""Bringing a person back to a Telegram group's table: a link to the table's message.

Telegram links a message of a supergroup for its members (`t.me/c/<id>/<message>`, the
id being the chat's without its -100), whether or not the group is public; a basic
group's messages have no link (core.telegram.org/api/links#message-links)."""

from __future__ import annotations

SUPERGROUP = "-100"  # the prefix of a supergroup's (or channel's) chat id


def group_link(chat_id: int, message_id: int | None) -> str | None:
    """The link to a message of a supergroup; None for any other chat, or no message."""
    text = str(chat_id)
    if message_id is None or not text.startswith(SUPERGROUP) or len(text) <= len(SUPERGROUP):
        return None
    return f"https://t.me/c/{text[len(SUPERGROUP) :]}/{message_id}"
