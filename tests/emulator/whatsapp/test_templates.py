"""Templates: made PENDING, APPROVED after the review delay on the emulator's clock,
listed with paging; refused when malformed or already there; sent only when approved,
in that language, with the right parameters; their quick replies tap back."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from emulator import running_emulator
from emulator.whatsapp import WhatsAppDriver
from tests.emulator.whatsapp.conftest import VERIFY, WABA_ID, Graph, Service

JSON = dict[str, Any]
TEMPLATES = f"{WABA_ID}/message_templates"


def template(name: str = "game_invite", **changes: Any) -> JSON:
    body: JSON = {
        "name": name,
        "language": "es",
        "category": "UTILITY",
        "components": [
            {"type": "HEADER", "format": "TEXT", "text": "Burro"},
            {
                "type": "BODY",
                "text": "Hola {{1}}, {{2}} te invita a jugar.",
                "example": {"body_text": [["Abuela", "Ana"]]},
            },
            {"type": "FOOTER", "text": "Responde para jugar"},
            {
                "type": "BUTTONS",
                "buttons": [
                    {"type": "QUICK_REPLY", "text": "Jugar"},
                    {"type": "QUICK_REPLY", "text": "Ahora no"},
                ],
            },
        ],
    }
    body.update(changes)
    return body


def invite(*params: str, language: str = "es", buttons: bool = True) -> JSON:
    components: list[JSON] = [
        {"type": "body", "parameters": [{"type": "text", "text": p} for p in params]}
    ]
    if buttons:
        components.append(
            {
                "type": "button",
                "sub_type": "quick_reply",
                "index": "0",
                "parameters": [{"type": "payload", "payload": "join:42"}],
            }
        )
    return {
        "type": "template",
        "template": {
            "name": "game_invite",
            "language": {"code": language},
            "components": components,
        },
    }


def test_a_template_is_pending_then_approved_on_the_clock(
    wa: WhatsAppDriver, graph: Graph, service: tuple[Service, str]
) -> None:
    hook, url = service
    wa.set_webhook(url, VERIFY, fields=("messages", "message_template_status_update"))
    wa.settings(approval_delay=3600)
    status, made = graph.post(TEMPLATES, template())
    assert status == 200
    assert made["status"] == "PENDING" and made["category"] == "UTILITY" and made["id"]
    status, listed = graph.post(TEMPLATES, template())  # the same name and language
    assert status == 400
    assert listed["error"]["code"] == 100 and listed["error"]["error_subcode"] == 2388024
    response = graph.http.get(TEMPLATES)
    (found,) = response.json()["data"]
    assert found["status"] == "PENDING" and found["name"] == "game_invite"
    status, refused = graph.refused(invite("Abuela", "Ana"))
    assert refused["code"] == 132001  # not approved yet
    wa.advance(3600)
    (found,) = graph.http.get(TEMPLATES).json()["data"]
    assert found["status"] == "APPROVED"
    wa.wait_for(
        lambda: any(
            c["field"] == "message_template_status_update"
            for b in hook.bodies
            for e in b["entry"]
            for c in e["changes"]
        ),
        what="the template webhook",
    )
    (event,) = [
        c["value"]
        for b in hook.bodies
        for e in b["entry"]
        for c in e["changes"]
        if c["field"] == "message_template_status_update"
    ]
    assert event["event"] == "APPROVED" and event["message_template_name"] == "game_invite"
    assert event["message_template_id"] == int(made["id"])
    assert (
        graph.post(TEMPLATES, template(language="pt_BR"))[0] == 200
    )  # the same name in another language is another template


def test_templates_are_listed_in_pages(graph: Graph) -> None:
    for n in range(5):
        assert graph.post(TEMPLATES, template(f"t{n}"))[0] == 200
    first = graph.http.get(TEMPLATES, params={"limit": 2}).json()
    assert [t["name"] for t in first["data"]] == ["t0", "t1"]
    second = graph.http.get(first["paging"]["next"]).json()
    assert [t["name"] for t in second["data"]] == ["t2", "t3"]
    named = graph.http.get(TEMPLATES, params={"name": "t4"}).json()["data"]
    assert [t["name"] for t in named] == ["t4"]


BAD_TEMPLATES: list[tuple[str, JSON]] = [
    ("capitals in the name", template("Game_Invite")),
    ("a dash in the name", template("game-invite")),
    ("unknown language", template(language="es-ES")),
    ("unknown category", template(category="SERVICE")),
    ("no components", template(components=[])),
    ("no body", template(components=[{"type": "FOOTER", "text": "x"}])),
    (
        "placeholders out of order",
        template(
            components=[
                {
                    "type": "BODY",
                    "text": "Hi {{2}} and {{1}}.",
                    "example": {"body_text": [["a", "b"]]},
                }
            ]
        ),
    ),
    ("no example", template(components=[{"type": "BODY", "text": "Hola {{1}}, juega."}])),
    (
        "a variable at the end",
        template(
            components=[{"type": "BODY", "text": "Hola {{1}}", "example": {"body_text": [["a"]]}}]
        ),
    ),
    (
        "named placeholder",
        template(
            components=[
                {"type": "BODY", "text": "Hola {{name}}.", "example": {"body_text": [["a"]]}}
            ]
        ),
    ),
    ("body 1025", template(components=[{"type": "BODY", "text": "x" * 1025}])),
    (
        "button text 21",
        template(
            components=[
                {"type": "BODY", "text": "x"},
                {"type": "BUTTONS", "buttons": [{"type": "QUICK_REPLY", "text": "x" * 21}]},
            ]
        ),
    ),
    (
        "eleven buttons",
        template(
            components=[
                {"type": "BODY", "text": "x"},
                {
                    "type": "BUTTONS",
                    "buttons": [{"type": "QUICK_REPLY", "text": f"b{i}"} for i in range(11)],
                },
            ]
        ),
    ),
    (
        "a URL button (not modelled)",
        template(
            components=[
                {"type": "BODY", "text": "x"},
                {"type": "BUTTONS", "buttons": [{"type": "URL", "text": "Go", "url": "https://x"}]},
            ]
        ),
    ),
    ("utility TTL 29", template(message_send_ttl_seconds=29)),
    ("utility TTL 43201", template(message_send_ttl_seconds=43201)),
    ("marketing TTL 600", template(category="MARKETING", message_send_ttl_seconds=600)),
    ("unknown key", template(colour="blue")),
]


@pytest.fixture(scope="module")
def shared_graph() -> Iterator[Graph]:
    """One emulator for the whole table: a refused template changes nothing."""
    with running_emulator() as emu:
        client = Graph(emu.url)
        yield client
        client.close()


@pytest.mark.parametrize(("wrong", "body"), BAD_TEMPLATES, ids=[b[0] for b in BAD_TEMPLATES])
def test_a_malformed_template_is_refused(shared_graph: Graph, wrong: str, body: JSON) -> None:
    graph = shared_graph
    status, answer = graph.post(TEMPLATES, body)
    assert status == 400, answer
    assert answer["error"]["code"] == 100
    assert answer["error"]["error_user_msg"]


def test_sending_a_template_checks_it_as_meta_does(wa: WhatsAppDriver, graph: Graph) -> None:
    assert graph.post(TEMPLATES, template(message_send_ttl_seconds=3600))[0] == 200
    assert graph.refused(invite("Abuela"))[1]["code"] == 132000
    assert graph.refused(invite("Abuela", "Ana", "Ben"))[1]["code"] == 132000
    assert graph.refused(invite("Abuela", "Ana", language="en_US"))[1]["code"] == 132001
    assert graph.refused(invite("Abuela\nhola", "Ana"))[1]["code"] == 132018
    assert graph.refused(invite("Abuela", "Ana     y Ben"))[1]["code"] == 132018
    bad_index = invite("Abuela", "Ana")
    bad_index["template"]["components"][1]["index"] = "5"
    assert graph.refused(bad_index)[1]["code"] == 131009
    status, answer = graph.send(invite("Abuela", "Ana"))
    assert status == 200
    assert answer["messages"][0]["message_status"] == "accepted"
    wa.set_template_status("game_invite", "es", "PAUSED")
    assert graph.refused(invite("Abuela", "Ana"))[1]["code"] == 132015
    wa.set_template_status("game_invite", "es", "DISABLED")
    assert graph.refused(invite("Abuela", "Ana"))[1]["code"] == 132016


def test_a_name_formatted_in_a_filled_template_is_recorded(
    wa: WhatsAppDriver, graph: Graph
) -> None:
    """A name is a template parameter: its marks format in the body as filled in."""
    wa.add_user("_Lola_", country="MX", username="lola.mx")
    assert graph.post(TEMPLATES, template())[0] == 200
    plain = graph.ok(invite("Abuela", "Ana"))
    named = graph.ok(invite("Abuela", "_Lola_"))
    assert [(w["message_id"], w["field"], w["problem"]) for w in wa.warnings()] == [
        (named, "template.body", "the name '_Lola_' turns into formatting: '_Lola_'")
    ]
    assert plain != named


def test_a_quick_reply_taps_back_with_its_payload_and_context(
    wa: WhatsAppDriver, graph: Graph, hooked: Service
) -> None:
    assert graph.post(TEMPLATES, template())[0] == 200
    wamid = graph.ok(invite("Abuela", "Ana"))  # no window needed
    shown = wa.wait_for_message("Abuela", contains="te invita")
    assert shown.id == wamid and shown.type == "template"
    assert shown.text == "Hola Abuela, Ana te invita a jugar."
    assert (shown.header, shown.footer) == ("Burro", "Responde para jugar")
    assert shown.button_titles == ["Jugar", "Ahora no"]
    tapped = wa.tap_quick_reply("Abuela", shown, "Jugar")
    later = wa.tap("Abuela", shown, "Ahora no")  # no payload given: the text is the payload
    wa.wait_for(lambda: len(hooked.messages()) == 2, what="two taps")
    first, second = hooked.messages()
    assert first["id"] == tapped.id and first["type"] == "button"
    assert first["button"] == {"payload": "join:42", "text": "Jugar"}
    assert first["context"] == {"from": "15550009999", "id": wamid}
    assert second["id"] == later.id and second["button"] == {
        "payload": "Ahora no",
        "text": "Ahora no",
    }
