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

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from emulator.common.control import request_args
from emulator.common.events import event_stream
from emulator.whatsapp.cloud import ActionError, WhatsAppCloud
from emulator.whatsapp.webhook import WebhookRefused
from emulator.whatsapp.world import WaMessage, WaUser

Args = dict[str, Any]
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


def _fail(description: str, code: int = 400) -> JSONResponse:
    return JSONResponse(
        {"ok": False, "error_code": code, "description": description}, status_code=code
    )


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes", "on")
    return bool(value)


def endpoint(
    cloud: WhatsAppCloud, fn: Callable[[Args], Any]
) -> Callable[[Request], Awaitable[Response]]:
    async def handler(request: Request) -> Response:
        cloud.start()
        try:
            args = await request_args(request)
        except ValueError as error:
            return _fail(str(error))
        try:
            result = fn(args)
            if inspect.isawaitable(result):
                result = await result
        except (LookupError, ActionError, ValueError, TypeError, WebhookRefused) as error:
            text = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
            return _fail(str(text))
        return JSONResponse({"ok": True, "result": result})

    return handler


def control_routes(cloud: WhatsAppCloud) -> list[Route]:
    world = cloud.world
    config = cloud.config
    hooks = cloud.webhooks

    def user(args: Args) -> WaUser:
        if not args.get("user"):
            raise ValueError("missing 'user'")
        return world.find_user(str(args["user"]))

    def message_id(args: Args) -> str:
        if not args.get("message_id"):
            raise ValueError("missing 'message_id' (a wamid)")
        return str(args["message_id"])

    def view(message: WaMessage) -> JSON:
        return world.message_view(message)

    def get_config(args: Args) -> JSON:
        return {
            "token": config.token,
            "phone_number_id": config.phone_number_id,
            "display_phone_number": config.display_phone_number,
            "waba_id": config.waba_id,
            "app_secret": config.app_secret,
            "graph_version": "v21.0",
        }

    def users(args: Args) -> list[JSON]:
        now = cloud.now()
        return [u.to_json(now) for u in world.users.values()]

    def add_user(args: Args) -> JSON:
        if not args.get("name"):
            raise ValueError("missing 'name'")
        added = cloud.add_user(
            str(args.get("name") or ""),
            str(args.get("country") or ""),
            str(args.get("language") or "en"),
            str(args["phone"]) if args.get("phone") else None,
            str(args["username"]) if args.get("username") else None,
        )
        return added.to_json(cloud.now())

    def online(args: Args) -> JSON:
        found = user(args)
        cloud.set_online(found, _flag(args.get("online", True)))
        return found.to_json(cloud.now())

    def send(args: Args) -> JSON:
        reply_to = str(args["reply_to"]) if args.get("reply_to") else None
        return view(cloud.send_text(user(args), str(args.get("text", "")), reply_to))

    def tap(args: Args) -> JSON:
        return view(cloud.tap(user(args), message_id(args), str(args.get("title", ""))))

    def choose(args: Args) -> JSON:
        return view(cloud.choose(user(args), message_id(args), str(args.get("title", ""))))

    def open_chat(args: Args) -> JSON:
        return {"read": cloud.open_chat(user(args))}

    def chats(args: Args) -> list[JSON]:
        out: list[JSON] = []
        for found in world.users.values():
            shown = [m for m in world.chats[found.user_id].messages if m.visible]
            unread = sum(1 for m in shown if m.direction == "out" and m.status == "delivered")
            out.append(
                {
                    "user": found.to_json(cloud.now()),
                    "last": view(shown[-1]) if shown else None,
                    "unread": unread,
                }
            )
        return out

    def messages(args: Args) -> JSON:
        found = user(args)
        since = int(args.get("since", 0))
        chat = world.chats[found.user_id].messages
        return {
            "messages": [view(m) for m in chat if m.rev > since],
            "rev": max((m.rev for m in chat), default=since),
        }

    def one_message(args: Args) -> JSON:
        wamid = str(args.get("id", ""))
        found = world.messages.get(wamid) or world.undeliverable.get(wamid)
        if found is None:
            raise LookupError(f"no message {wamid!r}")
        return view(found)

    def entries(args: Args, kind: str | None) -> list[JSON]:
        since = int(args.get("since", 0))
        wanted = kind or (str(args["kind"]) if args.get("kind") else None)
        found = list(world.entries(since, wanted))
        limit = int(args.get("limit", 0))
        return found[-limit:] if limit > 0 else found

    def statuses(args: Args) -> list[JSON]:
        found = entries(args, "status")
        if args.get("id"):
            found = [e for e in found if e["status"]["id"] == args["id"]]
        if args.get("user"):
            who = user(args).user_id
            found = [e for e in found if e["status"].get("recipient_user_id") == who]
        return found

    def clock(args: Args) -> JSON:
        return {"now": cloud.now(), "offset": world.clock.offset}

    def advance(args: Args) -> JSON:
        seconds = float(args.get("seconds", 0))
        cloud.advance(seconds)
        return clock(args)

    def settings(args: Args) -> JSON:
        knobs = hooks.knobs
        if "limits" in args:
            cloud.pacing.enabled = _flag(args["limits"])
        if "pair_burst" in args:
            cloud.pacing.config = cloud.pacing.config.replace(pair_burst=int(args["pair_burst"]))
        if "throughput" in args:
            cloud.pacing.config = cloud.pacing.config.replace(throughput=int(args["throughput"]))
        if "approval_delay" in args:
            cloud.approval_delay = float(args["approval_delay"])
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
            hooks.config = hooks.config.replace(retry_compression=float(args["retry_compression"]))
        if "concurrency" in args:
            hooks.config = hooks.config.replace(
                webhook_concurrency=max(1, int(args["concurrency"]))
            )
        unknown = set(args) - set(SETTINGS)
        if unknown:
            raise ValueError(f"unknown settings {sorted(unknown)} (known: {', '.join(SETTINGS)})")
        return {
            "limits": cloud.pacing.enabled,
            "pair_burst": cloud.pacing.config.pair_burst,
            "throughput": cloud.pacing.config.throughput,
            "approval_delay": cloud.approval_delay,
            "duplicates": knobs.duplicates,
            "batch": knobs.batch,
            "batch_max": knobs.batch_max,
            "reorder": knobs.reorder,
            "hold": knobs.hold,
            "retry_compression": hooks.config.retry_compression,
            "concurrency": hooks.config.webhook_concurrency,
        }

    def templates(args: Args) -> list[JSON]:
        return [t.to_json() for t in cloud.templates()]

    def template_status(args: Args) -> JSON:
        name, language = str(args.get("name", "")), str(args.get("language", ""))
        found = next(
            (t for t in cloud.templates() if t.name == name and t.language == language), None
        )
        if found is None:
            raise LookupError(f"no template {name!r} in {language!r}")
        cloud.set_template_status(found, str(args.get("status", "")).upper())
        return found.to_json()

    async def set_webhook(args: Args) -> JSON:
        if not args.get("url"):
            raise ValueError("missing 'url'")
        fields = args.get("fields") or ["messages"]
        if isinstance(fields, str):
            fields = fields.split(",")
        return await hooks.subscribe(
            str(args["url"]), str(args.get("verify_token", "")), tuple(str(f) for f in fields)
        )

    def webhook(args: Args) -> JSON:
        return hooks.info()

    def delete_webhook(args: Args) -> JSON:
        hooks.unsubscribe()
        return hooks.info()

    def delivery(args: Args) -> JSON:
        if "paused" in args:
            hooks.pause(_flag(args["paused"]))
        return hooks.info()

    async def events(request: Request) -> Response:
        return event_stream(world.events)

    def route(path: str, fn: Callable[[Args], Any], methods: list[str]) -> Route:
        return Route(path, endpoint(cloud, fn), methods=methods)

    get, post = ["GET"], ["POST"]
    return [
        route("/config", get_config, get),
        route("/users", users, get),
        route("/users", add_user, post),
        route("/online", online, post),
        route("/send", send, post),
        route("/tap", tap, post),
        route("/choose", choose, post),
        route("/open", open_chat, post),
        route("/chats", chats, get),
        route("/messages", messages, get),
        route("/message", one_message, get),
        route("/calls", lambda a: entries(a, "call"), get),
        route("/deliveries", lambda a: entries(a, "delivery"), get),
        route("/statuses", statuses, get),
        route("/log", lambda a: entries(a, None), get),
        route("/warnings", lambda a: cloud.warnings, get),
        route("/clock", clock, get),
        route("/advance", advance, post),
        route("/settings", settings, [*get, *post]),
        route("/templates", templates, get),
        route("/template_status", template_status, post),
        route("/webhook", webhook, get),
        route("/webhook", set_webhook, post),
        route("/webhook", delete_webhook, ["DELETE"]),
        route("/delivery", delivery, post),
        Route("/events", events, methods=get),
    ]
