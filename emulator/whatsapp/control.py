"""The control API under `/_emulator/whatsapp/`: what tests, benchmarks and the web chat
use to act as WhatsApp users and to read what happened. JSON in, `{"ok": true,
"result": ...}` out; a refused action is `{"ok": false, "error_code": 400,
"description": ...}` (as the Telegram side's control API).

Users are named by name ("Abuela"), BSUID, wa_id or username. Reads that a page polls
take `since`: messages by their `rev` (bumped on every change, statuses included), the
logs by `seq`; `GET /events` streams the same changes as Server-Sent Events.

| route | does |
| --- | --- |
| `GET config` | the business's ids and token, the Graph base |
| `GET users`, `POST users` | the users; add one (name, country, language, phone or username) |
| `POST online` | a user goes offline or online (user, online) |
| `POST send` | a user writes (user, text, reply_to) |
| `POST tap` | a user taps a reply button or a template's quick reply (user, message_id, title) |
| `POST choose` | a user picks a list row (user, message_id, title) |
| `POST open` | a user opens their chat: delivered messages become read |
| `GET chats` | every chat: its user, last message, unread count |
| `GET messages` | a user's chat, both ways (user, since) |
| `GET message` | one message by wamid (id) |
| `GET calls`, `GET deliveries`, `GET statuses`, `GET log` | what happened (since) |
| `GET warnings` | what Meta accepted that WhatsApp would show literally (HTML, `**`) |
| `GET clock`, `POST advance` | the emulator's clock; move it on (seconds) |
| `GET settings`, `POST settings` | the knobs (SETTINGS below) |
| `GET templates`, `POST template_status` | templates; review one (name, language, status) |
| `GET`/`POST`/`DELETE webhook` | the callback URL: set (url, verify_token, fields) |
| `POST delivery` | pause or resume webhook delivery (paused) |
| `GET events` | Server-Sent Events: messages, users, the clock moved on |
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.common.control import DELETE, GET, POST, Args, ControlApi, flag
from emulator.common.events import event_stream
from emulator.whatsapp.cloud import ActionError, WhatsAppCloud
from emulator.whatsapp.webhook import WebhookRefused
from emulator.whatsapp.world import WaMessage, WaUser

JSON = dict[str, Any]
SETTINGS = (
    "limits",
    "pair_burst",
    "throughput",
    "approval_delay",
    "duplicates",
    "batch",
    "batch_max",
    "reorder",
    "hold",
    "seed",
    "retry_compression",
    "concurrency",
)


def _flag(value: Any) -> bool:
    return flag(value, yes=("1", "true", "yes", "on"))


class WhatsAppControl(ControlApi):
    """The control API's routes, one method each (a route's arguments in `args`)."""

    refused = (LookupError, ActionError, ValueError, TypeError, WebhookRefused)

    def __init__(self, cloud: WhatsAppCloud) -> None:
        self.cloud = cloud
        self.world = cloud.world
        self.config = cloud.config
        self.hooks = cloud.webhooks

    def before(self) -> None:
        self.cloud.start()  # the clock's timers run from the first call on

    def routes(self) -> list[Route]:
        route = self.route
        return [
            route("/config", self.get_config, GET),
            route("/users", self.users, GET),
            route("/users", self.add_user, POST),
            route("/online", self.online, POST),
            route("/send", self.send, POST),
            route("/tap", self.tap, POST),
            route("/choose", self.choose, POST),
            route("/open", self.open_chat, POST),
            route("/chats", self.chats, GET),
            route("/messages", self.messages, GET),
            route("/message", self.one_message, GET),
            route("/calls", self.calls, GET),
            route("/deliveries", self.deliveries, GET),
            route("/statuses", self.statuses, GET),
            route("/log", self.log, GET),
            route("/warnings", self.warnings, GET),
            route("/clock", self.clock, GET),
            route("/advance", self.advance, POST),
            route("/settings", self.settings, [*GET, *POST]),
            route("/templates", self.templates, GET),
            route("/template_status", self.template_status, POST),
            route("/webhook", self.webhook, GET),
            route("/webhook", self.set_webhook, POST),
            route("/webhook", self.delete_webhook, DELETE),
            route("/delivery", self.delivery, POST),
            Route("/events", self.events, methods=GET),
        ]

    # ----- naming users and messages ------------------------------------------

    def user(self, args: Args) -> WaUser:
        if not args.get("user"):
            raise ValueError("missing 'user'")
        return self.world.find_user(str(args["user"]))

    def message_id(self, args: Args) -> str:
        if not args.get("message_id"):
            raise ValueError("missing 'message_id' (a wamid)")
        return str(args["message_id"])

    def view(self, message: WaMessage) -> JSON:
        return self.world.message_view(message)

    # ----- the routes --------------------------------------------------------

    def get_config(self, args: Args) -> JSON:
        return {
            "token": self.config.token,
            "phone_number_id": self.config.phone_number_id,
            "display_phone_number": self.config.display_phone_number,
            "waba_id": self.config.waba_id,
            "app_secret": self.config.app_secret,
            "graph_version": "v21.0",
        }

    def users(self, args: Args) -> list[JSON]:
        now = self.cloud.now()
        return [u.to_json(now) for u in self.world.users.values()]

    def add_user(self, args: Args) -> JSON:
        if not args.get("name"):
            raise ValueError("missing 'name'")
        added = self.cloud.add_user(
            str(args.get("name") or ""),
            str(args.get("country") or ""),
            str(args.get("language") or "en"),
            str(args["phone"]) if args.get("phone") else None,
            str(args["username"]) if args.get("username") else None,
        )
        return added.to_json(self.cloud.now())

    def online(self, args: Args) -> JSON:
        found = self.user(args)
        self.cloud.set_online(found, _flag(args.get("online", True)))
        return found.to_json(self.cloud.now())

    def send(self, args: Args) -> JSON:
        reply_to = str(args["reply_to"]) if args.get("reply_to") else None
        return self.view(self.cloud.send_text(self.user(args), str(args.get("text", "")), reply_to))

    def tap(self, args: Args) -> JSON:
        return self.view(
            self.cloud.tap(self.user(args), self.message_id(args), str(args.get("title", "")))
        )

    def choose(self, args: Args) -> JSON:
        return self.view(
            self.cloud.choose(self.user(args), self.message_id(args), str(args.get("title", "")))
        )

    def open_chat(self, args: Args) -> JSON:
        return {"read": self.cloud.open_chat(self.user(args))}

    def chats(self, args: Args) -> list[JSON]:
        out: list[JSON] = []
        for found in self.world.users.values():
            shown = [m for m in self.world.chats[found.user_id].messages if m.visible]
            unread = sum(1 for m in shown if m.direction == "out" and m.status == "delivered")
            out.append(
                {
                    "user": found.to_json(self.cloud.now()),
                    "last": self.view(shown[-1]) if shown else None,
                    "unread": unread,
                }
            )
        return out

    def messages(self, args: Args) -> JSON:
        found = self.user(args)
        since = int(args.get("since", 0))
        chat = self.world.chats[found.user_id].messages
        return {
            "messages": [self.view(m) for m in chat if m.rev > since],
            "rev": max((m.rev for m in chat), default=since),
        }

    def one_message(self, args: Args) -> JSON:
        wamid = str(args.get("id", ""))
        found = self.world.messages.get(wamid) or self.world.undeliverable.get(wamid)
        if found is None:
            raise LookupError(f"no message {wamid!r}")
        return self.view(found)

    def calls(self, args: Args) -> list[JSON]:
        return self.entries(args, "call")

    def deliveries(self, args: Args) -> list[JSON]:
        return self.entries(args, "delivery")

    def log(self, args: Args) -> list[JSON]:
        return self.entries(args, None)

    def warnings(self, args: Args) -> list[JSON]:
        return self.cloud.warnings

    def entries(self, args: Args, kind: str | None) -> list[JSON]:
        since = int(args.get("since", 0))
        wanted = kind or (str(args["kind"]) if args.get("kind") else None)
        found = list(self.world.entries(since, wanted))
        limit = int(args.get("limit", 0))
        return found[-limit:] if limit > 0 else found

    def statuses(self, args: Args) -> list[JSON]:
        found = self.entries(args, "status")
        if args.get("id"):
            found = [e for e in found if e["status"]["id"] == args["id"]]
        if args.get("user"):
            who = self.user(args).user_id
            found = [e for e in found if e["status"].get("recipient_user_id") == who]
        return found

    def clock(self, args: Args) -> JSON:
        return {"now": self.cloud.now(), "offset": self.world.clock.offset}

    def advance(self, args: Args) -> JSON:
        seconds = float(args.get("seconds", 0))
        self.cloud.advance(seconds)
        return self.clock(args)

    def settings(self, args: Args) -> JSON:
        """The knobs (SETTINGS): read, or change those given."""
        self.set_pacing(args)
        self.set_delivery_knobs(args)
        unknown = set(args) - set(SETTINGS)
        if unknown:
            raise ValueError(f"unknown settings {sorted(unknown)} (known: {', '.join(SETTINGS)})")
        knobs, pacing, hooks = self.hooks.knobs, self.cloud.pacing, self.hooks.config
        return {
            "limits": pacing.enabled,
            "pair_burst": pacing.config.pair_burst,
            "throughput": pacing.config.throughput,
            "approval_delay": self.cloud.approval_delay,
            "duplicates": knobs.duplicates,
            "batch": knobs.batch,
            "batch_max": knobs.batch_max,
            "reorder": knobs.reorder,
            "hold": knobs.hold,
            "retry_compression": hooks.retry_compression,
            "concurrency": hooks.webhook_concurrency,
        }

    def set_pacing(self, args: Args) -> None:
        pacing = self.cloud.pacing
        if "limits" in args:
            pacing.enabled = _flag(args["limits"])
        if "pair_burst" in args:
            pacing.config = pacing.config.replace(pair_burst=int(args["pair_burst"]))
        if "throughput" in args:
            pacing.config = pacing.config.replace(throughput=int(args["throughput"]))
        if "approval_delay" in args:
            self.cloud.approval_delay = float(args["approval_delay"])

    def set_delivery_knobs(self, args: Args) -> None:
        knobs, hooks = self.hooks.knobs, self.hooks
        for name in ("duplicates", "batch", "reorder"):
            if name in args:
                value = float(args[name])
                if not 0.0 <= value <= 1.0:
                    raise ValueError(f"'{name}' is a probability, 0 to 1")
                setattr(knobs, name, value)
        if "batch_max" in args:
            knobs.batch_max = max(1, int(args["batch_max"]))
        if "hold" in args:
            knobs.hold = float(args["hold"])
        if "seed" in args:
            hooks.reseed(int(args["seed"]))
        if "retry_compression" in args:
            retry = float(args["retry_compression"])
            hooks.config = hooks.config.replace(retry_compression=retry)
        if "concurrency" in args:
            concurrency = max(1, int(args["concurrency"]))
            hooks.config = hooks.config.replace(webhook_concurrency=concurrency)

    def templates(self, args: Args) -> list[JSON]:
        return [t.to_json() for t in self.cloud.templates()]

    def template_status(self, args: Args) -> JSON:
        name, language = str(args.get("name", "")), str(args.get("language", ""))
        found = next(
            (t for t in self.cloud.templates() if t.name == name and t.language == language), None
        )
        if found is None:
            raise LookupError(f"no template {name!r} in {language!r}")
        self.cloud.set_template_status(found, str(args.get("status", "")).upper())
        return found.to_json()

    async def set_webhook(self, args: Args) -> JSON:
        if not args.get("url"):
            raise ValueError("missing 'url'")
        fields = args.get("fields") or ["messages"]
        if isinstance(fields, str):
            fields = fields.split(",")
        return await self.hooks.subscribe(
            str(args["url"]), str(args.get("verify_token", "")), tuple(str(f) for f in fields)
        )

    def webhook(self, args: Args) -> JSON:
        return self.hooks.info()

    def delete_webhook(self, args: Args) -> JSON:
        self.hooks.unsubscribe()
        return self.hooks.info()

    def delivery(self, args: Args) -> JSON:
        if "paused" in args:
            self.hooks.pause(_flag(args["paused"]))
        return self.hooks.info()

    async def events(self, request: Request) -> Response:
        return event_stream(self.world.events)
