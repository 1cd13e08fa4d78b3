"""The Graph API as Burro uses it: send a message, mark one read, manage templates.

A thin client of our own rather than pywa's: pywa's `GraphAPI` fixes its base URL to
graph.facebook.com whatever session it is given (pywa/api.py), and our deployments and
tests point `BURRO_WHATSAPP_API_URL` elsewhere (the local WhatsApp); the calls we make
are three. Requests go to `<base>/<version>/<phone id>/messages` with the token as a
Bearer header (developers.facebook.com/docs/whatsapp/cloud-api/reference/messages).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from service.infra import tls

# Meta's error codes that change what we do (cloud-api/support/error-codes).
REENGAGEMENT = 131047  # more than 24 h since the person's last message: a template only
PAIR_RATE = 131056  # too many messages to one person in a short time
THROUGHPUT = 130429  # the number's messages per second
SPAM_RATE = 131048  # too many messages to people who did not write back
UNDELIVERABLE = 131026  # the person cannot get it (no WhatsApp, old app, blocked us)
RETRY_LATER = {PAIR_RATE: 6.0, THROUGHPUT: 1.0, SPAM_RATE: 60.0, 131000: 5.0, 4: 60.0, 80007: 60.0}


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
        return response.json()

    def send(self, recipient: str, message: dict[str, Any]) -> str:
        """Send `message` (its `type` and content) to a person by BSUID; its wamid."""
        body = {"messaging_product": "whatsapp", "recipient_type": "individual"}
        body |= {"recipient": recipient, **message}
        answer = self.call("POST", f"{self.phone_id}/messages", body)
        return str(answer["messages"][0]["id"])

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
