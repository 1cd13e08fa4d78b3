"""Users and their one chat with the business: the cast, a user added, taps and list
choices (old messages' buttons still tap, with the right context), quoting, reading,
the chat's JSON views with `since`, and what a user cannot do."""

from __future__ import annotations

import json

import httpx
import pytest

from emulator import RunningEmulator
from emulator.whatsapp import WhatsAppDriver, WhatsAppError
from tests.emulator.whatsapp.conftest import ABUELA_ID, Graph, Service, buttons, listing, text


def test_the_cast(wa: WhatsAppDriver) -> None:
    users = {u["name"]: u for u in wa.users()}
    assert set(users) == {"Abuela", "Avó", "Vovó", "Nenek", "Grandma"}
    for user in users.values():
        country, _, digits = user["user_id"].partition(".")
        assert len(country) == 2 and country.isupper() and digits.isdigit()
    assert users["Vovó"]["wa_id"] is None and users["Vovó"]["username"]
    assert users["Abuela"]["language"] == "es" and users["Avó"]["language"] == "pt-PT"
    assert not users["Abuela"]["window_open"]


def test_a_user_added(wa: WhatsAppDriver, graph: Graph, hooked: Service) -> None:
    added = wa.add_user("Lola", country="MX", language="es", username="lola.mx")
    assert added["user_id"].startswith("MX.") and added["wa_id"] is None
    with pytest.raises(WhatsAppError, match="username"):
        wa.add_user("Nobody", country="MX")
    with pytest.raises(WhatsAppError, match="country"):
        wa.add_user("Bad", country="Mexico", phone="525500000000")
    with pytest.raises(WhatsAppError, match="already"):
        wa.add_user("Abuela", country="ES", phone="34600000009")
    wa.send("Lola", "hola")
    wamid = graph.ok(text("¡Hola, Lola!"), to=added["user_id"])
    wa.wait_for_status(wamid, "delivered")
    wa.wait_for(lambda: hooked.contacts(), what="her contact")
    assert hooked.contacts()[0] == {
        "profile": {"name": "Lola", "username": "lola.mx"},
        "user_id": added["user_id"],
    }


def test_taps_on_old_messages_carry_their_context(
    wa: WhatsAppDriver, graph: Graph, hooked: Service
) -> None:
    wa.send("Abuela", "hola")
    first = graph.ok(buttons("Ronda 1", "7 de oros", "Pasar"))
    second = graph.ok(buttons("Ronda 2", "Sota de copas", "Pasar"))
    shown = wa.wait_for_message("Abuela", contains="Ronda 2")
    assert shown.id == second and shown.button_titles == ["Sota de copas", "Pasar"]
    wa.tap("Abuela", first, "7 de oros")  # the older message, by its wamid
    wa.tap("Abuela", shown, "Pasar")
    wa.tap("Abuela", first, "b1")  # by the button's id
    wa.wait_for(lambda: len(hooked.messages()) == 4, what="the taps")
    taps = hooked.messages()[1:]
    assert [t["context"]["id"] for t in taps] == [first, second, first]
    assert {t["context"]["from"] for t in taps} == {"15550009999"}
    assert [t["interactive"] for t in taps] == [
        {"type": "button_reply", "button_reply": {"id": "b0", "title": "7 de oros"}},
        {"type": "button_reply", "button_reply": {"id": "b1", "title": "Pasar"}},
        {"type": "button_reply", "button_reply": {"id": "b1", "title": "Pasar"}},
    ]
    with pytest.raises(WhatsAppError, match="no button"):
        wa.tap("Abuela", first, "Rey de bastos")


