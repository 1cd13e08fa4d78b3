"""WhatsApp's webhook: GET and POST /whatsapp/webhook.

GET is Meta's verification handshake (`hub.mode=subscribe`, `hub.verify_token`,
`hub.challenge`): the bare challenge back with 200 when the token is ours, else 403
(cloud-api/guides/set-up-webhooks). Every POST is signed: `X-Hub-Signature-256:
sha256=<hex>`, the HMAC-SHA256 of the raw body with the app secret, checked in constant
time before the body is parsed; a bad or missing one is 403 and nothing is applied.

Meta delivers at least once, retries for up to 7 days, batches (many `entry[].changes[]`
and several messages per POST) and does not keep order. So each message is claimed by
its wamid (kept 7 days, committed with the change it makes), a batch is handled in the
order people sent its messages (`timestamp`), and a typed message older than one of the
same person's already handled is left alone (`inbound.Handler.late`). We answer 200 once
every message of the POST is handled (or was before); 503 while Redis is unreachable,
and Meta sends the POST again (what was done is then a duplicate).

Meta posts the changes of every number of the app's Business Account to one callback
URL: a change whose `metadata.phone_number_id` is not ours (`BURRO_WHATSAPP_PHONE_ID`)
is left alone and counted (`burro_updates{kind="whatsapp_change",outcome="other_number"}`).
A sender may be named by BSUID, by phone or by both: both are linked to one player
before their message is handled (`people.player_of`). A person's message opens their
24-hour window again: every turn of theirs that could not be sent while it was closed
is sent again then (`window.take_unseen`), at every table they sit at.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
from dataclasses import dataclass
from functools import partial
from typing import Any

import redis
from redis.exceptions import RedisClusterException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from service.desk import prompts
from service.desk.ports import Links
from service.infra import metrics
from service.infra.outage import UNAVAILABLE
from service.infra.store import Conflict
from service.platforms.base import BodyTooLarge, Webhook, read_body
from service.platforms.whatsapp import graph, people, templates, window
from service.platforms.whatsapp.delivery import graph_of
from service.platforms.whatsapp.inbound import Handler, target_of
from service.platforms.whatsapp.message import Inbound, Kind
from service.services import Services
from service.settings import Settings
from service.table import play
from service.table.outcome import Outcome
from service.table.room import Room

log = logging.getLogger("burro.whatsapp")
PATH = "/whatsapp/webhook"
SIGNATURE = "x-hub-signature-256"


@dataclass(frozen=True)
class Status:
    """What Meta says became of a message we sent."""

    wamid: str
    bsuid: str | None  # the recipient's `recipient_user_id`, if Meta gave it
    status: str  # sent, delivered, read, failed
    codes: tuple[int, ...] = ()
    at: float | None = None  # when Meta says it became so (its `timestamp`)
    phone: str | None = None  # the recipient's `recipient_id`: their phone number


@dataclass(frozen=True)
class Notification:
    """What a POST brings us: messages and statuses for our number, and how many changes
    were for another number of the Business Account (left out)."""

    messages: list[Inbound]
    statuses: list[Status]
    foreign: int = 0


def signed(body: bytes, header: str, secret: str) -> bool:
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(header.encode(), expected.encode())


def webhook(settings: Settings, svc: Services, client: redis.Redis, links: Links) -> Webhook:
    """The WhatsApp routes of `serve` (only when BURRO_WHATSAPP_* are set)."""
    assert settings.whatsapp_app_secret is not None and settings.whatsapp_verify_token
    assert settings.whatsapp_phone_id is not None
    secret = settings.whatsapp_app_secret.get_secret_value()
    ours = settings.whatsapp_phone_id
    verify_token = settings.whatsapp_verify_token.get_secret_value()
    handler = Handler(svc, client, graph_of(settings), links)

    async def verify(request: Request) -> Response:
        query = request.query_params
        given = query.get("hub.verify_token", "")
        if query.get("hub.mode") == "subscribe" and hmac.compare_digest(
            given.encode(), verify_token.encode()
        ):
            return PlainTextResponse(query.get("hub.challenge", ""))
        return PlainTextResponse("forbidden", status_code=403)

    async def receive(request: Request) -> Response:
        try:
            body = await read_body(request, settings.max_body_bytes)
        except BodyTooLarge:
            metrics.UPDATES.labels("invalid", "too_large").inc()
            return PlainTextResponse("body too large", status_code=413)
        if not signed(body, request.headers.get(SIGNATURE, ""), secret):
            metrics.UPDATES.labels("invalid", "forbidden").inc()
            return PlainTextResponse("forbidden", status_code=403)
        parsed = parse(body, ours)
        if parsed is None:
            metrics.UPDATES.labels("invalid", "bad_request").inc()
            return PlainTextResponse("not a WhatsApp notification", status_code=400)
        if parsed.foreign:
            metrics.UPDATES.labels("whatsapp_change", "other_number").inc(parsed.foreign)
        for message in sorted(parsed.messages, key=lambda m: m.at):
            try:
                outcome = await handler.handle(message)  # claimed by the desk, by its wamid
            except UNAVAILABLE as error:  # before or after the desk's claim
                log.warning("whatsapp message %s not handled: %r", message.wamid, error)
                outcome = "retry"
            metrics.UPDATES.labels(f"whatsapp_{message.kind}", outcome).inc()
            if outcome == "retry":
                return PlainTextResponse("storage unavailable", status_code=503)
            if outcome == "ok":
                try:
                    await asyncio.to_thread(resend_unseen, message)
                except (
                    redis.RedisError,
                    RedisClusterException,
                    Conflict,
                ) as error:  # noted again when sent
                    log.warning("whatsapp %s: turns not sent again: %r", message.wamid, error)
        for status in parsed.statuses:
            try:
                await asyncio.to_thread(on_status, status)
            except (
                redis.RedisError,
                RedisClusterException,
                Conflict,
            ) as error:  # Meta posts it again
                log.warning("whatsapp status %s not applied: %r", status.wamid, error)
                return PlainTextResponse("storage unavailable", status_code=503)
        return PlainTextResponse("ok")

    def on_status(status: Status) -> None:
        """A message refused for the closed window: the turn template goes instead,
        naming the message's table (not when the person wrote since the failure: their
        window is open again and what they asked for is on its way)."""
        if status.status != "failed" or graph.REENGAGEMENT not in status.codes:
            return
        player = people.find(client, status.bsuid, status.phone)
        if player is None:  # nobody we know: nothing of theirs to send again
            return
        if not window.close(client, player, svc.now() if status.at is None else status.at):
            return
        room_id = window.room_sent(client, status.wamid)
        room = prompts.active_room(svc, player) if room_id is None else svc.store.load(room_id)
        if room is not None and room.status == "playing":
            svc.store.update(room.id, partial(prompt_again, player=player, waiting=False))

    def resend_unseen(message: Inbound) -> None:
        """The person wrote: their window is open again, and every turn of theirs whose
        message could not go while it was closed is sent again, but the one their Play
        now opens (the desk shows it) and none after they asked for no reminders."""
        player = people.find(client, message.bsuid, message.phone)
        if player is None or (message.kind == "quick" and message.data == templates.STOP):
            return
        opened = templates.played_room(message.data) if message.kind == "quick" else None
        for room_id in window.take_unseen(client, player):
            if room_id != opened:
                svc.store.update(room_id, partial(prompt_again, player=player))

    routes = [Route(PATH, verify, methods=["GET"]), Route(PATH, receive, methods=["POST"])]
    return Webhook(routes, noop, noop)


async def noop() -> None:
    return None


def prompt_again(room: Room, player: int, waiting: bool = True) -> Outcome:
    """The person's screen of the room posted anew; `waiting`: only while the room waits
    on them (a turn left unseen, not a game gone on without them)."""
    seat = room.seat_of(player)
    if room.status != "playing" or seat is None:
        return Outcome()
    if waiting and seat not in play.waiting_humans(room):
        return Outcome()
    return Outcome(changed=True, sync={target_of(room, player) + ":new"})


# ----- Meta's notification, read defensively ---------------------------------------------


def parse(body: bytes, ours: str) -> Notification | None:
    """The messages and statuses of a notification for our number (`ours`, its phone
    number id); None if it is not one. A piece that is malformed is left out (and
    logged): Meta would only send it again."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("entry"), list):
        return None
    messages: list[Inbound] = []
    statuses: list[Status] = []
    values = values_of(data)
    mine = [v for v in values if number_of(v) == ours]
    if len(mine) < len(values):
        others = sorted({number_of(v) for v in values} - {ours})
        log.info("whatsapp: changes for another number left out: %.200s", others)
    for value in mine:
        contacts = contacts_of(value)
        for raw in listed(value, "messages"):
            found = inbound_of(raw, contacts)
            if found is None:
                log.warning("whatsapp: a message left out: %.200s", json.dumps(raw))
            else:
                messages.append(found)
        statuses += [s for s in (status_of(raw) for raw in listed(value, "statuses")) if s]
    return Notification(messages, statuses, len(values) - len(mine))


