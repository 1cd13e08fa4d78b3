"""The emulated WhatsApp kept in a file across restarts (`burro emulator --state FILE`
keeps it beside the Telegram world, in `<FILE stem>.whatsapp.json`), so that chats show
their history again and old messages' buttons still tap.

What is kept: users (added ones too, who is offline, when each last wrote: the windows
go on), every chat's messages with their statuses, templates, media, the clock's
offset. Not kept: the webhook subscription (the service is set up again), events and
POSTs waiting, the log, the pacing buckets. A file is replaced whole (written aside,
then renamed), as the Telegram world's.
"""

from __future__ import annotations

import base64
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any

from emulator.common import persist as common
from emulator.common.persist import SAVE_EVERY, read_into, resume_into, write_whole
from emulator.whatsapp.cloud import WhatsAppCloud
from emulator.whatsapp.world import Chat, Media, Template, WaMessage, WaUser, WaWorld

JSON = dict[str, Any]
FORMAT = "burro-emulator-whatsapp/1"


def path_beside(state: Path) -> Path:
    """Where the WhatsApp world is kept when the Telegram one is kept in `state`."""
    return state.with_name(f"{state.stem}.whatsapp.json")


def dump(world: WaWorld) -> JSON:
    return {
        "format": FORMAT,
        "clock_offset": world.clock.offset,
        "users": [asdict(user) for user in world.users.values()],
        "messages": [asdict(message) for chat in world.chats.values() for message in chat.messages],
        "templates": [asdict(template) for template in world.templates.values()],
        "media": [
            {**asdict(media), "content": base64.b64encode(media.content).decode()}
            for media in world.media.values()
        ],
    }


def restore(world: WaWorld, saved: JSON) -> None:
    """Put a dumped state into a world fresh from its config."""
    if saved.get("format") != FORMAT:
        raise ValueError(f"not a saved WhatsApp world ({FORMAT})")
    world.clock.offset = max(world.clock.offset, float(saved["clock_offset"]))
    world.users.clear()
    world.chats.clear()
    world.messages.clear()
    world.waiting.clear()
    for user in saved["users"]:
        restored = WaUser(**user)
        world.users[restored.user_id] = restored
        world.chats[restored.user_id] = Chat(restored.user_id)
    for raw in sorted(saved["messages"], key=lambda m: m["seq"]):
        message = WaMessage(**raw)
        world.chats[message.user_id].messages.append(message)
        world.messages[message.id] = message
        if message.status == "sent":
            world.waiting.add(message.id)
    world.templates = {t["id"]: Template(**t) for t in saved["templates"]}
    world.media = {
        m["id"]: Media(**{**m, "content": base64.b64decode(m["content"])}) for m in saved["media"]
    }
    top = max((m.seq for m in world.messages.values()), default=0)
    rev = max((m.rev for m in world.messages.values()), default=0)
    world.renumber(top + 1, rev + 1)


def save(world: WaWorld, path: Path) -> None:
    write_whole(path, dump(world))


def load(world: WaWorld, path: Path) -> bool:
    return read_into(path, partial(restore, world))


def resume(cloud: WhatsAppCloud, path: Path) -> bool:
    """Restore from `path` if it can be read; a file that cannot is set aside as
    `<name>.old` and the world starts afresh."""

    def trial(saved: JSON) -> None:
        restore(WaWorld(cloud.config), saved)

    return resume_into(path, trial, partial(restore, cloud.world))


async def keep(world: WaWorld, path: Path, every: float = SAVE_EVERY) -> None:
    """Save whenever the world changed, until cancelled (then once more)."""
    await common.keep(world, partial(save, world, path), every)