def test_a_list_choice(wa: WhatsAppDriver, graph: Graph, hooked: Service) -> None:
    wa.send("Avó", "olá")
    message = listing("Escolhe uma carta", "Ás de espadas", "Rei de paus")
    message["interactive"]["action"]["sections"][0]["rows"][1]["description"] = "vale 10"
    message["interactive"]["header"] = {"type": "text", "text": "A tua mão"}
    message["interactive"]["footer"] = {"text": "Burro"}
    wamid = graph.ok(message, to="351910000002")
    shown = wa.wait_for_message("Avó", contains="Escolhe")
    assert (shown.header, shown.footer, shown.list_button) == ("A tua mão", "Burro", "Cartas")
    assert shown.row_titles == ["Ás de espadas", "Rei de paus"]
    wa.choose("Avó", shown, "Rei de paus")
    wa.choose("Avó", wamid, "Ás de espadas")
    wa.wait_for(lambda: len(hooked.messages()) == 3, what="the choices")
    first, second = hooked.messages()[1:]
    assert first["type"] == "interactive" and first["context"]["id"] == wamid
    assert first["interactive"] == {
        "type": "list_reply",
        "list_reply": {"id": "r1", "title": "Rei de paus", "description": "vale 10"},
    }
    assert second["interactive"]["list_reply"] == {"id": "r0", "title": "Ás de espadas"}
    with pytest.raises(WhatsAppError, match="is a list"):
        wa.tap("Avó", wamid, "Rei de paus")


def test_what_a_user_cannot_do(wa: WhatsAppDriver, graph: Graph) -> None:
    wamid = graph.ok(buttons("Hola", "Sí"))  # outside the window: never delivered
    wa.wait_for_status(wamid, "failed")
    with pytest.raises(WhatsAppError, match="not received"):
        wa.tap("Abuela", wamid, "Sí")
    with pytest.raises(WhatsAppError, match="no message"):
        wa.tap("Abuela", "wamid.nothing", "Sí")
    wa.set_online("Nenek", False)
    with pytest.raises(WhatsAppError, match="offline"):
        wa.send("Nenek", "halo")
    with pytest.raises(WhatsAppError, match="text"):
        wa.send("Abuela", "   ")
    with pytest.raises(WhatsAppError, match="no WhatsApp user"):
        wa.send("Zeus", "hola")


def test_quoting_and_reactions(wa: WhatsAppDriver, graph: Graph, hooked: Service) -> None:
    wa.send("Grandma", "hi")
    wamid = graph.ok(text("Your turn"), to="15550000005")
    shown = wa.wait_for_message("Grandma", contains="Your turn")
    wa.send("Grandma", "ok!", reply_to=shown)
    reply = graph.ok(
        {**text("Thanks"), "context": {"message_id": hooked_last(wa, "Grandma")}}, to="15550000005"
    )
    assert wa.message(reply).context_id == hooked_last(wa, "Grandma")
    lost = graph.ok({**text("Hm"), "context": {"message_id": "wamid.unknown"}}, to="15550000005")
    assert wa.message(lost).context_id is None  # Meta sends it as a plain message
    reaction = graph.ok(
        {"type": "reaction", "reaction": {"message_id": hooked_last(wa, "Grandma"), "emoji": "👍"}},
        to="15550000005",
    )
    assert wa.message(reaction).raw["reaction_to"] == hooked_last(wa, "Grandma")
    _, error = graph.refused(
        {"type": "reaction", "reaction": {"message_id": "wamid.unknown", "emoji": "👍"}},
        to="15550000005",
    )
    assert error["code"] == 131009
    wa.wait_for(lambda: len(hooked.messages()) == 2, what="the quote")
    quoted = hooked.messages()[1]
    assert quoted["context"] == {"from": "15550009999", "id": wamid}


def hooked_last(wa: WhatsAppDriver, user: str) -> str:
    """The wamid of the user's last message."""
    return [m for m in wa.messages(user) if m.direction == "in"][-1].id


def test_the_chat_view_both_ways_with_since(emu: RunningEmulator, graph: Graph) -> None:
    wa = emu.whatsapp
    hola = wa.send("Abuela", "hola")
    wamid = graph.ok(buttons("Tu turno", "7 de oros"))
    wa.wait_for_status(wamid, "delivered")
    chat = wa.messages("Abuela")
    assert [(m.direction, m.type, m.text) for m in chat] == [
        ("in", "text", "hola"),
        ("out", "interactive", "Tu turno"),
    ]
    mark = max(m.rev for m in chat)
    assert wa.messages("Abuela", since=mark) == []
    wa.open_chat("Abuela")
    changed = wa.messages("Abuela", since=mark)
    assert [(m.id, m.status) for m in changed] == [(wamid, "read")]
    raw = httpx.get(f"{emu.url}/_emulator/whatsapp/messages", params={"user": ABUELA_ID}).json()
    assert raw["ok"] and raw["result"]["rev"] >= changed[0].rev
    (view,) = [m for m in raw["result"]["messages"] if m["id"] == wamid]
    assert view["buttons"] == [{"id": "b0", "title": "7 de oros"}]
    assert view["content"]["interactive"]["type"] == "button"
    chats = {c["user"]["name"]: c for c in wa.chats()}
    assert chats["Abuela"]["last"]["id"] == wamid and chats["Abuela"]["unread"] == 0
    assert chats["Nenek"]["last"] is None
    assert hola.status == "received"


