"""Webhook delivery as Meta does it: the handshake before a URL is taken, signed POSTs in
Meta's shapes, redelivery after a failure, and the duplicate, batch and reorder knobs
(repeatable by seed)."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import pytest

from emulator import ServerThread, running_emulator
from emulator.whatsapp import WhatsAppDriver, WhatsAppError
from tests.emulator.whatsapp.conftest import (
    ABUELA,
    ABUELA_ID,
    PHONE_ID,
    SECRET,
    VERIFY,
    VOVO_ID,
    WABA_ID,
    Graph,
    Service,
    text,
)

JSON = dict[str, Any]


def test_the_handshake_must_echo_the_challenge_exactly(
    wa: WhatsAppDriver, service: tuple[Service, str]
) -> None:
    hook, url = service
    with pytest.raises(WhatsAppError, match="couldn't be validated"):
        wa.set_webhook(url, "wrong-token")  # the service answers 403
    hook.echo = lambda challenge: challenge + "\n"
    with pytest.raises(WhatsAppError, match="exactly"):
        wa.set_webhook(url, VERIFY)
    hook.echo = lambda challenge: json.dumps({"hub.challenge": challenge})
    with pytest.raises(WhatsAppError):
        wa.set_webhook(url, VERIFY)
    with pytest.raises(WhatsAppError, match="reached"):
        wa.set_webhook("http://127.0.0.1:9/nobody", VERIFY)
    assert wa.webhook()["url"] is None
    hook.echo = lambda challenge: challenge
    assert wa.set_webhook(url, VERIFY)["url"] == url
    check = wa.log("verification")[-1]
    assert check["status"] == 200
    assert check["challenge"].isdigit() and check["answer"] == check["challenge"]


def test_without_a_webhook_events_go_nowhere(
    wa: WhatsAppDriver, service: tuple[Service, str]
) -> None:
    wa.send("Abuela", "¿hay alguien?")
    assert [e["field"] for e in wa.log("event_dropped")] == ["messages"]
    hook, url = service
    wa.set_webhook(url, VERIFY)
    wa.send("Abuela", "hola")
    wa.wait_for(lambda: hook.posts, what="a post")
    assert [m["text"]["body"] for m in hook.messages()] == ["hola"]


def test_a_message_arrives_signed_in_metas_shape(wa: WhatsAppDriver, hooked: Service) -> None:
    sent = wa.send("Abuela", "hola, ¿jugamos? 🃏 a/b")
    wa.wait_for(lambda: hooked.posts, what="a post")
    raw, headers = hooked.posts[0]
    mac = hmac.new(SECRET.encode(), raw, hashlib.sha256).hexdigest()
    assert headers["x-hub-signature-256"] == f"sha256={mac}"
    assert (
        headers["x-hub-signature"]
        == "sha1=" + hmac.new(SECRET.encode(), raw, hashlib.sha1).hexdigest()
    )
    assert headers["content-type"] == "application/json"
    # Meta escapes non-ASCII and slashes: re-serialised JSON would not match the signature.
    assert b"\\u00bf" in raw and b"\\ud83c\\udccf" in raw and b"a\\/b" in raw
    body = json.loads(raw)
    assert body["object"] == "whatsapp_business_account"
    (entry,) = body["entry"]
    assert entry["id"] == WABA_ID
    (change,) = entry["changes"]
    assert change["field"] == "messages"
    value = change["value"]
    assert value["messaging_product"] == "whatsapp"
    assert value["metadata"] == {"display_phone_number": "15550009999", "phone_number_id": PHONE_ID}
    assert value["contacts"] == [
        {"profile": {"name": "Abuela"}, "wa_id": ABUELA, "user_id": ABUELA_ID}
    ]
    (message,) = value["messages"]
    assert message == {
        "from": ABUELA,
        "from_user_id": ABUELA_ID,
        "id": sent.id,
        "timestamp": str(int(sent.time)),
        "type": "text",
        "text": {"body": "hola, ¿jugamos? 🃏 a/b"},
    }
    assert hooked.bad_signatures == 0


def test_a_user_without_a_phone_has_no_wa_id_nor_from(
    wa: WhatsAppDriver, hooked: Service, graph: Graph
) -> None:
    wa.send("Vovó", "oi")
    wa.wait_for(lambda: hooked.messages(), what="her message")
    (contact,) = hooked.contacts()
    assert contact == {"profile": {"name": "Vovó", "username": "vovo.rosa"}, "user_id": VOVO_ID}
    (message,) = hooked.messages()
    assert "from" not in message and message["from_user_id"] == VOVO_ID
    wamid = graph.ok(text("Olá!"), to=VOVO_ID)
    delivered = wa.wait_for_status(wamid, "delivered")
    assert "recipient_id" not in delivered and delivered["recipient_user_id"] == VOVO_ID
    status, answer = graph.send(text("Olá!"), to="5511999999999")  # nobody has that number
    assert status == 200 and "user_id" not in answer["contacts"][0]


def test_statuses_sent_delivered_read_with_pricing(
    wa: WhatsAppDriver, hooked: Service, graph: Graph
) -> None:
    wa.send("Abuela", "hola")
    wamid = graph.ok(text("¡Hola, Abuela!"))
    wa.wait_for_status(wamid, "delivered")
    assert wa.open_chat("Abuela") == 1
    wa.wait_for(lambda: any(s["status"] == "read" for s in hooked.statuses()), what="read")
    mine = [s for s in hooked.statuses() if s["id"] == wamid]
    assert [s["status"] for s in mine] == ["sent", "delivered", "read"]
    sent = mine[0]
    assert sent["recipient_id"] == ABUELA and sent["recipient_user_id"] == ABUELA_ID
    assert sent["timestamp"].isdigit()
    assert sent["pricing"] == {
        "billable": False,
        "pricing_model": "PMP",
        "type": "free_customer_service",
        "category": "service",
    }
    assert "pricing" not in mine[2] and "errors" not in sent
    tagged = graph.ok({**text("game 42"), "biz_opaque_callback_data": "room:42"})
    assert wa.wait_for_status(tagged, "delivered")["biz_opaque_callback_data"] == "room:42"


def test_a_failed_post_is_delivered_again_the_same(wa: WhatsAppDriver, hooked: Service) -> None:
    hooked.answers = [500, 503]
    wa.send("Abuela", "hola")
    wa.wait_for(lambda: len(wa.deliveries()) == 3, what="three attempts")
    raws = {raw for raw, _ in hooked.posts}
    assert len(raws) == 1  # the same body, the same signature, each time
    attempts = [(d["attempt"], d["status"], d["error"]) for d in wa.deliveries()]
    assert attempts == [(1, 500, "answered 500"), (2, 503, "answered 503"), (3, 200, None)]
    wa.wait_idle()


def test_events_do_not_wait_behind_a_failing_one(wa: WhatsAppDriver, hooked: Service) -> None:
    """Meta gives no order: a later event may arrive before an earlier one retried."""
    wa.settings(retry_compression=10)  # the first retry comes after 0.5 s
    hooked.answers = [500]
    wa.send("Abuela", "uno")
    wa.wait_for(lambda: wa.deliveries(), what="the failure")
    wa.send("Nenek", "dua")
    wa.wait_for(lambda: len(hooked.messages()) == 3, what="both", timeout=10)
    # uno (answered 500), dua, then uno again
    assert [m["text"]["body"] for m in hooked.messages()] == ["uno", "dua", "uno"]


def test_a_down_service_gets_the_event_when_back(wa: WhatsAppDriver, hooked: Service) -> None:
    hooked.answers = [500] * 6
    wa.send("Abuela", "hola")
    wa.wait_for(lambda: len(wa.deliveries()) == 7, what="the event at last", timeout=15)
    assert [d["status"] for d in wa.deliveries()] == [500] * 6 + [200]


def run_with_knobs(seed: int) -> tuple[list[JSON], Service]:
    """One run in a fresh emulator: twelve messages of four users, with the knobs on."""
    hook = Service()
    with ServerThread(hook.app) as server, running_emulator() as emu:
        wa = emu.whatsapp
        wa.set_webhook(f"{server.url}/whatsapp/webhook", VERIFY)
        wa.settings(seed=seed, duplicates=0.3, batch=0.5, reorder=0.3)
        wa.pause_delivery()
        for user, word in (
            ("Abuela", "hola"),
            ("Avó", "olá"),
            ("Nenek", "halo"),
            ("Grandma", "hi"),
        ):
            for n in range(3):
                wa.send(user, f"{word} {n}")
        wa.resume_delivery()
        wa.wait_idle()
        plan = [{k: d[k] for k in ("post", "events", "duplicate_of")} for d in wa.deliveries()]
    return plan, hook


def test_duplicates_batches_and_reorders_repeat_by_seed() -> None:
    plan, hook = run_with_knobs(seed=7)
    texts = [m["text"]["body"] for m in hook.messages()]
    assert len(texts) > 12  # some delivered twice
    assert set(texts) == {f"{w} {n}" for w in ("hola", "olá", "halo", "hi") for n in range(3)}
    assert any(d["duplicate_of"] for d in plan)
    assert any(len(d["events"]) > 1 for d in plan)
    events = [e for d in plan if d["duplicate_of"] is None for e in d["events"]]
    assert events != sorted(events)  # some went out of order
    assert any(len(b["entry"]) > 1 or len(b["entry"][0]["changes"]) > 1 for b in hook.bodies)
    assert any(len(v.get("messages", [])) > 1 for v in hook.values())
    for value in hook.values():  # every message's user is among its value's contacts
        users = {c["user_id"] for c in value["contacts"]}
        assert {m["from_user_id"] for m in value["messages"]} <= users
    again, hook_again = run_with_knobs(seed=7)
    assert again == plan
    assert [m["text"]["body"] for m in hook_again.messages()] == texts
    other, _ = run_with_knobs(seed=8)
    assert other != plan