def values_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for entry in data["entry"]:
        for change in entry.get("changes", []) if isinstance(entry, dict) else []:
            ok = isinstance(change, dict) and change.get("field", "messages") == "messages"
            if ok and isinstance(change.get("value"), dict):
                found.append(change["value"])
    return found


def number_of(value: dict[str, Any]) -> str:
    """The phone number id a change is for (its `metadata`); "" if it names none."""
    metadata = value.get("metadata")
    found = metadata.get("phone_number_id") if isinstance(metadata, dict) else None
    return found if isinstance(found, str) else ""


def listed(value: dict[str, Any], key: str) -> list[dict[str, Any]]:
    items = value.get(key)
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


@dataclass(frozen=True)
class Contact:
    bsuid: str | None
    phone: str | None
    name: str


def contacts_of(value: dict[str, Any]) -> list[Contact]:
    found = []
    for raw in listed(value, "contacts"):
        profile = raw.get("profile") if isinstance(raw.get("profile"), dict) else None
        name = str((profile or {}).get("name") or "")
        bsuid, phone = raw.get("user_id"), raw.get("wa_id")
        found.append(
            Contact(
                bsuid if isinstance(bsuid, str) else None,
                phone if isinstance(phone, str) else None,
                name,
            )
        )
    return found


def sender_of(raw: dict[str, Any], contacts: list[Contact]) -> Contact | None:
    """Who sent a message: its `from_user_id` (the BSUID), else the contact with its
    `from` phone, else the notification's only contact; a sender known by phone alone
    is keyed by it."""
    bsuid = raw.get("from_user_id") if isinstance(raw.get("from_user_id"), str) else None
    phone = raw.get("from") if isinstance(raw.get("from"), str) else None
    match = [c for c in contacts if (bsuid and c.bsuid == bsuid) or (phone and c.phone == phone)]
    if not match and len(contacts) == 1 and not bsuid and not phone:
        match = contacts
    contact = match[0] if match else Contact(bsuid, phone, "")
    key = bsuid or contact.bsuid or phone or contact.phone
    return None if key is None else Contact(key, phone or contact.phone, contact.name)


