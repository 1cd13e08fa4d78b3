"""The emulated Telegram kept in a file across restarts (`burro local`: its data folder),
so that the web chat shows its history again and the bot can still edit its messages.

What is kept: users, bots (their BotFather settings, command menus, update ids), chats
and their members and topics, every conversation's messages, who started or blocked a
bot, inline messages and files. Not kept: webhooks (the service sets its own again when
it starts), pending queries and updates, the log. `keep` writes the file whenever the
world changed (and at the end); a file is replaced whole (written aside, then renamed:
emulator/common/persist.py).
"""

from __future__ import annotations

import base64
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

from emulator.common import persist as common
from emulator.common.persist import SAVE_EVERY, read_into, resume_into, write_whole
from emulator.telegram.world import (
    Account,
    Bot,
    Chat,
    Conversation,
    Message,
    StoredFile,
    Topic,
    World,
)

JSON = dict[str, Any]
FORMAT = "burro-emulator-world/1"


def dump(world: World) -> JSON:
    """The world's lasting state as JSON values."""
    return {
        "format": FORMAT,
        "users": [asdict(user) for user in world.users.values()],
        "bots": [bot_json(bot) for bot in world.bots.values()],
        "chats": [chat_json(chat) for chat in world.chats.values()],
        "conversations": [conversation_json(conv) for conv in world.conversations.values()],
        "started": sorted(world.started),
        "blocked": sorted(world.blocked),
        "inline_messages": {key: list(where) for key, where in world.inline_messages.items()},
        "files": [file_json(stored) for stored in world.files.values()],
    }


def bot_json(bot: Bot) -> JSON:
    saved = asdict(bot)
    saved.pop("webhook")
    return saved


def chat_json(chat: Chat) -> JSON:
    saved = asdict(chat)
    saved["user"] = chat.user.id if chat.user else None
    saved["members"] = [[member, status] for member, status in chat.members.items()]
    saved["topics"] = [asdict(topic) for topic in chat.topics.values()]
    return saved


def conversation_json(conv: Conversation) -> JSON:
    return {
        "chat": conv.chat.id,
        "scope": conv.scope,
        "messages": [asdict(message) for message in conv.messages.values()],
        "next_message_id": conv.next_message_id,
        "reply_keyboard": conv.reply_keyboard,
    }


def file_json(stored: StoredFile) -> JSON:
    saved = asdict(stored)
    saved["content"] = base64.b64encode(stored.content).decode()
    return saved


def restore(world: World, saved: JSON) -> None:
    """Put a dumped state into a world fresh from its config (what the file lacks, such
    as a group added to the cast since, stays as the config made it)."""
    if saved.get("format") != FORMAT:
        raise ValueError(f"not a saved emulator world ({FORMAT})")
    for user in saved["users"]:
        world.users[user["id"]] = Account(**user)
    for bot in saved["bots"]:
        restored = Bot(**{**bot, "account": Account(**bot["account"])})
        current = world.bots.get(restored.id)  # update ids only grow (see Bot)
        if current is not None:
            restored.next_update_id = max(restored.next_update_id, current.next_update_id)
        world.bots[restored.id] = restored
    for chat in saved["chats"]:
        world.chats[chat["id"]] = chat_of(world, chat)
    for conv in saved["conversations"]:
        messages = {m["message_id"]: Message(**m) for m in conv["messages"]}
        restored_conv = Conversation(
            world.chats[conv["chat"]], conv["scope"], messages, conv["next_message_id"]
        )
        restored_conv.reply_keyboard = conv["reply_keyboard"]
        world.conversations[(conv["chat"], conv["scope"])] = restored_conv
    world.started = {(bot_id, user_id) for bot_id, user_id in saved["started"]}
    world.blocked = {(bot_id, user_id) for bot_id, user_id in saved["blocked"]}
    world.inline_messages = {
        key: (where[0], where[1], where[2]) for key, where in saved["inline_messages"].items()
    }
    for stored in saved["files"]:
        content = base64.b64decode(stored["content"])
        world.files[stored["file_id"]] = StoredFile(**{**stored, "content": content})
    world.renumber_files(len(world.files) + 1)


def chat_of(world: World, saved: JSON) -> Chat:
    topics = {topic["id"]: Topic(**topic) for topic in saved["topics"]}
    return Chat(
        **{
            **saved,
            "user": world.users.get(saved["user"]) if saved["user"] is not None else None,
            "members": {member: status for member, status in saved["members"]},
            "topics": topics,
        }
    )


def save(world: World, path: Path) -> None:
    """Write the world to `path` (aside first: a crash never leaves half a file)."""
    write_whole(path, dump(world))


def load(world: World, path: Path) -> bool:
    """Restore the world from `path`; False when there is no such file yet."""
    return read_into(path, partial(restore, world))


def resume(world: World, path: Path) -> bool:
    """Restore the world from `path` if there is one it can read; a file it cannot (of
    another version, damaged) is set aside as `<name>.old` and the world starts afresh."""

    def trial(saved: JSON) -> None:
        restore(World(world.config), saved)

    return resume_into(path, trial, partial(restore, world))


async def keep(world: World, path: Path, every: float = SAVE_EVERY) -> None:
    """Save the world whenever it changed, until cancelled (then once more)."""
    await common.keep(world, partial(save, world, path), every)
