"""The Graph API as Burro uses it: send a message, mark one read, manage templates.

A thin client of our own rather than pywa's: pywa's `GraphAPI` fixes its base URL to
graph.facebook.com whatever session it is given (pywa/api.py), and our deployments and
tests point `BURRO_WHATSAPP_API_URL` elsewhere (the local WhatsApp); the calls we make
are three. A person is addressed by BSUID (`recipient`) or by phone (`to`): `Address`.
Requests go to `<base>/<version>/<phone id>/messages` with the token as a
Bearer header (developers.facebook.com/docs/whatsapp/cloud-api/reference/messages).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from service.infra import tls

# Meta's error codes that change what we do (cloud-api/support/error-codes).
REENGAGEMENT = 131047  # more than 24 h since the person's last message: a template only
PAIR_RATE = 131056  # too many messages to one person in a short time
THROUGHPUT = 130429  # the number's messages per second
SPAM_RATE = 131048  # too many messages to people who did not write back
UNDELIVERABLE = 131026  # the person cannot get it (no WhatsApp, old app, blocked us)
NOT_ALLOWED = 131030  # a test number's recipient not in its allowed list
TO_SENDER = 131021  # the recipient is the business number itself
UNREACHABLE = {UNDELIVERABLE, NOT_ALLOWED, TO_SENDER}  # no such person to us: not a bug
RETRY_LATER = {PAIR_RATE: 6.0, THROUGHPUT: 1.0, SPAM_RATE: 60.0, 131000: 5.0, 4: 60.0, 80007: 60.0}


# A business-scoped user id: a country, a dot, maybe ENT (a parent BSUID), letters and digits.
BSUID = re.compile(r"^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$")


@dataclass(frozen=True)
class Address:
    """Where a message to a person goes: `recipient` takes a BSUID only, `to` a phone
    number (a person Meta names by phone alone, as every webhook did before BSUIDs and
    still does for people in Meta's contact book)."""

    value: str
    kind: Literal["bsuid", "phone"]

    @classmethod
    def of(cls, name: str) -> Address:
        """A BSUID or a phone number (the two never look alike)."""
        return cls(name, "bsuid" if BSUID.match(name) else "phone")

    def fields(self) -> dict[str, str]:
        return {"recipient": self.value} if self.kind == "bsuid" else {"to": self.value}


@dataclass(frozen=True)
class GraphError(Exception):
    """A call Meta refused (or could not be made: `status` 0)."""

    status: int
    code: int
    message: str
    details: str = ""

    def __str__(self) -> str:
        return f"({self.code}) {self.message}" + (f": {self.details}" if self.details else "")


def error_of(response: httpx.Response) -> GraphError:
    """Meta's `{"error": {...}}` as a GraphError, whatever the body holds."""
    try:
        found = response.json().get("error") or {}
    except ValueError:
        found = {}
    if not isinstance(found, dict):
        found = {}
    data = found.get("error_data") if isinstance(found.get("error_data"), dict) else {}
    code = found.get("code")
    return GraphError(
        response.status_code,
        code if isinstance(code, int) else response.status_code,
        str(found.get("message") or response.text[:200]),
        str((data or {}).get("details") or ""),
    )


class Graph:
    def __init__(
        self,
        base_url: str,
        version: str,
        phone_id: str,
        token: str,
        http: httpx.Client | None = None,
    ) -> None:
        self.base = f"{base_url.rstrip('/')}/{version}"
        self.phone_id = phone_id
        # trust_env=False: requests go where they are told, never through a proxy.
        self.http = http or httpx.Client(timeout=10, trust_env=False, verify=tls.context())
        self.headers = {"Authorization": f"Bearer {token}"}

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        try:
            response = self.http.request(
                method, f"{self.base}/{path}", json=body, headers=self.headers
            )
        except httpx.HTTPError as error:
            raise GraphError(0, 0, f"{type(error).__name__}: {error}") from error
        if response.status_code >= 400:
            raise error_of(response)
        try:
            return response.json()
        except ValueError as error:  # an answer we cannot read is a refusal, not a crash
            raise GraphError(response.status_code, 0, "not JSON", response.text[:200]) from error

    def send(self, to: Address | str, message: dict[str, Any]) -> str:
        """Send `message` (its `type` and content) to a person; its wamid. `to` as a
        string is a BSUID or a phone number (`Address.of`)."""
        address = to if isinstance(to, Address) else Address.of(to)
        body = {"messaging_product": "whatsapp", "recipient_type": "individual"}
        body |= {**address.fields(), **message}
        answer = self.call("POST", f"{self.phone_id}/messages", body)
        try:
            return str(answer["messages"][0]["id"])
        except (KeyError, IndexError, TypeError) as error:
            raise GraphError(200, 0, "no message id in the answer", str(answer)[:200]) from error

    def mark_read(self, wamid: str) -> None:
        body = {"messaging_product": "whatsapp", "status": "read", "message_id": wamid}
        self.call("POST", f"{self.phone_id}/messages", body)

    def phone_number(self) -> str:
        """The business number's digits (for wa.me links)."""
        answer = self.call("GET", f"{self.phone_id}?fields=display_phone_number")
        return "".join(c for c in str(answer.get("display_phone_number", "")) if c.isdigit())

    def create_template(self, waba_id: str, template: dict[str, Any]) -> Any:
        return self.call("POST", f"{waba_id}/message_templates", template)

    def templates(self, waba_id: str) -> list[dict[str, Any]]:
        answer = self.call("GET", f"{waba_id}/message_templates")
        return list(answer.get("data", []))
