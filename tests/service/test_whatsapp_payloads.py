"""WhatsApp inbound fixes an audit with real payloads found, each tested with the shape
of payload it came from (tests/service/whatsapp_payloads/, copied from pywa's fixtures
of Meta's webhooks, github.com/david-lev/pywa, tests/data/updates/):

- `bsuid_and_phone_text.json`: message.json "text" at 0bcf2f1 (2026), Meta's shape since
  BSUIDs: the contact has `wa_id` and `user_id`, the message `from` a phone;
- `phone_only_text.json`: message.json "text" at fb981bc (2025), Meta's shape before
  BSUIDs, still sent for people in Meta's contact book: `wa_id` and `from`, no `user_id`
  (as the example of Meta's messages webhook reference);
- `phone_only_failed_status.json`: message_status.json "failed" at fb981bc: a status
  naming its recipient by `recipient_id` (a phone) alone.

Each names the business number `1122334455667` in `metadata.phone_number_id`: as they
are, they are another number's (Meta posts every number of a Business Account to one
callback URL); `ours` makes them our number's. The webhook runs in this process on
fakeredis, its Graph client answered by a fake of Meta's messages endpoint.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fakeredis
import httpx
import pytest
import redis
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.testclient import TestClient

from service.infra import metrics
from service.infra.store import Store, text
from service.platforms.base import Chat, DeliveryFailed
from service.platforms.links import ServiceLinks
from service.platforms.whatsapp import people, webhook
from service.platforms.whatsapp.delivery import WhatsAppDelivery
from service.platforms.whatsapp.graph import Address, Graph
from service.services import Services
from service.settings import Settings

PAYLOADS = Path(__file__).parent / "whatsapp_payloads"
SECRET = "local-app-secret"
OURS = "100000000000001"  # our business number's id (BURRO_WHATSAPP_PHONE_ID)
PHONE = "972987654321"  # the sender's phone in every payload
BSUID = "US.13491208655302741918"  # their BSUID where Meta gives it
PEOPLE_TTL = 30 * 24 * 3600
TURN = {"type": "text", "text": {"body": "Your turn"}}


def payload(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((PAYLOADS / name).read_text())
    return found


def ours(data: dict[str, Any], wamid: str | None = None) -> dict[str, Any]:
    """The payload addressed to our number (and its message given another wamid)."""
    data = copy.deepcopy(data)
    value = data["entry"][0]["changes"][0]["value"]
    value["metadata"]["phone_number_id"] = OURS
    if wamid is not None:
        value["messages"][0]["id"] = wamid
    return data


@dataclass
class FakeMeta:
    """Meta's messages endpoint: every request body kept; a refusal if one is set."""

    bodies: list[dict[str, Any]] = field(default_factory=list)
    refusal: dict[str, Any] | None = None

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        if self.refusal is not None:
            return httpx.Response(400, json={"error": self.refusal})
        return httpx.Response(200, json={"messages": [{"id": f"wamid.out.{len(self.bodies)}"}]})

    def graph(self) -> Graph:
        http = httpx.Client(transport=httpx.MockTransport(self))
        return Graph("https://graph.example", "v21.0", OURS, "token", http=http)


@dataclass
class Service:
    redis: fakeredis.FakeRedis
    meta: FakeMeta
    http: TestClient

    def post(self, data: dict[str, Any]) -> httpx.Response:
        body = json.dumps(data).encode()
        signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        headers = {"X-Hub-Signature-256": signature}
        answer: httpx.Response = self.http.post(webhook.PATH, content=body, headers=headers)
        return answer

    def player(self, name: str) -> int | None:
        found = self.redis.get(people.key_of(name))
        return int(found) if found is not None else None


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch) -> Iterator[Service]:
    settings = Settings(
        whatsapp_token=SecretStr("token"),
        whatsapp_phone_id=OURS,
        whatsapp_app_secret=SecretStr(SECRET),
        whatsapp_verify_token=SecretStr("verify"),
    )
    client, meta = fakeredis.FakeRedis(), FakeMeta()
    monkeypatch.setattr(webhook, "graph_of", lambda _settings: meta.graph())
    svc = Services(settings, Store(client, 3600, 3600, people_ttl=PEOPLE_TTL))
    app = Starlette(routes=webhook.webhook(settings, svc, client, ServiceLinks(svc)).routes)
    with TestClient(app) as http:
        yield Service(client, meta, http)


def counted(kind: str, outcome: str) -> float:
    value: float = metrics.UPDATES.labels(kind, outcome)._value.get()
    return value


def test_another_numbers_message_and_status_are_dropped_and_counted(service: Service) -> None:
    """18 of 107 real payloads were for another number of the Business Account: answered
    from ours, and a stranger got a game. Left alone now, and counted."""
    before = counted("whatsapp_change", "other_number")
    assert service.post(payload("bsuid_and_phone_text.json")).status_code == 200
    assert service.post(payload("phone_only_failed_status.json")).status_code == 200
    assert counted("whatsapp_change", "other_number") - before == 2
    assert service.meta.bodies == []  # nothing answered
    assert service.redis.keys("wa:*") == []  # no player made, no message claimed
    assert service.redis.keys("update:*") == []


