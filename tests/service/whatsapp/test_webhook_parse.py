"""Meta's notifications read defensively: batches, senders by BSUID or phone, taps."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence
from typing import Any

from service.platforms.whatsapp.webhook import Notification, parse, signed

SECRET = "local-app-secret"
PHONE_ID = "100000000000001"  # our business number's id (BURRO_WHATSAPP_PHONE_ID)


def notification(*values: dict[str, Any]) -> bytes:
    changes = [{"field": "messages", "value": v} for v in values]
    return json.dumps(
        {"object": "whatsapp_business_account", "entry": [{"id": "1", "changes": changes}]}
    ).encode()


def value(
    contacts: list[dict[str, Any]],
    messages: Sequence[Any] = (),
    statuses: Sequence[Any] = (),
) -> dict[str, Any]:
    return {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550009999", "phone_number_id": PHONE_ID},
        "contacts": contacts,
        "messages": list(messages),
        "statuses": list(statuses),
    }


ABUELA = {"profile": {"name": "Abuela"}, "wa_id": "34600000001", "user_id": "ES.1502576394655801"}
VOVO = {"profile": {"name": "Vovó"}, "user_id": "BR.1502576394655803"}  # no phone: a username


def test_a_signature_is_the_hmac_of_the_raw_body() -> None:
    body = notification(value([ABUELA]))
    good = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    assert signed(body, good, SECRET)
    assert not signed(body + b" ", good, SECRET)
    assert not signed(body, good.upper(), SECRET)
    assert not signed(body, "", SECRET)
    assert not signed(body, good, "another secret")


def test_a_batch_of_two_people_and_a_status() -> None:
    body = notification(
        value(
            [ABUELA],
            [
                {
                    "from": "34600000001",
                    "from_user_id": ABUELA["user_id"],
                    "id": "wamid.1",
                    "timestamp": "1700000002",
                    "type": "text",
                    "text": {"body": "7 oros"},
                }
            ],
        ),
        value(
            [VOVO],
            [
                {
                    "from_user_id": VOVO["user_id"],
                    "id": "wamid.2",
                    "timestamp": "1700000001",
                    "type": "interactive",
                    "interactive": {
                        "type": "button_reply",
                        "button_reply": {"id": "abcd1234.3.d", "title": "Comprar"},
                    },
                    "context": {"from": "15550009999", "id": "wamid.out.9"},
                },
                {
                    "from_user_id": VOVO["user_id"],
                    "id": "wamid.3",
                    "timestamp": "1700000003",
                    "type": "interactive",
                    "interactive": {
                        "type": "list_reply",
                        "list_reply": {"id": "abcd1234.3.p7D", "title": "7 de ouros"},
                    },
                },
                {
                    "from_user_id": VOVO["user_id"],
                    "id": "wamid.4",
                    "timestamp": "1700000004",
                    "type": "button",
                    "button": {"payload": "play", "text": "Jogar agora"},
                },
                {
                    "from_user_id": VOVO["user_id"],
                    "id": "wamid.5",
                    "timestamp": "1700000005",
                    "type": "sticker",
                    "sticker": {"id": "9"},
                },
            ],
            [
                {
                    "id": "wamid.out.1",
                    "status": "failed",
                    "timestamp": "1700000006",
                    "recipient_user_id": VOVO["user_id"],
                    "errors": [{"code": 131047, "title": "Re-engagement message"}],
                }
            ],
        ),
    )
    parsed = parse(body, PHONE_ID)
    assert parsed is not None
    messages, statuses = parsed.messages, parsed.statuses
    first, tap, row, quick, other = messages
    assert (first.bsuid, first.phone, first.name, first.kind, first.text) == (
        ABUELA["user_id"],
        "34600000001",
        "Abuela",
        "text",
        "7 oros",
    )
    assert (tap.bsuid, tap.phone, tap.name, tap.kind, tap.data, tap.context) == (
        VOVO["user_id"],
        None,
        "Vovó",
        "reply",
        "abcd1234.3.d",
        "wamid.out.9",
    )
    assert (row.kind, row.data) == ("reply", "abcd1234.3.p7D")
    assert (quick.kind, quick.data) == ("quick", "play")
    assert other.kind == "other"
    assert [m.at for m in messages] == [1700000002, 1700000001, 1700000003, 1700000004, 1700000005]
    (status,) = statuses
    assert (status.status, status.codes, status.bsuid, status.at) == (
        "failed",
        (131047,),
        VOVO["user_id"],
        1700000006,
    )


def test_a_sender_known_only_by_phone_is_keyed_by_it() -> None:
    old = {"profile": {"name": "Avó"}, "wa_id": "351910000002"}
    body = notification(
        value(
            [old],
            [
                {
                    "from": "351910000002",
                    "id": "wamid.9",
                    "timestamp": "1700000000",
                    "type": "text",
                    "text": {"body": "olá"},
                }
            ],
        )
    )
    parsed = parse(body, PHONE_ID)
    assert parsed is not None
    (message,) = parsed.messages
    assert (message.bsuid, message.name) == ("351910000002", "Avó")


def test_what_is_not_a_notification_is_refused_and_bad_pieces_left_out() -> None:
    assert parse(b"not json", PHONE_ID) is None
    assert parse(b"[1, 2]", PHONE_ID) is None
    assert parse(json.dumps({"object": "x"}).encode(), PHONE_ID) is None
    broken = notification(value([ABUELA], [{"id": "wamid.1", "type": "text"}, "junk"]))
    assert parse(broken, PHONE_ID) == Notification([], [])
