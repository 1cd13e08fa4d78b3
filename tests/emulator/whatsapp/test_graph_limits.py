"""The Graph messages endpoint refuses what Meta refuses, with Meta's codes and shape:
one table of limits broken (each a valid message with one thing wrong), then the
token, the ids, and the answer to what it accepts."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from emulator import RunningEmulator, running_emulator
from tests.emulator.whatsapp.conftest import (
    ABUELA,
    ABUELA_ID,
    PHONE_ID,
    VOVO_ID,
    WABA_ID,
    Graph,
    buttons,
    listing,
    text,
)

JSON = dict[str, Any]


def edit(message: JSON, change: Callable[[JSON], None]) -> JSON:
    changed = copy.deepcopy(message)
    change(changed)
    return changed


def button(message: JSON) -> JSON:
    return dict(message["interactive"]["action"]["buttons"][0]["reply"])


BUTTONS = buttons("Tu turno", "7 de oros", "Sota de copas")
LIST = listing("Elige", "As de espadas", "Rey de bastos")
x = "x"

# (what is wrong, the message, Meta's code)
LIMITS: list[tuple[str, JSON, int]] = [
    ("no messaging_product", {"to": ABUELA, **text("hi"), "messaging_product": None}, 100),
    ("messaging_product not whatsapp", {**text("hi"), "messaging_product": "sms"}, 100),
    ("unknown top-level key", {**text("hi"), "colour": "red"}, 100),
    ("unknown type", {"type": "carrier_pigeon", "carrier_pigeon": {}}, 100),
    ("type's object missing", {"type": "text"}, 131008),
    ("an object of another type beside", {**text("hi"), "interactive": {}}, 100),
    ("recipient_type group", {**text("hi"), "recipient_type": "group"}, 100),
    ("text body missing", {"type": "text", "text": {}}, 131008),
    ("text body empty", text(""), 131009),
    ("text body 4097", text(x * 4097), 131009),
    ("text body 2049 emoji (UTF-16)", text("🃏" * 2049), 131009),
    ("unknown key in text", {"type": "text", "text": {"body": "hi", "bodyy": "x"}}, 100),
    (
        "preview_url not boolean",
        {"type": "text", "text": {"body": "hi", "preview_url": "yes"}},
        100,
    ),
    (
        "button body 1025",
        edit(BUTTONS, lambda m: m["interactive"]["body"].update(text=x * 1025)),
        131009,
    ),
    ("button body missing", edit(BUTTONS, lambda m: m["interactive"].pop("body")), 131008),
    (
        "header 61",
        edit(BUTTONS, lambda m: m["interactive"].update(header={"type": "text", "text": x * 61})),
        131009,
    ),
    (
        "image header (not modelled)",
        edit(BUTTONS, lambda m: m["interactive"].update(header={"type": "image"})),
        100,
    ),
    (
        "footer 61",
        edit(BUTTONS, lambda m: m["interactive"].update(footer={"text": x * 61})),
        131009,
    ),
    ("no buttons", edit(BUTTONS, lambda m: m["interactive"]["action"].update(buttons=[])), 131009),
    ("four buttons", buttons("b", "1", "2", "3", "4"), 131009),
    ("button title 21", buttons("b", x * 21), 131009),
    ("button title empty", buttons("b", ""), 131009),
    (
        "button id 257",
        edit(
            BUTTONS, lambda m: m["interactive"]["action"]["buttons"][0]["reply"].update(id=x * 257)
        ),
        131009,
    ),
    ("button titles repeated", buttons("b", "Pasar", "Pasar"), 131009),
    (
        "button ids repeated",
        edit(BUTTONS, lambda m: m["interactive"]["action"]["buttons"][1]["reply"].update(id="b0")),
        131009,
    ),
    (
        "button type not reply",
        edit(BUTTONS, lambda m: m["interactive"]["action"]["buttons"][0].update(type="url")),
        100,
    ),
    (
        "button without title",
        edit(BUTTONS, lambda m: m["interactive"]["action"]["buttons"][0]["reply"].pop("title")),
        131008,
    ),
    (
        "interactive type flow (not modelled)",
        edit(BUTTONS, lambda m: m["interactive"].update(type="flow")),
        100,
    ),
    (
        "list body 1025",
        edit(LIST, lambda m: m["interactive"]["body"].update(text=x * 1025)),
        131009,
    ),
    ("list button missing", edit(LIST, lambda m: m["interactive"]["action"].pop("button")), 131008),
    (
        "list button 21",
        edit(LIST, lambda m: m["interactive"]["action"].update(button=x * 21)),
        131009,
    ),
    ("no sections", edit(LIST, lambda m: m["interactive"]["action"].update(sections=[])), 131009),
    (
        "eleven sections",
        edit(
            LIST,
            lambda m: m["interactive"]["action"].update(
                sections=[
                    {"title": f"s{i}", "rows": [{"id": f"r{i}", "title": "t"}]} for i in range(11)
                ]
            ),
        ),
        131009,
    ),
    (
        "two sections, one untitled",
        edit(
            LIST,
            lambda m: m["interactive"]["action"]["sections"].append(
                {"rows": [{"id": "z", "title": "Z"}]}
            ),
        ),
        131008,
    ),
    (
        "section title 25",
        edit(LIST, lambda m: m["interactive"]["action"]["sections"][0].update(title=x * 25)),
        131009,
    ),
    (
        "eleven rows over two sections",
        edit(
            LIST,
            lambda m: m["interactive"]["action"].update(
                sections=[
                    {"title": "a", "rows": [{"id": f"a{i}", "title": "t"} for i in range(6)]},
                    {"title": "b", "rows": [{"id": f"b{i}", "title": "t"} for i in range(5)]},
                ]
            ),
        ),
        131009,
    ),
    (
        "section without rows",
        edit(LIST, lambda m: m["interactive"]["action"]["sections"][0].update(rows=[])),
        131009,
    ),
    ("row title 25", listing("b", x * 25), 131009),
    (
        "row id 201",
        edit(
            LIST, lambda m: m["interactive"]["action"]["sections"][0]["rows"][0].update(id=x * 201)
        ),
        131009,
    ),
    (
        "row description 73",
        edit(
            LIST,
            lambda m: m["interactive"]["action"]["sections"][0]["rows"][0].update(
                description=x * 73
            ),
        ),
        131009,
    ),
    (
        "row ids repeated",
        edit(LIST, lambda m: m["interactive"]["action"]["sections"][0]["rows"][1].update(id="r0")),
        131009,
    ),
    (
        "unknown key in a row",
        edit(
            LIST, lambda m: m["interactive"]["action"]["sections"][0]["rows"][0].update(emoji="🂡")
        ),
        100,
    ),
    ("template without language", {"type": "template", "template": {"name": "turn"}}, 131008),
    (
        "template unknown",
        {"type": "template", "template": {"name": "nope", "language": {"code": "es"}}},
        132001,
    ),
    (
        "template param of type image",
        {
            "type": "template",
            "template": {
                "name": "t",
                "language": {"code": "es"},
                "components": [{"type": "body", "parameters": [{"type": "image"}]}],
            },
        },
        100,
    ),
    (
        "template button index not a string",
        {
            "type": "template",
            "template": {
                "name": "t",
                "language": {"code": "es"},
                "components": [
                    {
                        "type": "button",
                        "sub_type": "quick_reply",
                        "index": 0,
                        "parameters": [{"type": "payload", "payload": "p"}],
                    }
                ],
            },
        },
        100,
    ),
    (
        "document with neither id nor link",
        {"type": "document", "document": {"filename": "a.txt"}},
        131008,
    ),
    (
        "document with both id and link",
        {"type": "document", "document": {"id": "1", "link": "http://x/y"}},
        100,
    ),
    (
        "document caption 1025",
        {"type": "document", "document": {"link": "http://x/y", "caption": x * 1025}},
        131009,
    ),
    (
        "reaction of words",
        {"type": "reaction", "reaction": {"message_id": "wamid.x", "emoji": "ok"}},
        131009,
    ),
    ("image (not modelled)", {"type": "image", "image": {"link": "http://x/y.png"}}, 100),
    ("context without message_id", {**text("hi"), "context": {}}, 131008),
]


@pytest.fixture(scope="module")
def shared_graph() -> Iterator[Graph]:
    """One emulator for the whole table: a refused call changes nothing."""
    with running_emulator() as emu:
        client = Graph(emu.url)
        yield client
        client.close()


@pytest.mark.parametrize(("wrong", "message", "code"), LIMITS, ids=[row[0] for row in LIMITS])
def test_a_limit_broken_is_refused_with_metas_code(
    shared_graph: Graph, wrong: str, message: JSON, code: int
) -> None:
    graph = shared_graph
    body = {"messaging_product": "whatsapp", "to": ABUELA, **message}
    body = {k: v for k, v in body.items() if v is not None}
    status, answer = graph.post(f"{PHONE_ID}/messages", body)
    assert status == 400, answer
    error = answer["error"]
    assert error["code"] == code, error
    assert error["type"] == "OAuthException"
    assert error["message"].startswith(f"(#{code}) ")
    assert error["fbtrace_id"]
    if code != 100 or "details" in error.get("error_data", {}):
        assert error["error_data"]["messaging_product"] == "whatsapp"
        assert error["error_data"]["details"]


def test_a_refused_message_is_in_nobodys_chat(emu: RunningEmulator, graph: Graph) -> None:
    graph.refused(text(x * 5000))
    assert emu.whatsapp.messages("Abuela") == []


def test_the_token_is_checked_first(emu: RunningEmulator) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic abc"}):
        response = httpx.post(
            f"{emu.url}/v21.0/{PHONE_ID}/messages",
            json={"messaging_product": "whatsapp"},
            headers=headers,
        )
        assert response.status_code == 401
        error = response.json()["error"]
        assert error["code"] == 190
        assert error["type"] == "OAuthException"
        assert "Invalid OAuth access token" in error["message"]
    fine = httpx.get(f"{emu.url}/v21.0/{PHONE_ID}", params={"access_token": "local-whatsapp-token"})
    assert fine.status_code == 200 and fine.json()["display_phone_number"] == "15550009999"


def test_unknown_ids_and_wrong_edges(graph: Graph) -> None:
    status, answer = graph.post("123456/messages", {"messaging_product": "whatsapp"})
    assert status == 400
    assert answer["error"]["code"] == 100 and answer["error"]["error_subcode"] == 33
    status, answer = graph.post(f"{WABA_ID}/messages", {"messaging_product": "whatsapp"})
    assert status == 400 and "nonexisting field (messages)" in answer["error"]["message"]
    status, answer = graph.post(f"{PHONE_ID}/message_templates", {})
    assert status == 400 and "nonexisting field (message_templates)" in answer["error"]["message"]
    response = graph.http.post(
        f"{graph.http.base_url}".replace("v21.0/", "v21/") + f"{PHONE_ID}/messages"
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == 2500
    # A path that is no Graph version stays the Telegram side's.
    assert graph.http.get(f"{graph.http.base_url}".replace("v21.0/", "nothing/")).json() == {
        "ok": False,
        "error_code": 404,
        "description": "Not Found",
    }


def test_malformed_recipients_are_refused_unknown_ones_fail_later(
    emu: RunningEmulator, graph: Graph
) -> None:
    for to in ("abc", "12", "+1 555 x", ""):
        status, answer = graph.post(
            f"{PHONE_ID}/messages", {"messaging_product": "whatsapp", "to": to, **text("hi")}
        )
        assert status == 400 and answer["error"]["code"] == 100, to
    status, answer = graph.post(
        f"{PHONE_ID}/messages",
        {"messaging_product": "whatsapp", "recipient": "br.123", **text("hi")},
    )
    assert status == 400 and answer["error"]["code"] == 100
    status, answer = graph.post(
        f"{PHONE_ID}/messages",
        {"messaging_product": "whatsapp", "to": ABUELA, "recipient": ABUELA_ID, **text("hi")},
    )
    assert status == 400 and answer["error"]["code"] == 100
    status, answer = graph.send(text("hola"), to="+44 7700 900123")
    assert status == 200
    assert answer["contacts"] == [{"input": "+44 7700 900123", "wa_id": "447700900123"}]
    wamid = answer["messages"][0]["id"]
    failed = emu.whatsapp.wait_for_status(wamid, "failed")
    assert failed["errors"][0]["code"] == 131026
    assert failed["recipient_id"] == "447700900123"


def test_an_accepted_message_is_answered_as_meta_does(emu: RunningEmulator, graph: Graph) -> None:
    emu.whatsapp.send("Abuela", "hola")
    status, answer = graph.send(text("¡Hola!"), to="+34 600 000 001")
    assert status == 200
    assert answer["messaging_product"] == "whatsapp"
    assert answer["contacts"] == [
        {"input": "+34 600 000 001", "wa_id": ABUELA, "user_id": ABUELA_ID}
    ]
    (sent,) = answer["messages"]
    assert sent["id"].startswith("wamid.") and len(sent["id"]) > 40
    assert "message_status" not in sent  # only template messages carry it
    emu.whatsapp.send("Vovó", "oi")
    status, answer = graph.send(text("Oi!"), to=VOVO_ID)
    assert status == 200
    assert answer["contacts"] == [{"input": VOVO_ID, "user_id": VOVO_ID}]  # no wa_id: no phone


def test_wamids_are_unique(emu: RunningEmulator, graph: Graph) -> None:
    emu.whatsapp.send("Abuela", "hola")
    ids = {graph.ok(text(f"n{i}")) for i in range(30)}
    assert len(ids) == 30


def test_mark_as_read(emu: RunningEmulator, graph: Graph) -> None:
    wa = emu.whatsapp
    first = wa.send("Abuela", "uno")
    second = wa.send("Abuela", "dos")
    status, answer = graph.post(
        f"{PHONE_ID}/messages",
        {"messaging_product": "whatsapp", "status": "read", "message_id": second.id},
    )
    assert (status, answer) == (200, {"success": True})
    assert {m.id: m.status for m in wa.messages("Abuela")} == {first.id: "read", second.id: "read"}
    status, answer = graph.post(
        f"{PHONE_ID}/messages",
        {"messaging_product": "whatsapp", "status": "read", "message_id": "wamid.nope"},
    )
    assert status == 400 and answer["error"]["code"] == 100
