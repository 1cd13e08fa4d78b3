"""The test-facing client of the local WhatsApp: act as users, read what their chats
show and what the business was sent, move the clock, and wait for conditions. Talks to
the control API (`/_emulator/whatsapp/`) over HTTP, so it drives an emulator in this
process (`running_emulator().whatsapp`) or in another one (`WhatsAppDriver(url)`).

    wa = emu.whatsapp
    wa.set_webhook(service_url + "/whatsapp/webhook", verify_token="v")
    wa.send("Abuela", "hola")
    prompt = wa.wait_for_message("Abuela", contains="Tu turno")
    wa.tap("Abuela", prompt, "7 de oros")
    wa.choose("Abuela", prompt, "Sota de copas")
    wa.advance(25 * 3600)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx

from emulator.common import tls
from emulator.common.control_client import ControlClient

T = TypeVar("T")
DEFAULT_TIMEOUT = 5.0


class WhatsAppError(Exception):
    """The emulator refused an action (the description says why)."""


@dataclass(frozen=True)
class WaButton:
    id: str
    title: str


@dataclass(frozen=True)
class WaRow:
    id: str
    title: str
    description: str | None
    section: str | None


@dataclass(frozen=True)
class WaLink:
    """A call-to-action URL button: its label, and the address it opens."""

    display_text: str
    url: str


@dataclass(frozen=True)
class WaChatMessage:
    """A message of a user's chat with the business, as the control API shows it."""

    id: str  # the wamid
    user: str  # the user's name
    user_id: str  # their BSUID
    direction: str  # "out": the business wrote it; "in": the user did
    type: str  # text, interactive, template, document, reaction; in: text, interactive, button
    text: str  # the body (a template's filled in; a tap's title)
    header: str | None
    footer: str | None
    buttons: tuple[WaButton, ...]  # reply buttons, or a template's quick replies
    list_button: str | None
    rows: tuple[WaRow, ...]  # a list's rows, over all its sections
    status: str  # out: accepted, sent, delivered, read, failed; in: received, read
    visible: bool  # the user sees it (delivered or read, or their own)
    time: float  # the emulator's clock when it was sent
    seq: int  # its place in all chats
    rev: int  # bumped on each change (pass as `since`)
    context_id: str | None
    errors: tuple[dict[str, Any], ...]
    raw: dict[str, Any] = field(repr=False, compare=False)
    cta: WaLink | None = None  # a call-to-action URL message's button

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> WaChatMessage:
        listed = view.get("list") or {}
        rows = tuple(
            WaRow(r["id"], r["title"], r.get("description"), section.get("title"))
            for section in listed.get("sections", [])
            for r in section["rows"]
        )
        return cls(
            id=view["id"],
            user=view["user"],
            user_id=view["user_id"],
            direction=view["direction"],
            type=view["type"],
            text=view.get("text") or "",
            header=view.get("header"),
            footer=view.get("footer"),
            buttons=tuple(WaButton(b["id"], b["title"]) for b in view.get("buttons", [])),
            list_button=listed.get("button"),
            rows=rows,
            status=view["status"],
            visible=view["visible"],
            time=view["time"],
            seq=view["seq"],
            rev=view["rev"],
            context_id=view.get("context_id"),
            errors=tuple(view.get("errors", [])),
            raw=view,
            cta=WaLink(view["cta"]["display_text"], view["cta"]["url"])
            if view.get("cta")
            else None,
        )

    @property
    def button_titles(self) -> list[str]:
        return [b.title for b in self.buttons]

    @property
    def row_titles(self) -> list[str]:
        return [r.title for r in self.rows]

    @property
    def error_codes(self) -> list[int]:
        return [int(e["code"]) for e in self.errors]


MessageRef = WaChatMessage | str


def _wamid(message: MessageRef) -> str:
    return message.id if isinstance(message, WaChatMessage) else message


