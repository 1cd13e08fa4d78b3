"""The emulated WhatsApp: its clock, users, each user's one chat with the business (every
message both ways, in order, never edited or deleted), templates, media, and the log.
Lives on the server's event loop; nothing here does I/O.
"""

from __future__ import annotations

import base64
import itertools
import secrets
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from emulator.common.events import EventBus
from emulator.whatsapp.config import WaUserSpec, WhatsAppConfig

JSON = dict[str, Any]

# The customer service window: free-form messages only within 24 hours of the user's
# last message (developers.facebook.com/docs/whatsapp/pricing#customer-service-windows).
WINDOW_SECONDS = 24 * 3600
# Delivery is retried for a message's time-to-live: 30 days by default, templates'
# categories have their own
# (developers.facebook.com/docs/whatsapp/business-management-api/message-templates/time-to-live).
DEFAULT_TTL = 30 * 24 * 3600
AUTHENTICATION_TTL = 600
# A media download URL lasts 5 minutes
# (developers.facebook.com/docs/whatsapp/cloud-api/reference/media).
MEDIA_URL_SECONDS = 300


class Clock:
    """Real time plus an offset that only grows (`advance`)."""

    def __init__(self, offset: float = 0.0) -> None:
        self.offset = offset

    def now(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("the clock only goes forward")
        self.offset += seconds
        return self.now()


def new_wamid() -> str:
    """A message id as Meta writes them: `wamid.` and base64 (which may hold + / =)."""
    return (
        "wamid." + base64.b64encode(b"\x15\x02\x00\x11\x18\x12" + secrets.token_bytes(22)).decode()
    )


@dataclass
class WaUser:
    name: str
    user_id: str  # the BSUID
    language: str
    phone: str | None = None  # the wa_id; None: a username-only user
    username: str | None = None
    online: bool = True
    last_inbound: float | None = None  # emulator time of their last message or tap

    @classmethod
    def of(cls, spec: WaUserSpec) -> WaUser:
        return cls(spec.name, spec.user_id, spec.language, spec.phone, spec.username)

    def window_open(self, now: float) -> bool:
        return self.last_inbound is not None and now - self.last_inbound < WINDOW_SECONDS

    def contact(self) -> JSON:
        """The `contacts[]` entry of a messages webhook: no wa_id without a phone."""
        profile: JSON = {"name": self.name}
        if self.username:
            profile["username"] = self.username
        out: JSON = {"profile": profile}
        if self.phone:
            out["wa_id"] = self.phone
        out["user_id"] = self.user_id
        return out

    def to_json(self, now: float) -> JSON:
        return {
            "name": self.name,
            "user_id": self.user_id,
            "wa_id": self.phone,
            "username": self.username,
            "language": self.language,
            "online": self.online,
            "last_inbound": self.last_inbound,
            "window_open": self.window_open(now),
        }


@dataclass
class WaMessage:
    """One message of a chat. Outgoing (`out`): the Graph request's message object as
    sent; incoming (`in`): the webhook's message object."""

    id: str
    user_id: str
    direction: str  # "out" (business -> user) or "in"
    type: str
    time: float  # emulator time it was sent
    content: JSON  # out: {"text": {...}} / {"interactive": {...}} ...; in: the message JSON
    seq: int  # its place among all messages
    rev: int  # bumped on each change (status): `since` reads changes
    status: str = "accepted"  # out: accepted, sent, delivered, read, failed; in: received, read
    context_id: str | None = None  # the message it replies to
    ttl: float = DEFAULT_TTL
    category: str = "service"  # pricing: service, utility, marketing, authentication
    delivered_at: float | None = None
    errors: list[JSON] = field(default_factory=list)
    rendered: JSON | None = None  # a template as the user sees it: text and buttons
    pricing: JSON | None = None  # what its sent and delivered statuses say of its price
    callback_data: str | None = None  # the business's biz_opaque_callback_data

    @property
    def visible(self) -> bool:
        """Whether the user sees it (incoming ones always: they wrote it)."""
        return self.direction == "in" or self.status in ("delivered", "read")


@dataclass
class Chat:
    user_id: str
    messages: list[WaMessage] = field(default_factory=list)


@dataclass
class Template:
    id: str
    name: str
    language: str
    category: str
    components: list[JSON]
    created: float
    approve_at: float
    status: str = "PENDING"  # APPROVED, REJECTED, PAUSED, DISABLED
    ttl: int | None = None  # message_send_ttl_seconds
    announced: str = "PENDING"  # the last status a template webhook told

    def refresh(self, now: float) -> None:
        if self.status == "PENDING" and now >= self.approve_at:
            self.status = "APPROVED"

    def message_ttl(self) -> float:
        if self.ttl is not None and self.ttl != -1:
            return float(self.ttl)
        if self.category == "AUTHENTICATION" and self.ttl is None:
            return float(AUTHENTICATION_TTL)
        return float(DEFAULT_TTL)

    def to_json(self) -> JSON:
        out: JSON = {
            "name": self.name,
            "parameter_format": "POSITIONAL",
            "components": self.components,
            "language": self.language,
            "status": self.status,
            "category": self.category,
            "id": self.id,
        }
        if self.ttl is not None:
            out["message_send_ttl_seconds"] = self.ttl
        return out


@dataclass
class Media:
    id: str
    mime_type: str
    content: bytes
    sha256: str
    filename: str
    uploaded: float

    def to_json(self, url: str) -> JSON:
        return {
            "messaging_product": "whatsapp",
            "url": url,
            "mime_type": self.mime_type,
            "sha256": self.sha256,
            "file_size": len(self.content),
            "id": self.id,
        }


class WaWorld:
    def __init__(self, config: WhatsAppConfig) -> None:
        self.config = config
        self.clock = Clock()
        self.users: dict[str, WaUser] = {}  # by BSUID
        self.chats: dict[str, Chat] = {}
        self.messages: dict[str, WaMessage] = {}  # by wamid, of every chat
        self.undeliverable: dict[str, WaMessage] = {}  # sent to nobody the emulator knows
        self.waiting: set[str] = set()  # sent, not delivered yet: their time-to-live runs
        self.templates: dict[str, Template] = {}  # by id
        self.media: dict[str, Media] = {}
        self.log: deque[JSON] = deque(maxlen=config.log_limit)
        self.events = EventBus()
        self._seq = itertools.count(1)
        self._message_seq = itertools.count(1)
        self._rev = itertools.count(1)
        self._ids = itertools.count(int(time.time()) % 10**9 * 1000)
        self.changes = 0  # bumped on every change: persist.keep saves then
        for spec in config.users:
            self.add_user(WaUser.of(spec))

    # ----- users and chats ---------------------------------------------------

    def add_user(self, user: WaUser) -> WaUser:
        if user.user_id in self.users:
            raise ValueError(f"there is already a user {user.user_id}")
        if any(u.name.lower() == user.name.lower() for u in self.users.values()):
            raise ValueError(f"there is already a user named {user.name}")
        if user.phone and self.by_phone(user.phone) is not None:
            raise ValueError(f"there is already a user with the number {user.phone}")
        self.users[user.user_id] = user
        self.chats[user.user_id] = Chat(user.user_id)
        self.changes += 1
        self.events.publish({"type": "users"})
        return user

    def by_phone(self, digits: str) -> WaUser | None:
        return next((u for u in self.users.values() if u.phone == digits), None)

    def find_user(self, ref: str) -> WaUser:
        """A user by name, BSUID, wa_id or username (the control API's `user`)."""
        wanted = ref.strip().removeprefix("@").removeprefix("+").lower()
        for user in self.users.values():
            names = (user.name, user.user_id, user.phone, user.username)
            if any(n is not None and n.lower() == wanted for n in names):
                return user
        raise LookupError(f"no WhatsApp user {ref!r}")

    def new_id(self) -> str:
        return str(next(self._ids))

    def renumber(self, seq: int, rev: int) -> None:
        """New messages are numbered from `seq` and `rev` on (a world restored)."""
        self._message_seq = itertools.count(seq)
        self._rev = itertools.count(rev)

    # ----- messages ----------------------------------------------------------

    def new_message(
        self,
        user_id: str,
        direction: str,
        type_: str,
        content: JSON,
        *,
        wamid: str | None = None,
        context_id: str | None = None,
    ) -> WaMessage:
        message = WaMessage(
            id=wamid or new_wamid(),
            user_id=user_id,
            direction=direction,
            type=type_,
            time=self.clock.now(),
            content=content,
            seq=next(self._message_seq),
            rev=next(self._rev),
            status="received" if direction == "in" else "accepted",
            context_id=context_id,
        )
        chat = self.chats.get(user_id)
        if chat is None:
            self.undeliverable[message.id] = message
        else:
            chat.messages.append(message)
            self.messages[message.id] = message
        self.touch(message)
        return message

    def touch(self, message: WaMessage) -> None:
        """A message changed (new, or a new status): later `since` reads see it."""
        message.rev = next(self._rev)
        self.changes += 1
        if message.user_id in self.chats:
            self.events.publish({"type": "message", "message": self.message_view(message)})

    def last_rev(self) -> int:
        revs = [m.rev for m in self.messages.values()]
        return max(revs, default=0)

    # ----- log ---------------------------------------------------------------

    def record(self, kind: str, **fields: Any) -> JSON:
        """Log what happened: Graph calls, webhook events and deliveries, statuses."""
        entry: JSON = {
            "seq": next(self._seq),
            "time": time.time(),
            "clock": self.clock.now(),
            "kind": kind,
            **fields,
        }
        self.log.append(entry)
        return entry

    def entries(self, since: int = 0, kind: str | None = None) -> Iterator[JSON]:
        return (e for e in self.log if e["seq"] > since and (kind is None or e["kind"] == kind))

    def last_seq(self) -> int:
        return int(self.log[-1]["seq"]) if self.log else 0

    # ----- views -------------------------------------------------------------

    def message_view(self, message: WaMessage) -> JSON:
        """A message as the control API and the web chat show it."""
        user = self.users.get(message.user_id)
        view: JSON = {
            "id": message.id,
            "user": user.name if user else message.user_id,
            "user_id": message.user_id,
            "direction": message.direction,
            "type": message.type,
            "time": message.time,
            "seq": message.seq,
            "rev": message.rev,
            "status": message.status,
            "visible": message.visible,
            "context_id": message.context_id,
            "errors": message.errors,
        }
        view.update(shown(message))
        view["content"] = message.content
        return view


def shown(message: WaMessage) -> JSON:
    """What the user sees of a message: its text, header, footer, buttons, list, and a
    call-to-action's button (`cta`: its label and the link it opens)."""
    out: JSON = {"text": "", "header": None, "footer": None, "buttons": [], "list": None}
    content = message.content
    if message.direction == "in":
        kind = content.get("type")
        if kind == "text":
            out["text"] = content["text"]["body"]
        elif kind == "interactive":
            reply = content["interactive"].get("button_reply") or content["interactive"].get(
                "list_reply"
            )
            out["text"] = reply["title"] if reply else ""
        elif kind == "button":
            out["text"] = content["button"]["text"]
        return out
    if message.type == "text":
        out["text"] = content["text"]["body"]
    elif message.type == "interactive":
        interactive = content["interactive"]
        out["text"] = interactive["body"]["text"]
        header = interactive.get("header")
        out["header"] = header.get("text") if header else None
        footer = interactive.get("footer")
        out["footer"] = footer.get("text") if footer else None
        action = interactive["action"]
        if interactive["type"] == "cta_url":
            parameters = action["parameters"]
            out["cta"] = {"display_text": parameters["display_text"], "url": parameters["url"]}
        elif interactive["type"] == "button":
            out["buttons"] = [
                {"id": b["reply"]["id"], "title": b["reply"]["title"]} for b in action["buttons"]
            ]
        else:
            out["list"] = {
                "button": action["button"],
                "sections": [
                    {
                        "title": section.get("title"),
                        "rows": [
                            {
                                "id": row["id"],
                                "title": row["title"],
                                "description": row.get("description"),
                            }
                            for row in section["rows"]
                        ],
                    }
                    for section in action["sections"]
                ],
            }
    elif message.type == "template" and message.rendered is not None:
        out["text"] = message.rendered["text"]
        out["header"] = message.rendered.get("header")
        out["footer"] = message.rendered.get("footer")
        out["buttons"] = message.rendered["buttons"]
    elif message.type == "document":
        document = content["document"]
        out["text"] = document.get("caption", "")
        out["document"] = {
            "filename": document.get("filename"),
            "id": document.get("id"),
            "link": document.get("link"),
        }
    elif message.type == "reaction":
        out["text"] = content["reaction"].get("emoji", "")
        out["reaction_to"] = content["reaction"]["message_id"]
    return out