def test_the_log_of_calls(wa: WhatsAppDriver, graph: Graph) -> None:
    seq = wa.last_seq()
    graph.refused(text(""))
    graph.ok(text("hola"))
    first, second = wa.calls(since=seq)
    assert first["method"] == "POST" and first["path"].endswith("/messages")
    assert first["status"] == 400 and first["answer"]["error"]["code"] == 131009
    assert first["body"]["text"] == {"body": ""}
    assert second["status"] == 200 and second["answer"]["messages"][0]["id"]


def test_events_stream(emu: RunningEmulator) -> None:
    with httpx.stream("GET", f"{emu.url}/_emulator/whatsapp/events", timeout=5) as stream:
        lines = stream.iter_lines()
        assert next(lines).startswith("retry:")
        emu.whatsapp.send("Abuela", "hola")
        for line in lines:
            if line.startswith("data:"):
                event = json.loads(line[5:])
                assert event["type"] == "message" and event["message"]["text"] == "hola"
                break


def test_markup_whatsapp_shows_literally_is_recorded(wa: WhatsAppDriver, graph: Graph) -> None:
    wa.send("Abuela", "hola")
    graph.ok(text("*Tu turno*, _Abuela_: ~no~ ```mono```"))  # WhatsApp's own formatting
    assert wa.warnings() == []
    html = graph.ok(text("<b>Tu turno</b>"))
    stars = graph.ok(text("**Tu turno**"))
    escaped = graph.ok(text("Ronda 1\\. Juega"))
    titled = graph.ok(buttons("Tu turno", "*7 de oros*"))
    found = [(w["message_id"], w["field"]) for w in wa.warnings()]
    assert found == [
        (html, "text.body"),
        (stars, "text.body"),
        (escaped, "text.body"),
        (titled, "interactive.action.buttons[0].reply.title"),
    ]


def test_a_name_whose_marks_would_format_is_recorded(wa: WhatsAppDriver, graph: Graph) -> None:
    """Meta formats a profile name's marks in a body as the business's own."""
    for name in ("*Lola*", "~Pepe", "Tío_Juan", "`Tete`"):
        wa.add_user(name, country="MX", username=f"u{len(name)}")
    wa.send("Abuela", "hola")
    graph.ok(text("*Tu turno*, Tío_Juan y Abuela"))  # a mark inside a word formats nothing
    graph.ok(buttons("Tu turno", "Pasar"))
    assert wa.warnings() == []
    bold = graph.ok(text("Turno de *Lola*."))
    struck = graph.ok(buttons("~Pepe juega 7 de oros~", "Pasar"))
    coded = graph.ok(text("Gana `Tete`"))
    found = [(w["message_id"], w["field"], w["problem"]) for w in wa.warnings()]
    assert found == [
        (bold, "text.body", "the name '*Lola*' turns into formatting: '*Lola*'"),
        (
            struck,
            "interactive.body.text",
            "the name '~Pepe' turns into formatting: '~Pepe juega 7 de oros~'",
        ),
        (coded, "text.body", "the name '`Tete`' turns into formatting: '`Tete`'"),
    ]


@pytest.mark.parametrize("path", ["/_emulator/settings", "/_emulator/whatsapp/settings"])
def test_a_control_call_whose_body_is_no_json_object_is_refused(
    emu: RunningEmulator, path: str
) -> None:
    """Telegram's control API and WhatsApp's read a call's body alike."""
    for body, said in ((b"{", "the body is not JSON"), (b"[1]", "the body must be a JSON object")):
        answer = httpx.post(emu.url + path, content=body)
        assert answer.status_code == 400
        assert answer.json() == {"ok": False, "error_code": 400, "description": said}
