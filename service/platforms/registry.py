"""Every chat platform the workers deliver to, by name (`service.platforms.base`), and
all a worker knows of them: workers import this and the port, no platform's package.

A room's messages go through the platform of the chat they go to: the room's own chat's
(`Room.chat`, a ChatRef), or a player's own chat on their seat's platform. Besides its
`Platform`, a platform may bring its settings for a worker process (Telegram's send
limits), jobs of its own (Telegram's notices: replies kept for its send budget), the
link that seats one of its people at a table, and a lobby's line that invites them
there from another platform (WhatsApp's family). The built-in platforms (Telegram,
WhatsApp) register themselves; another registers its `Entry` here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from service.platforms.base import Platform
from service.services import Services
from service.settings import Settings
from service.table.room import Room

# A platform made for a worker's runtime (its Redis, its clients, the bot's name).
Factory = Callable[[Any], Platform]
# A platform's own job: the runtime and the job's argument (RQ's primitive arguments).
Job = Callable[[Any, str], None]
# A link or a line for a room (its id) in a language; None where the platform has none.
Link = Callable[[Services, str, str], str | None]


@dataclass(frozen=True)
class Entry:
    """A platform as the registry knows it."""

    factory: Factory
    configure: Callable[[Settings], None] | None = None  # once per worker process
    jobs: Mapping[str, Job] = field(default_factory=dict)  # by the job's name
    join_link: Link | None = None  # opens its chat and seats the person at the table
    invite: Link | None = None  # a group lobby's line for its people


_entries: dict[str, Entry] = {}
_builtin_loaded = False


def register(name: str, factory: Factory | Entry) -> None:
    _entries[name] = factory if isinstance(factory, Entry) else Entry(factory)


def entries() -> dict[str, Entry]:
    """The registered platforms, the built-in ones first."""
    global _builtin_loaded
    if not _builtin_loaded:
        _builtin_loaded = True
        registered = {**_builtin(), **_entries}  # a platform registered here comes after
        _entries.clear()
        _entries.update(registered)
    return _entries


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
    return entries()[name].factory(runtime)


def configure(settings: Settings) -> None:
    """Give every platform the worker process's settings (once, as the process starts)."""
    for entry in entries().values():
        if entry.configure is not None:
            entry.configure(settings)


def run_job(runtime: Any, job: str, arg: str) -> None:
    """Run a platform's own job (`job` names it: each platform's job names are its own)."""
    for entry in entries().values():
        if job in entry.jobs:
            entry.jobs[job](runtime, arg)
            return
    raise LookupError(f"no platform has a job named {job!r}")


def join_link(svc: Services, name: str, room_id: str, lang: str) -> str | None:
    """The link that opens the platform's chat and seats its person at the table (a
    Telegram deep link, a wa.me link); None where the platform has none (not set up)."""
    link = entries()[name].join_link
    return None if link is None else link(svc, room_id, lang)


def invites(svc: Services, room: Room, lang: str) -> list[str]:
    """The lines a group's lobby shows for people on the other platforms (how they
    join the table from there)."""
    lines = []
    for name, entry in entries().items():
        line = entry.invite(svc, room.id, lang) if entry.invite and name != room.platform else None
        if line:
            lines.append(line)
    return lines


def _builtin() -> dict[str, Entry]:
    from service.platforms.telegram import delivery
    from service.platforms.whatsapp import delivery as whatsapp
    from service.platforms.whatsapp import invite

    telegram = Entry(
        delivery.for_runtime,
        configure=delivery.configure,
        jobs={"notice": delivery.send_notice},
        join_link=delivery.join_link,
    )
    return {
        "telegram": telegram,
        "whatsapp": Entry(whatsapp.for_runtime, join_link=invite.join_link, invite=invite.line_for),
    }
