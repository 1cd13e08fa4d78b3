"""Fixtures for the local WhatsApp's tests: an emulator (its WhatsApp driver), a Graph
client as the business calls it, and a tiny signed-webhook receiver playing the service:
it answers Meta's handshake, checks every POST's signature with hmac, records it, and
answers with scripted statuses (then 200)."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from emulator import RunningEmulator, ServerThread
from emulator.common import tls
from emulator.whatsapp import WhatsAppDriver

SECRET = "local-app-secret"
VERIFY = "verify-me"
PHONE_ID = "100000000000001"
WABA_ID = "200000000000001"
ABUELA = "34600000001"
ABUELA_ID = "ES.1502576394655801"
VOVO_ID = "BR.1502576394655803"  # no phone: a username-only user

JSON = dict[str, Any]


class Service:
    """The business's webhook endpoint at `/whatsapp/webhook`."""

    def __init__(self, secret: str = SECRET, verify_token: str = VERIFY) -> None:
        self.secret = secret
        self.verify_token = verify_token
        self.posts: list[tuple[bytes, dict[str, str]]] = []
        self.answers: list[int] = []  # statuses to answer first, then 200
        self.bad_signatures = 0
        # What the handshake echoes for a challenge (a test makes it wrong).
        self.echo: Callable[[str], str] = lambda challenge: challenge

        async def hook(request: Request) -> Response:
            if request.method == "GET":
                query = request.query_params
                if (
                    query.get("hub.mode") != "subscribe"
                    or query.get("hub.verify_token") != self.verify_token
                ):
                    return Response(status_code=403)
                return PlainTextResponse(self.echo(query["hub.challenge"]))
            raw = await request.body()
            headers = dict(request.headers)
            expected = "sha256=" + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
            if not hmac.compare_digest(expected, headers.get("x-hub-signature-256", "")):
                self.bad_signatures += 1
                return Response(status_code=401)
            self.posts.append((raw, headers))
            return Response(status_code=self.answers.pop(0) if self.answers else 200)

        self.app = Starlette(routes=[Route("/whatsapp/webhook", hook, methods=["GET", "POST"])])

    @property
    def bodies(self) -> list[JSON]:
        return [json.loads(raw) for raw, _ in self.posts]

    def values(self) -> list[JSON]:
        """Every change value received, in order."""
        return [
            change["value"]
            for body in self.bodies
            for entry in body["entry"]
            for change in entry["changes"]
        ]

    def messages(self) -> list[JSON]:
        return [m for v in self.values() for m in v.get("messages", [])]

    def statuses(self) -> list[JSON]:
        return [s for v in self.values() for s in v.get("statuses", [])]

    def contacts(self) -> list[JSON]:
        return [c for v in self.values() for c in v.get("contacts", [])]


@pytest.fixture
def service() -> Iterator[tuple[Service, str]]:
    hook = Service()
    with ServerThread(hook.app) as server:
        yield hook, f"{server.url}/whatsapp/webhook"


@pytest.fixture
def wa(emu: RunningEmulator) -> WhatsAppDriver:
    return emu.whatsapp


@pytest.fixture
def hooked(wa: WhatsAppDriver, service: tuple[Service, str]) -> Service:
    hook, url = service
    wa.set_webhook(url, VERIFY)
    return hook


class Graph:
    """The Graph API as the business calls it (Bearer token, JSON)."""

    def __init__(self, url: str, token: str = "local-whatsapp-token") -> None:
        self.http = httpx.Client(
            base_url=f"{url}/v21.0/",
            headers={"Authorization": f"Bearer {token}"},
            trust_env=False,
            timeout=10,
            verify=tls.context(),
        )

    def post(self, path: str, body: JSON) -> tuple[int, JSON]:
        response = self.http.post(path, json=body)
        answer: JSON = response.json()
        return response.status_code, answer

    def send(self, message: JSON, to: str = ABUELA) -> tuple[int, JSON]:
        recipient = {"recipient": to} if "." in to else {"to": to}
        return self.post(
            f"{PHONE_ID}/messages", {"messaging_product": "whatsapp", **recipient, **message}
        )

    def ok(self, message: JSON, to: str = ABUELA) -> str:
        """Send; the wamid (the call must be accepted)."""
        status, answer = self.send(message, to)
        assert status == 200, answer
        wamid: str = answer["messages"][0]["id"]
        return wamid

    def refused(self, message: JSON, to: str = ABUELA) -> tuple[int, JSON]:
        status, answer = self.send(message, to)
        assert status != 200, answer
        return status, answer["error"]

    def close(self) -> None:
        self.http.close()


@pytest.fixture
def graph(emu: RunningEmulator) -> Iterator[Graph]:
    client = Graph(emu.url)
    yield client
    client.close()


def text(body: str) -> JSON:
    return {"type": "text", "text": {"body": body}}


def buttons(body: str, *titles: str) -> JSON:
    return {
        "type": "interactive",
        "interactive": {
            "type": "button",
            "body": {"text": body},
            "action": {
                "buttons": [
                    {"type": "reply", "reply": {"id": f"b{i}", "title": title}}
                    for i, title in enumerate(titles)
                ]
            },
        },
    }


def listing(body: str, *rows: str, button: str = "Cartas") -> JSON:
    return {
        "type": "interactive",
        "interactive": {
            "type": "list",
            "body": {"text": body},
            "action": {
                "button": button,
                "sections": [
                    {"rows": [{"id": f"r{i}", "title": row} for i, row in enumerate(rows)]}
                ],
            },
        },
    }