def inbound_of(raw: dict[str, Any], contacts: list[Contact]) -> Inbound | None:
    wamid, stamp = raw.get("id"), raw.get("timestamp")
    sender = sender_of(raw, contacts)
    if not (isinstance(wamid, str) and sender and sender.bsuid and str(stamp).isdigit()):
        return None
    context = raw.get("context") if isinstance(raw.get("context"), dict) else None
    tapped = (context or {}).get("id")
    kind, said, data = content_of(raw)
    return Inbound(
        wamid=wamid,
        bsuid=sender.bsuid,
        name=sender.name,
        at=float(str(stamp)),
        kind=kind,
        text=said,
        data=data,
        phone=sender.phone,
        context=tapped if isinstance(tapped, str) else None,
    )


def content_of(raw: dict[str, Any]) -> tuple[Kind, str, str]:
    """(kind, text, data) of a message: typed text, a tapped reply button or list row,
    a template's quick reply; anything else (a photo, a sticker) is "other"."""
    kind = raw.get("type")
    part = raw.get(str(kind)) if isinstance(raw.get(str(kind)), dict) else {}
    part = part or {}
    if kind == "text":
        return "text", str(part.get("body") or ""), ""
    if kind == "interactive":
        reply = part.get("button_reply") or part.get("list_reply")
        if isinstance(reply, dict) and isinstance(reply.get("id"), str):
            return "reply", str(reply.get("title") or ""), reply["id"]
    if kind == "button" and isinstance(part.get("payload"), str):
        return "quick", str(part.get("text") or ""), part["payload"]
    return "other", "", ""


def status_of(raw: dict[str, Any]) -> Status | None:
    wamid, state = raw.get("id"), raw.get("status")
    bsuid, phone = raw.get("recipient_user_id"), raw.get("recipient_id")
    bsuid = bsuid if isinstance(bsuid, str) and bsuid else None
    phone = phone if isinstance(phone, str) and phone else None
    if not (isinstance(wamid, str) and isinstance(state, str) and (bsuid or phone)):
        return None
    errors = raw.get("errors") if isinstance(raw.get("errors"), list) else []
    codes = tuple(
        e["code"] for e in errors or [] if isinstance(e, dict) and isinstance(e.get("code"), int)
    )
    stamp = str(raw.get("timestamp"))
    at = float(stamp) if stamp.isdigit() else None
    return Status(wamid, bsuid, state, codes, at, phone)
