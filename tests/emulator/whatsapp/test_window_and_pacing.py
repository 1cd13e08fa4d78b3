"""The 24-hour customer service window on the emulator's clock (outside it a free-form
message is accepted, then fails with 131047; templates go any time), the pair rate
(131056) and throughput (130429) limits, and messages to a user who is offline."""

from __future__ import annotations

from emulator.whatsapp import WhatsAppDriver
from tests.emulator.whatsapp.conftest import Graph, Service, buttons, text

DAY = 24 * 3600


def make_template(graph: Graph, name: str = "turn_reminder", **extra: object) -> None:
    status, answer = graph.post(
        "200000000000001/message_templates",
        {
            "name": name,
            "language": "es",
            "category": "UTILITY",
            "components": [
                {
                    "type": "BODY",
                    "text": "Hola {{1}}, te toca jugar.",
                    "example": {"body_text": [["Abuela"]]},
                },
                {"type": "BUTTONS", "buttons": [{"type": "QUICK_REPLY", "text": "Jugar"}]},
            ],
            **extra,
        },
    )
    assert status == 200, answer


def reminder(name: str = "turn_reminder") -> dict[str, object]:
    return {
        "type": "template",
        "template": {
            "name": name,
            "language": {"code": "es"},
            "components": [{"type": "body", "parameters": [{"type": "text", "text": "Abuela"}]}],
        },
    }


def test_no_window_before_the_user_ever_wrote(wa: WhatsAppDriver, graph: Graph) -> None:
    wamid = graph.ok(text("Hola"))
    failed = wa.wait_for_status(wamid, "failed")
    (error,) = failed["errors"]
    assert error["code"] == 131047 and error["title"] == "Re-engagement message"
    assert error["error_data"]["details"]
    assert "pricing" not in failed
    assert not wa.message(wamid).visible


def test_the_window_closes_after_24_hours_templates_still_go(
    wa: WhatsAppDriver, graph: Graph, hooked: Service
) -> None:
    make_template(graph)
    wa.send("Abuela", "hola")
    inside = graph.ok(buttons("Tu turno", "Jugar"))
    wa.wait_for_status(inside, "delivered")
    wa.advance(DAY - 5)
    still = graph.ok(text("¿Sigues ahí?"))
    wa.wait_for_status(still, "delivered")
    wa.advance(10)  # 24 hours and 5 seconds after her last message
    late = graph.ok(text("¿Hola?"))  # accepted...
    failed = wa.wait_for_status(late, "failed")  # ...then failed, as Meta reports it
    assert failed["errors"][0]["code"] == 131047
    assert wa.message(late).status == "failed" and not wa.message(late).visible
    template = graph.ok(reminder())
    delivered = wa.wait_for_status(template, "delivered")
    assert delivered["pricing"] == {
        "billable": True,
        "pricing_model": "PMP",
        "type": "regular",
        "category": "utility",
    }
    shown = wa.wait_for_message("Abuela", contains="te toca jugar")
    assert shown.text == "Hola Abuela, te toca jugar." and shown.button_titles == ["Jugar"]
    # A tap on the template reopens the window; free-form messages go again.
    wa.tap("Abuela", shown, "Jugar")
    again = graph.ok(text("¡Bien!"))
    wa.wait_for_status(again, "delivered")
    wa.wait_for(lambda: any(s["status"] == "failed" for s in hooked.statuses()), what="webhook")
    (sent_failure,) = [s for s in hooked.statuses() if s["status"] == "failed"]
    assert sent_failure["id"] == late and sent_failure["recipient_id"] == "34600000001"


def test_an_old_buttons_tap_opens_the_window_too(wa: WhatsAppDriver, graph: Graph) -> None:
    wa.send("Nenek", "halo")
    old = graph.ok(buttons("Giliranmu", "Main"), to="6281200000004")
    wa.wait_for_status(old, "delivered")
    wa.advance(3 * DAY)
    wa.tap("Nenek", old, "Main")  # a three-day-old button still taps
    now = graph.ok(text("Oke"), to="6281200000004")
    wa.wait_for_status(now, "delivered")


def test_the_pair_rate_is_a_bucket_per_user(wa: WhatsAppDriver, graph: Graph) -> None:
    wa.settings(limits=True)
    wa.send("Abuela", "hola")
    wa.send("Nenek", "halo")
    for n in range(5):
        graph.ok(text(f"{n}"))
    status, error = graph.refused(text("one too many"))
    assert status == 400 and error["code"] == 131056
    assert error["message"] == "(#131056) (Business Account, Consumer Account) pair rate limit hit"
    assert error["error_data"]["details"]
    graph.ok(text("halo"), to="6281200000004")  # another user: another bucket
    wa.advance(6)  # one token back
    graph.ok(text("after six seconds"))
    assert graph.refused(text("and again"))[1]["code"] == 131056
    refused = [m for m in wa.messages("Abuela") if m.text in ("one too many", "and again")]
    assert refused == []  # a refused message is nobody's
    wa.settings(limits=False)
    graph.ok(text("limits off"))


def test_throughput_per_phone_number(wa: WhatsAppDriver, graph: Graph) -> None:
    wa.settings(limits=True, throughput=10, pair_burst=100)
    wa.send("Abuela", "hola")
    for n in range(10):
        graph.ok(text(f"{n}"))
    status, error = graph.refused(text("eleventh"))
    assert status == 400 and error["code"] == 130429
    assert error["message"] == "(#130429) Rate limit hit"
    wa.advance(1)
    graph.ok(text("a second later"))


def test_offline_users_get_messages_when_back_or_never(wa: WhatsAppDriver, graph: Graph) -> None:
    make_template(graph, "short_reminder", message_send_ttl_seconds=60)
    wa.send("Grandma", "hi")
    wa.set_online("Grandma", False)
    waiting = graph.ok(text("Your turn"), to="15550000005")
    wa.wait_for_status(waiting, "sent")
    assert wa.message(waiting).status == "sent" and not wa.message(waiting).visible
    wa.set_online("Grandma", True)
    wa.wait_for_status(waiting, "delivered")
    wa.set_online("Grandma", False)
    expiring = graph.ok(reminder("short_reminder"), to="15550000005")
    lasting = graph.ok(text("Still your turn"), to="15550000005")  # 30 days to live
    wa.advance(61)
    failed = wa.wait_for_status(expiring, "failed")
    assert failed["errors"][0]["code"] == 131049
    assert wa.message(lasting).status == "sent"
    wa.set_online("Grandma", True)
    wa.wait_for_status(lasting, "delivered")
    assert wa.message(expiring).status == "failed"
    assert [m.text for m in wa.messages("Grandma") if m.visible and m.direction == "out"] == [
        "Your turn",
        "Still your turn",
    ]