class WhatsAppDriver(ControlClient):
    error = WhatsAppError

    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self._http = httpx.Client(
            base_url=f"{self.url}/_emulator/whatsapp",
            timeout=30.0,
            trust_env=False,
            verify=tls.context(),
        )
        self._config: dict[str, Any] | None = None

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> WhatsAppDriver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----- plumbing ----------------------------------------------------------

    # ----- the business's side ------------------------------------------------

    def config(self) -> dict[str, Any]:
        """token, phone_number_id, display_phone_number, waba_id, app_secret."""
        if self._config is None:
            self._config = dict(self._get("/config"))
        return self._config

    @property
    def graph_url(self) -> str:
        """What BURRO_WHATSAPP_API_URL should be: requests go to <it>/v<ver>/<id>/..."""
        return self.url

    def set_webhook(
        self, url: str, verify_token: str, *, fields: tuple[str, ...] = ("messages",)
    ) -> dict[str, Any]:
        """Meta's verification GET to `url`, then deliveries go there (WhatsAppError if
        the answer is not 200 with exactly the challenge)."""
        result: dict[str, Any] = self._post(
            "/webhook", url=url, verify_token=verify_token, fields=list(fields)
        )
        return result

    def webhook(self) -> dict[str, Any]:
        result: dict[str, Any] = self._get("/webhook")
        return result

    def pause_delivery(self, paused: bool = True) -> None:
        """Hold webhook POSTs (events wait); resume_delivery() plans and sends them."""
        self._post("/delivery", paused=paused)

    def resume_delivery(self) -> None:
        self.pause_delivery(False)

    def templates(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._get("/templates")
        return result

    def set_template_status(self, name: str, language: str, status: str) -> dict[str, Any]:
        """Review a template: APPROVED, REJECTED, PAUSED, DISABLED."""
        result: dict[str, Any] = self._post(
            "/template_status", name=name, language=language, status=status
        )
        return result

    def settings(self, **knobs: float | int | bool) -> dict[str, Any]:
        """Read the knobs, after changing those given: limits, pair_burst, throughput,
        approval_delay, duplicates, batch, batch_max, reorder, hold, seed,
        retry_compression, concurrency."""
        result: dict[str, Any] = self._post("/settings", **knobs)
        return result

    def set_limits(self, enabled: bool) -> None:
        self.settings(limits=enabled)

    # ----- the clock ---------------------------------------------------------

    def now(self) -> float:
        return float(self._get("/clock")["now"])

    def advance(self, seconds: float) -> float:
        """Move the emulator's clock on (windows close, TTLs run out, templates are
        approved); the new time."""
        return float(self._post("/advance", seconds=seconds)["now"])

    # ----- users -------------------------------------------------------------

    def users(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._get("/users")
        return result

    def user(self, name: str) -> dict[str, Any]:
        for found in self.users():
            if name in (found["name"], found["user_id"], found["wa_id"], found["username"]):
                return found
        raise WhatsAppError(f"no WhatsApp user {name!r}")

    def add_user(
        self,
        name: str,
        *,
        country: str,
        language: str = "en",
        phone: str | None = None,
        username: str | None = None,
    ) -> dict[str, Any]:
        result: dict[str, Any] = self._post(
            "/users", name=name, country=country, language=language, phone=phone, username=username
        )
        return result

    def set_online(self, user: str, online: bool = True) -> None:
        """Offline: messages wait (status `sent`) until online again, or their TTL ends."""
        self._post("/online", user=user, online=online)

    def send(self, user: str, text: str, *, reply_to: MessageRef | None = None) -> WaChatMessage:
        """The user writes to the business (quoting `reply_to`, if given)."""
        quoted = _wamid(reply_to) if reply_to is not None else None
        return WaChatMessage.from_view(self._post("/send", user=user, text=text, reply_to=quoted))

    def tap(self, user: str, message: MessageRef, title: str) -> WaChatMessage:
        """Tap a reply button (or a template's quick reply) of a message, by title or id;
        the user's reply as sent."""
        view = self._post("/tap", user=user, message_id=_wamid(message), title=title)
        return WaChatMessage.from_view(view)

    def tap_quick_reply(self, user: str, message: MessageRef, text: str) -> WaChatMessage:
        return self.tap(user, message, text)

    def choose(self, user: str, message: MessageRef, title: str) -> WaChatMessage:
        """Open a list message and pick a row, by title or id."""
        view = self._post("/choose", user=user, message_id=_wamid(message), title=title)
        return WaChatMessage.from_view(view)

    def open_chat(self, user: str) -> int:
        """The user looks at their chat: delivered messages become read; how many."""
        return int(self._post("/open", user=user)["read"])

    # ----- reading -----------------------------------------------------------

    def messages(self, user: str, *, since: int = 0) -> list[WaChatMessage]:
        """The user's chat, both ways, oldest first (those changed after `since` rev)."""
        result = self._get("/messages", user=user, since=since)
        return [WaChatMessage.from_view(v) for v in result["messages"]]

    def message(self, wamid: str) -> WaChatMessage:
        return WaChatMessage.from_view(self._get("/message", id=wamid))

    def chats(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._get("/chats")
        return result

    def calls(self, *, since: int = 0) -> list[dict[str, Any]]:
        """Graph calls, oldest first: {"method", "path", "body", "status", "answer"}."""
        result: list[dict[str, Any]] = self._get("/calls", since=since)
        return result

    def deliveries(self, *, since: int = 0) -> list[dict[str, Any]]:
        """Webhook POSTs, oldest first: {"post", "events", "attempt", "status", "error",
        "answer", "duplicate_of", "body", "raw", "signature"}."""
        result: list[dict[str, Any]] = self._get("/deliveries", since=since)
        return result

    def statuses(
        self, *, user: str | None = None, wamid: str | None = None, since: int = 0
    ) -> list[dict[str, Any]]:
        """Status webhooks made, oldest first (the status objects)."""
        found = self._get("/statuses", user=user, id=wamid, since=since)
        return [e["status"] for e in found]

    def warnings(self) -> list[dict[str, Any]]:
        """What the business sent that Meta accepts and WhatsApp shows literally (an
        HTML tag, Telegram's Markdown, marks in a button title): {"message_id", "field",
        "problem"}, oldest first. A service's tests should expect none."""
        result: list[dict[str, Any]] = self._get("/warnings")
        return result

    def log(self, kind: str | None = None, *, since: int = 0) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._get("/log", kind=kind, since=since)
        return result

    def last_seq(self) -> int:
        """The log's position now, to pass as `since` later."""
        entries = self._get("/log", limit=1)
        return int(entries[-1]["seq"]) if entries else 0

    # ----- waiting -----------------------------------------------------------

    def wait_for_message(
        self,
        user: str,
        contains: str | None = None,
        *,
        match: Callable[[WaChatMessage], bool] | None = None,
        after: WaChatMessage | int | None = None,
        timeout: float | None = None,
    ) -> WaChatMessage:
        """Wait until the user's chat shows a message from the business containing
        `contains` (and matching `match`), newer than `after` (a message or a seq)."""
        floor = after.seq if isinstance(after, WaChatMessage) else (after or 0)

        def check() -> WaChatMessage | None:
            for found in self.messages(user):
                if found.direction != "out" or not found.visible or found.seq <= floor:
                    continue
                if contains is not None and contains not in found.text:
                    continue
                if match is None or match(found):
                    return found
            return None

        return self.wait_for(check, timeout=timeout, what=f"a message {contains!r} to {user}")

    def wait_for_status(
        self, wamid: MessageRef, status: str, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Wait for a status webhook (sent, delivered, read, failed) of a message."""
        wanted = _wamid(wamid)

        def check() -> dict[str, Any] | None:
            return next((s for s in self.statuses(wamid=wanted) if s["status"] == status), None)

        return self.wait_for(check, timeout=timeout, what=f"status {status} of {wanted}")

    def wait_for_delivery(
        self,
        match: Callable[[dict[str, Any]], bool] | None = None,
        *,
        since: int = 0,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Wait for a webhook POST answered 2xx (and matching `match`)."""

        def check() -> dict[str, Any] | None:
            for found in self.deliveries(since=since):
                if found["error"] is None and (match is None or match(found)):
                    return found
            return None

        return self.wait_for(check, timeout=timeout, what="a webhook delivery")

    def wait_idle(self, *, timeout: float | None = None) -> None:
        """Wait until no webhook event or POST is waiting or in flight."""

        def check() -> bool:
            info = self.webhook()
            return not (info["waiting_events"] or info["waiting_posts"] or info["in_flight"])

        self.wait_for(check, timeout=timeout, what="webhook delivery to finish")