def test_a_phone_only_sender_is_answered_by_phone(service: Service) -> None:
    """34 replies to people Meta named by phone alone went to `recipient`, which takes a
    BSUID only, and could never be sent. They go to `to` now."""
    assert service.post(ours(payload("phone_only_text.json"))).status_code == 200
    (answer,) = service.meta.bodies
    assert answer["to"] == PHONE
    assert "recipient" not in answer
    player = service.player(PHONE)
    assert player is not None and people.is_whatsapp(player)
    assert people.address_of(service.redis, player) == Address(PHONE, "phone")


def test_a_phone_only_sender_who_comes_back_with_a_bsuid_is_the_same_player(
    service: Service,
) -> None:
    """A person first seen by phone, then in a payload with their BSUID and phone: one
    player, sent to by BSUID from then on (and found by either name)."""
    service.post(ours(payload("phone_only_text.json")))
    first = service.player(PHONE)
    service.post(ours(payload("bsuid_and_phone_text.json"), wamid="wamid.second"))
    assert service.player(BSUID) == first == service.player(PHONE)
    first_answer, second_answer = service.meta.bodies
    assert first_answer["to"] == PHONE
    assert second_answer["recipient"] == BSUID and "to" not in second_answer
    service.post(ours(payload("phone_only_text.json"), wamid="wamid.third"))  # phone alone again
    assert service.player(PHONE) == first
    assert service.meta.bodies[-1]["recipient"] == BSUID  # the BSUID, once known


def test_a_new_bsuid_on_a_phone_of_someone_else_is_another_person() -> None:
    """A number passed on to someone else comes with a new BSUID (Meta makes one per
    number): its new owner is not the old one's player."""
    client = fakeredis.FakeRedis()
    old = people.player_of(client, "US.1111", PHONE, PEOPLE_TTL)
    new = people.player_of(client, "US.2222", PHONE, PEOPLE_TTL)
    assert new != old
    assert people.find(client, None, PHONE) == new  # the phone is the new owner's now
    assert people.find(client, "US.1111", None) == old


def test_keys_about_a_person_expire(service: Service) -> None:
    """wa:seq:<player> was kept forever (one key per person); every key about a person
    lapses with them now."""
    service.post(ours(payload("bsuid_and_phone_text.json")))
    player = service.player(BSUID)
    assert player is not None
    delivery = WhatsAppDelivery(
        service.meta.graph(), service.redis, lambda: 1697043300.0, PEOPLE_TTL, 0.0
    )
    message = {"lang": "en", "title": "Your turn", "message": TURN}
    assert delivery.deliver(Chat(player), message) == 1
    names = [text(k) for k in service.redis.keys("*")]
    about_them = [n for n in names if n.startswith(("wa:", "user:")) and n != "wa:next"]
    for kept in (f"wa:seq:{player}", f"wa:id:{BSUID}", f"wa:id:{PHONE}", f"wa:pace:{player}"):
        assert kept in about_them
    assert all(service.redis.ttl(n) > 0 for n in about_them), about_them


def test_a_person_meta_cannot_reach_is_a_warning(
    service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    """Meta's refusal of a person who cannot get the message (131026, or not in a test
    number's allowed list, 131030) is one warning line, no error with a traceback."""
    service.post(ours(payload("phone_only_text.json")))
    player = service.player(PHONE)
    assert player is not None
    service.meta.refusal = {"code": 131030, "message": "Recipient phone number not in allowed list"}
    delivery = WhatsAppDelivery(
        service.meta.graph(), service.redis, lambda: 1697043300.0, PEOPLE_TTL, 0.0
    )
    message = {"lang": "en", "title": "Your turn", "message": TURN}
    with caplog.at_level(logging.INFO), pytest.raises(DeliveryFailed) as refused:
        delivery.deliver(Chat(player), message)
    assert refused.value.failure.kind == "blocked"
    assert [r.levelno for r in caplog.records if "cannot be reached" in r.message] == [
        logging.WARNING
    ]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_storage_down_before_the_desk_is_a_503(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding the sender reads Redis before the desk claims the message: Redis gone
    then was a 500 (the chaos soak's restarts found it); Meta is asked to post again."""

    def unreachable(*_args: object, **_kwargs: object) -> None:
        raise redis.ConnectionError("Connection refused.")

    with monkeypatch.context() as patched:
        patched.setattr(people, "sender_of", unreachable)
        assert service.post(ours(payload("bsuid_and_phone_text.json"))).status_code == 503
    assert service.post(ours(payload("bsuid_and_phone_text.json"))).status_code == 200
    assert len(service.meta.bodies) == 1  # answered once, when it came again
