"""The port the table side needs from a chat platform (Telegram today, WhatsApp next).

The outbox (workers.outbox) decides what each chat should show and when a change must
come as a new message; a `Platform` says what it can do, turns a screen into its own
message form, sends or edits that message, and tells how a refused delivery should be
taken. A new platform is an implementation of this (in its package under
`service.platforms`) registered in `service.platforms.registry` (with its own jobs, its
settings for a worker process and its links, if any), plus its webhook route. Workers
know a platform only by this port and the registry (an import contract says so).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from starlette.requests import ClientDisconnect, Request
from starlette.routing import Route

from service.table.room import Room
from service.ui.screens import Screen

Rendered = dict[str, Any]  # a message in the platform's own form, JSON-serialisable


@dataclass(frozen=True)
class Capabilities:
    """What a platform's chats can do."""

    edit: bool  # a sent message can be edited in place (else changes come as new messages)
    delete: bool  # a replaced message can be deleted
    max_buttons: int  # buttons in one message
    max_row_buttons: int  # buttons side by side
    max_label: int  # characters of a button's label
    inline: bool  # a player may list their cards in the group (intents.ShowCards)
    threads: bool  # groups have topics (a room may live in one)
    # a group member may be shown a message only they see, in answer to their own press
    # or command (Telegram's ephemeral messages: `show_to`)
    personal: bool = False
    # a screen's picture (service.ui.picture) is drawn in a person's own chat, in place of
    # its text (Telegram's widgets); `group_pictures`: in a group's chat too
    pictures: bool = False
    group_pictures: bool = False


@dataclass(frozen=True)
class Chat:
    """Where a message goes: a chat, and the room's topic in it (if the platform has
    topics; the platform knows which chats are groups)."""

    id: int
    thread: int | None = None


FailureKind = Literal["retry", "blocked", "gone", "fatal"]


@dataclass(frozen=True)
class Failure:
    """A delivery the platform refused, classified:

    retry    try again after `wait` seconds (flooding, the platform's own limits)
    blocked  the person blocked the bot (or never opened its chat): their chat refuses us
    gone     the chat (or its topic: `topic`, `closed` rather than deleted) no longer
             exists; `moved_to`: it lives on under that id (a group that was upgraded)
    fatal    anything else: logged, not retried
    """

    kind: FailureKind
    detail: str = ""
    wait: float = 0.0
    moved_to: int | None = None
    topic: bool = False
    closed: bool = False


