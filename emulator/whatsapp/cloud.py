"""The local WhatsApp Cloud API as one object (`Emulator.whatsapp`): what happens to a
business's message once its request passed validation, what users do, and the timers of
the emulator's clock.

A message the Graph API accepted (200 and a wamid) can still fail, as on Meta's side,
by a `failed` status webhook: to a recipient the emulator does not know (131026), a
free-form message outside the 24-hour customer service window (131047), a message not
delivered within its time-to-live because its user stayed offline (TTL_EXPIRED), a
document whose media cannot be fetched (131053). Otherwise it is `sent`, then
`delivered` when its user is online (it then shows in their chat), then `read` when
they open the chat or tap on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import secrets
from collections.abc import Callable
from typing import Any

import httpx

from emulator.whatsapp.config import WhatsAppConfig
from emulator.whatsapp.errors import INVALID_PARAMETER as INVALID
from emulator.whatsapp.errors import (
    MEDIA_UPLOAD,
    RE_ENGAGEMENT,
    SUBCODE_TEMPLATE_EXISTS,
    TEMPLATE_DISABLED,
    TEMPLATE_MISSING,
    TEMPLATE_PARAMS,
    TEMPLATE_PAUSED,
    TEMPLATE_TOO_LONG,
    TTL_EXPIRED,
    UNDELIVERABLE,
    Code,
    GraphError,
    async_error,
    out_of_range,
)
from emulator.whatsapp.limits import Pacing
from emulator.whatsapp.validation import (
    FREE_FORM,
    TEMPLATE_BODY_MAX,
    MarkRead,
    NewTemplate,
    Outgoing,
    check_param_text,
    fill,
    formatted_names,
    literal_markup,
    placeholders,
)
from emulator.whatsapp.webhook import Webhooks
from emulator.whatsapp.world import Media, Template, WaMessage, WaUser, WaWorld, new_wamid

JSON = dict[str, Any]
TICK_SECONDS = 0.1

RE_ENGAGEMENT_DETAILS = (
    "Message failed to send because more than 24 hours have passed since the customer "
    "last replied to this number."
)
UNDELIVERABLE_DETAILS = (
    "Message Undeliverable. Unable to deliver message: the recipient is not a WhatsApp "
    "user the local emulator knows."
)
TTL_DETAILS = "Message failed to send during its Time To Live (TTL) duration."


class ActionError(Exception):
    """A user cannot do that (the control API answers 400 with the reason)."""


class WhatsAppCloud:
    def __init__(self, config: WhatsAppConfig, client: Callable[[], httpx.AsyncClient]) -> None:
        self.config = config
        self.world = WaWorld(config)
        self.pacing = Pacing(config, self.world.clock.now)
        self.webhooks = Webhooks(self.world, config, client)
        self.approval_delay = config.approval_delay
        self._client = client
        self._ticker: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        # What Meta accepted that WhatsApp would show literally (validation.literal_markup).
        self.warnings: list[JSON] = []

    # ----- running -----------------------------------------------------------

    def start(self) -> None:
        """Run the clock's timers (idempotent; needs the running event loop)."""
        if self._closed:
            return
        loop = asyncio.get_running_loop()
        ticker = self._ticker
        if ticker is None or ticker.done() or ticker.get_loop() is not loop:
            self._ticker = loop.create_task(self._tick_forever())

    async def _tick_forever(self) -> None:
        while True:
            self.tick()
            await asyncio.sleep(TICK_SECONDS)

    async def close(self) -> None:
        self._closed = True
        tasks = [t for t in (self._ticker, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.webhooks.close()

    def now(self) -> float:
        return self.world.clock.now()

    def advance(self, seconds: float) -> float:
        now = self.world.clock.advance(seconds)
        self.world.record("clock", advanced=seconds, now=now)
        self.world.events.publish({"type": "clock", "now": now, "offset": self.world.clock.offset})
        self.tick()
        return now

    def tick(self) -> None:
        """What the clock brings: templates approved, messages past their time-to-live,
        webhook retries due by the clock."""
        now = self.now()
        for template in self.world.templates.values():
            template.refresh(now)
            if template.status != template.announced:
                template.announced = template.status
                self.template_event(template)
        for wamid in sorted(self.world.waiting, key=lambda w: self.world.messages[w].seq):
            message = self.world.messages[wamid]
            if now >= message.time + message.ttl:
                self.fail(message, TTL_EXPIRED, TTL_DETAILS)
        self.webhooks.wake()

    # ----- the business's messages -------------------------------------------

    def metadata(self) -> JSON:
        return {
            "display_phone_number": self.config.display_phone_number,
            "phone_number_id": self.config.phone_number_id,
        }

    def recipient_user(self, out: Outgoing) -> WaUser | None:
        recipient = out.recipient
        if recipient.kind == "bsuid":
            return self.world.users.get(recipient.value)
        return self.world.by_phone(recipient.value)

    def send(self, out: Outgoing) -> JSON:
        """A checked message request: refused now (GraphError), or accepted and then
        sent, delivered or failed by status webhooks."""
        user = self.recipient_user(out)
        template: Template | None = None
        rendered: JSON | None = None
        if out.type == "template":
            template, rendered = self.resolve_template(out.content["template"])
        if out.type == "reaction" and user is not None:
            target = out.content["reaction"]["message_id"]
            if self.chat_message(user, target) is None:
                raise out_of_range(
                    f"reaction['message_id'] {target!r} is not a message of this chat."
                )
        self.pacing.take(user.user_id if user else out.recipient.value)
        owner = user.user_id if user else out.recipient.value
        context = out.context_id
        if context is not None and (user is None or self.chat_message(user, context) is None):
            # Meta sends a reply to a message it cannot find as a plain message.
            self.world.record("note", what=f"context {context!r} not in the chat: sent without")
            context = None
        message = self.world.new_message(owner, "out", out.type, out.content, context_id=context)
        message.rendered = rendered
        message.callback_data = out.callback_data
        if template is not None:
            message.ttl = template.message_ttl()
            message.category = template.category.lower()
        contact: JSON = {"input": out.recipient.input}
        if user is not None:
            if user.phone:
                contact["wa_id"] = user.phone
            contact["user_id"] = user.user_id
        elif out.recipient.kind == "phone":
            contact["wa_id"] = out.recipient.value
        else:
            contact["user_id"] = out.recipient.value
        self.warn(message, out, rendered)
        sent: JSON = {"id": message.id}
        if template is not None:
            # Meta gives message_status (template pacing) for template messages only.
            sent["message_status"] = "accepted"
        self.dispatch(message, user)
        return {"messaging_product": "whatsapp", "contacts": [contact], "messages": [sent]}

    def warn(self, message: WaMessage, out: Outgoing, rendered: JSON | None) -> None:
        """Record what Meta accepted that WhatsApp would show otherwise than meant."""
        names = [user.name for user in self.world.users.values()]
        for where, problem in [
            *literal_markup(out.type, out.content),
            *formatted_names(out.type, out.content, rendered, names),
        ]:
            warning = {"message_id": message.id, "field": where, "problem": problem}
            self.warnings.append(warning)
            self.world.record("warning", **warning)

    def dispatch(self, message: WaMessage, user: WaUser | None) -> None:
        if user is None:
            self.fail(message, UNDELIVERABLE, UNDELIVERABLE_DETAILS)
            return
        free_form = message.type in FREE_FORM
        window = user.window_open(message.time)
        if free_form and not window:
            self.fail(message, RE_ENGAGEMENT, RE_ENGAGEMENT_DETAILS)
            return
        free = message.category == "service" or (message.category == "utility" and window)
        message.pricing = {
            "billable": not free,
            "pricing_model": "PMP",
            "type": "free_customer_service" if free else "regular",
            "category": message.category,
        }
        document = message.content.get("document")
        if document is not None and "id" in document and document["id"] not in self.world.media:
            self.fail(message, MEDIA_UPLOAD, f"Media id {document['id']!r} cannot be fetched.")
            return
        if document is not None and "link" in document:
            self.spawn(self._fetch_then_send(message, user, str(document["link"])))
            return
        self.set_status(message, "sent")
        if user.online:
            self.set_status(message, "delivered")

    async def _fetch_then_send(self, message: WaMessage, user: WaUser, link: str) -> None:
        try:
            response = await self._client().get(link, timeout=20.0)
            ok = response.status_code == 200
        except httpx.HTTPError:
            ok = False
        if not ok:
            self.fail(message, MEDIA_UPLOAD, f"The document link {link!r} could not be fetched.")
            return
        self.set_status(message, "sent")
        if user.online:
            self.set_status(message, "delivered")

    def spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def set_status(self, message: WaMessage, status: str) -> None:
        message.status = status
        if status == "sent" and message.id in self.world.messages:
            self.world.waiting.add(message.id)
        else:
            self.world.waiting.discard(message.id)
        if status == "delivered":
            message.delivered_at = self.now()
        self.world.touch(message)
        self.status_event(message)

    def fail(self, message: WaMessage, code: Code, details: str) -> None:
        message.status = "failed"
        self.world.waiting.discard(message.id)
        message.errors = [async_error(code, details)]
        self.world.touch(message)
        self.status_event(message)

    def status_event(self, message: WaMessage) -> None:
        status: JSON = {
            "id": message.id,
            "status": message.status,
            "timestamp": str(int(self.now())),
        }
        user = self.world.users.get(message.user_id)
        if user is not None:
            if user.phone:
                status["recipient_id"] = user.phone
            status["recipient_user_id"] = user.user_id
        elif message.user_id.isdigit():
            status["recipient_id"] = message.user_id
        else:
            status["recipient_user_id"] = message.user_id
        if message.status in ("sent", "delivered") and message.pricing is not None:
            status["pricing"] = message.pricing
        if message.callback_data is not None:
            status["biz_opaque_callback_data"] = message.callback_data
        if message.errors:
            status["errors"] = message.errors
        self.world.record("status", status=status)
        value = {"messaging_product": "whatsapp", "metadata": self.metadata(), "statuses": [status]}
        self.webhooks.enqueue("messages", value)

    def chat_message(self, user: WaUser, wamid: str) -> WaMessage | None:
        found = self.world.messages.get(wamid)
        return found if found is not None and found.user_id == user.user_id else None

    def mark_read(self, mark: MarkRead) -> JSON:
        """The business read a user's message (and, as on WhatsApp, all before it)."""
        found = self.world.messages.get(mark.message_id)
        if found is None or found.direction != "in":
            raise GraphError(INVALID, f"message_id {mark.message_id!r} is not a message received")
        for message in self.world.chats[found.user_id].messages:
            if message.direction == "in" and message.seq <= found.seq and message.status != "read":
                message.status = "read"
                self.world.touch(message)
        if mark.typing:
            self.world.record("typing", user_id=found.user_id)
        return {"success": True}

    # ----- templates ---------------------------------------------------------

    def create_template(self, new: NewTemplate) -> JSON:
        for template in self.world.templates.values():
            if template.name == new.name and template.language == new.language:
                raise GraphError(
                    INVALID,
                    f"There is already {new.language} content for this template.",
                    message="Invalid parameter",
                    subcode=SUBCODE_TEMPLATE_EXISTS,
                    user_title="Content in This Language Already Exists",
                    user_msg=(
                        f"There is already {new.language} content for this template. You can "
                        "create a new template and try again."
                    ),
                )
        now = self.now()
        template = Template(
            id=self.world.new_id(),
            name=new.name,
            language=new.language,
            category=new.category,
            components=new.components,
            created=now,
            approve_at=now + self.approval_delay,
            ttl=new.ttl,
        )
        self.world.templates[template.id] = template
        self.world.changes += 1
        return {"id": template.id, "status": "PENDING", "category": template.category}

    def templates(self) -> list[Template]:
        now = self.now()
        for template in self.world.templates.values():
            template.refresh(now)
        return list(self.world.templates.values())

    def set_template_status(self, template: Template, status: str) -> None:
        if status not in ("APPROVED", "REJECTED", "PAUSED", "DISABLED", "PENDING"):
            raise ValueError(f"not a template status: {status!r}")
        template.status = status
        if status != "PENDING":
            template.approve_at = min(template.approve_at, self.now())
        self.world.changes += 1
        self.tick()

    def template_event(self, template: Template) -> None:
        value = {
            "event": template.status,
            "message_template_id": int(template.id),
            "message_template_name": template.name,
            "message_template_language": template.language,
            "reason": "NONE",
            "message_template_category": template.category,
        }
        self.webhooks.enqueue("message_template_status_update", value)

    def resolve_template(self, sent: JSON) -> tuple[Template, JSON]:
        """The template a template message names, and what the user will see; Meta's
        132xxx refusals when it cannot be sent."""
        name, code = sent["name"], sent["language"]["code"]
        found = next((t for t in self.templates() if t.name == name and t.language == code), None)
        if found is None or found.status in ("PENDING", "REJECTED"):
            raise GraphError(TEMPLATE_MISSING, f"template name ({name}) does not exist in {code}")
        if found.status == "PAUSED":
            raise GraphError(TEMPLATE_PAUSED, f"Template {name} is paused")
        if found.status == "DISABLED":
            raise GraphError(TEMPLATE_DISABLED, f"Template {name} is disabled")
        given: dict[str, list[str]] = {"body": [], "header": []}
        payloads: dict[int, str] = {}
        for component in sent.get("components", []):
            kind = component["type"]
            if kind == "button":
                index = int(component["index"])
                if index in payloads:
                    raise out_of_range(f"button index {index} is given twice")
                payloads[index] = component["parameters"][0]["payload"]
            else:
                if given[kind]:
                    raise out_of_range(f"component {kind} is given twice")
                given[kind] = [p["text"] for p in component.get("parameters", [])]
        parts = {c["type"]: c for c in found.components}
        rendered: JSON = {"text": "", "header": None, "footer": None, "buttons": []}
        for kind, key in (("body", "BODY"), ("header", "HEADER")):
            part = parts.get(key)
            expected = len(placeholders(part["text"])) if part else 0
            values = given[kind]
            if len(values) != expected:
                raise GraphError(
                    TEMPLATE_PARAMS,
                    f"{kind}: number of localizable_params ({len(values)}) does not match the "
                    f"expected number of params ({expected})",
                )
            for value in values:
                check_param_text(value)
            if part is not None:
                text = fill(part["text"], values)
                if kind == "body" and len(text.encode("utf-16-le")) // 2 > TEMPLATE_BODY_MAX:
                    raise GraphError(TEMPLATE_TOO_LONG, f"body is longer than {TEMPLATE_BODY_MAX}")
                rendered["text" if kind == "body" else "header"] = text
        if "FOOTER" in parts:
            rendered["footer"] = parts["FOOTER"]["text"]
        buttons = parts.get("BUTTONS", {}).get("buttons", [])
        for index in payloads:
            if index >= len(buttons):
                raise out_of_range(f"template {name} has no button at index {index}")
        rendered["buttons"] = [
            {
                "id": payloads.get(i, b["text"]),
                "title": b["text"],
                "payload": payloads.get(i, b["text"]),
            }
            for i, b in enumerate(buttons)
        ]
        return found, rendered

    # ----- media -------------------------------------------------------------

    def store_media(self, content: bytes, mime_type: str, filename: str) -> Media:
        media = Media(
            id=self.world.new_id(),
            mime_type=mime_type,
            content=content,
            sha256=hashlib.sha256(content).hexdigest(),
            filename=filename,
            uploaded=self.now(),
        )
        self.world.media[media.id] = media
        self.world.changes += 1
        return media

    def media_hash(self, media_id: str, expires: int) -> str:
        key = self.config.app_secret.encode()
        return hashlib.sha256(key + f"{media_id}:{expires}".encode()).hexdigest()[:32]

    # ----- what users do -----------------------------------------------------

    def add_user(
        self,
        name: str,
        country: str,
        language: str,
        phone: str | None = None,
        username: str | None = None,
    ) -> WaUser:
        if not re.fullmatch(r"[A-Z]{2}", country):
            raise ValueError("'country' is a two-letter country code, as BR")
        if phone is not None and not re.fullmatch(r"[1-9][0-9]{6,14}", phone):
            raise ValueError("'phone' is the number's digits, country code first")
        if phone is None and not username:
            raise ValueError("a user without a phone number has a username")
        user_id = f"{country}.{secrets.randbelow(9 * 10**15) + 10**15}"
        return self.world.add_user(WaUser(name, user_id, language, phone, username))

    def set_online(self, user: WaUser, online: bool) -> None:
        self.tick()  # what ran out of time while they were away fails first
        user.online = online
        self.world.changes += 1
        self.world.record("online", user_id=user.user_id, online=online)
        if online:
            for message in self.world.chats[user.user_id].messages:
                if message.direction == "out" and message.status == "sent":
                    self.set_status(message, "delivered")
        self.world.events.publish({"type": "users"})

    def open_chat(self, user: WaUser) -> int:
        """The user looks at their chat: what was delivered is read (status webhooks)."""
        self._awake(user)
        count = 0
        for message in self.world.chats[user.user_id].messages:
            if message.direction == "out" and message.status == "delivered":
                self.set_status(message, "read")
                count += 1
        return count

    def _awake(self, user: WaUser) -> None:
        if not user.online:
            raise ActionError(f"{user.name} is offline (set them online first)")

    def inbound(self, user: WaUser, kind: str, body: JSON, context: WaMessage | None) -> WaMessage:
        """A user's message to the business: in their chat, and a messages webhook."""
        self.open_chat(user)
        now = self.now()
        user.last_inbound = now
        wamid = new_wamid()
        message: JSON = {}
        if context is not None:
            if context.direction == "out":
                message["context"] = {"from": self.config.display_phone_number, "id": context.id}
            else:
                message["context"] = {"from": user.phone or user.user_id, "id": context.id}
        if user.phone:
            message["from"] = user.phone
        message["from_user_id"] = user.user_id
        message["id"] = wamid
        message["timestamp"] = str(int(now))
        message["type"] = kind
        message[kind] = body
        stored = self.world.new_message(
            user.user_id,
            "in",
            kind,
            message,
            wamid=wamid,
            context_id=context.id if context else None,
        )
        value = {
            "messaging_product": "whatsapp",
            "metadata": self.metadata(),
            "contacts": [user.contact()],
            "messages": [message],
        }
        self.webhooks.enqueue("messages", value)
        return stored

    def send_text(self, user: WaUser, text: str, reply_to: str | None = None) -> WaMessage:
        if not text.strip():
            raise ActionError("a message needs some text")
        context = self._visible(user, reply_to) if reply_to else None
        return self.inbound(user, "text", {"body": text}, context)

    def _visible(self, user: WaUser, wamid: str) -> WaMessage:
        message = self.chat_message(user, wamid)
        if message is None:
            raise ActionError(f"no message {wamid!r} in {user.name}'s chat")
        if not message.visible:
            raise ActionError(f"{user.name} has not received that message ({message.status})")
        return message

    def tap(self, user: WaUser, wamid: str, label: str) -> WaMessage:
        """Tap a reply button, or a template's quick reply, by its title (or id). Every
        old message's buttons can still be tapped: WhatsApp never takes them away."""
        self._awake(user)
        message = self._visible(user, wamid)
        if message.direction != "out":
            raise ActionError("that is the user's own message")
        if message.type == "interactive" and message.content["interactive"]["type"] == "button":
            buttons = message.content["interactive"]["action"]["buttons"]
            for button in buttons:
                reply = button["reply"]
                if label in (reply["title"], reply["id"]):
                    body = {"type": "button_reply", "button_reply": dict(reply)}
                    return self.inbound(user, "interactive", body, message)
            titles = [b["reply"]["title"] for b in buttons]
            raise ActionError(f"no button {label!r} on that message ({titles})")
        if message.type == "template" and message.rendered and message.rendered["buttons"]:
            for button in message.rendered["buttons"]:
                if label in (button["title"], button["payload"]):
                    body = {"payload": button["payload"], "text": button["title"]}
                    return self.inbound(user, "button", body, message)
            titles = [b["title"] for b in message.rendered["buttons"]]
            raise ActionError(f"no quick reply {label!r} on that template ({titles})")
        if message.type == "interactive":
            raise ActionError("that message is a list: choose one of its rows")
        raise ActionError("that message has no reply buttons")

    def choose(self, user: WaUser, wamid: str, label: str) -> WaMessage:
        """Open a list message and pick a row, by its title (or id)."""
        self._awake(user)
        message = self._visible(user, wamid)
        if message.type != "interactive" or message.content["interactive"]["type"] != "list":
            raise ActionError("that message is not a list")
        sections = message.content["interactive"]["action"]["sections"]
        rows = [row for section in sections for row in section["rows"]]
        matches = [row for row in rows if label in (row["title"], row["id"])]
        if not matches:
            raise ActionError(f"no row {label!r} in that list ({[r['title'] for r in rows]})")
        if len(matches) > 1:
            raise ActionError(f"{len(matches)} rows are titled {label!r}: name one by its id")
        row = matches[0]
        reply: JSON = {"id": row["id"], "title": row["title"]}
        if row.get("description"):
            reply["description"] = row["description"]
        return self.inbound(
            user, "interactive", {"type": "list_reply", "list_reply": reply}, message
        )