class DeliveryFailed(Exception):
    """A platform call refused, with its classification."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.detail)
        self.failure = failure


class Platform(Protocol):
    """A chat platform as the outbox uses it. Message ids are ints that grow with each
    message in a chat (the platform's own, or a count of its own where the platform's
    are text, as WhatsApp's are). A platform that cannot edit (`Capabilities.edit`) is
    sent a game's view only when it asks its reader to act (workers.outbox)."""

    name: str

    def capabilities(self) -> Capabilities: ...

    def render(self, screen: Screen, lang: str) -> Rendered:
        """A screen as the platform's message (buttons by their intents); `lang` is its
        reader's, for the platform's own words (a list's opening button)."""
        ...

    def open_until(self, chat: Chat) -> float | None:
        """Until when the chat takes any message (WhatsApp's 24-hour window since the
        person last wrote); None where there is no such limit."""
        ...

    def budget(self, chat: Chat) -> float:
        """Take a slot of the platform's send budget for `chat`: 0, or seconds to wait
        (nothing taken; the caller tries again then)."""
        ...

    def deliver(self, chat: Chat, message: Rendered, notify: bool = True) -> int:
        """Send a new message (`notify` False: silently); its id. DeliveryFailed."""
        ...

    def update(self, chat: Chat, message_id: int, message: Rendered) -> int:
        """Show `message` in place of message `message_id` (edited where the platform
        can, else sent anew); the id of the message that shows it. DeliveryFailed."""
        ...

    def retire(self, chat: Chat, message_id: int) -> None:
        """An old message replaced by a new one goes (or loses its buttons), so that one
        live message remains; never fails."""
        ...

    def post(self, chat: Chat, text: str) -> None:
        """Post a plain line when the platform's send budget allows (kept till then);
        never fails."""
        ...

    def say(self, chat: Chat, text: str) -> None:
        """Post a plain line. DeliveryFailed."""
        ...

    def show_to(self, chat: Chat, user: int, message: Rendered, answering: str) -> int:
        """Show `message` in the group `chat` to `user` alone, in answer to what they
        asked (`answering`: the platform's own words for their press or command, as its
        parser put it in `Request.answering`; a press's answer stands in place of the
        pressed message, for them). Its id. DeliveryFailed (a platform without
        `personal` messages refuses, fatal)."""
        ...

    def update_for(self, chat: Chat, user: int, message_id: int, message: Rendered) -> None:
        """Show `message` in place of `user`'s own message `message_id` (`show_to`).
        DeliveryFailed ("gone": it is no longer there)."""
        ...

    def withdraw(self, chat: Chat, user: int, message_id: int) -> None:
        """Remove `user`'s own message `message_id`; never fails."""
        ...

    def tell_unreachable(
        self, room: Room, user_id: int, name: str, lang: str, keep: int
    ) -> int | None:
        """Tell the room's group, in `lang`, that the player `user_id` (`name`) cannot be
        sent their cards (`blocked`) and how to fix it; the id of the message that says
        so, or None if it could not be said. The word goes once they can be reached
        again (kept in mind `keep` seconds, as long as the room)."""
        ...


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class Webhook:
    """A platform's part of `serve` (service.web): its routes, and what runs as the
    process starts (after the app is built) and as it stops. `plain`: paths answered by
    a bare ASGI app in front of Starlette, for the updates' hot path (no routing, no
    request and response objects: a fifth of an update's time went there)."""

    routes: list[Route]
    startup: Callable[[], Awaitable[None]]
    shutdown: Callable[[], Awaitable[None]]
    plain: dict[str, ASGIApp] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """An HTTP answer of a plain ASGI path, as Starlette's PlainTextResponse and
    JSONResponse would give it."""

    status: int
    body: bytes
    media_type: str = "text/plain; charset=utf-8"
    headers: tuple[tuple[bytes, bytes], ...] = ()

    @classmethod
    def text(cls, text: str, status: int = 200) -> Answer:
        return cls(status, text.encode())

    @classmethod
    def json(cls, content: Any) -> Answer:
        body = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return cls(200, body.encode(), "application/json")

    async def send(self, send: Send) -> None:
        headers = [
            (b"content-length", str(len(self.body)).encode()),
            (b"content-type", self.media_type.encode()),
            *self.headers,
        ]
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": self.body})


def header(scope: Scope, name: bytes) -> bytes | None:
    """A request header of an ASGI scope (`name` in lower case, as ASGI gives them)."""
    for key, value in scope["headers"]:
        if key == name:
            return value  # type: ignore[no-any-return]
    return None


async def read_asgi_body(scope: Scope, receive: Receive, limit: int) -> bytes:
    """A plain ASGI path's request body, refused past `limit` bytes (its declared
    length first), as `read_body` does."""
    declared = header(scope, b"content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Disconnected
        chunk: bytes = message.get("body", b"")
        body += chunk
        if len(body) > limit:
            raise BodyTooLarge
        if not message.get("more_body", False):
            return body


class BodyTooLarge(Exception):
    pass


class Disconnected(Exception):
    """The sender went away before its body was read: nothing to answer."""


async def read_body(request: Request, limit: int) -> bytes:
    """A webhook's body, refused past `limit` bytes (its declared length first): a
    Starlette route's `read_asgi_body` (a sender gone away is Starlette's own
    ClientDisconnect, as when the request reads its body itself)."""
    try:
        return await read_asgi_body(request.scope, request.receive, limit)
    except Disconnected:
        raise ClientDisconnect from None
