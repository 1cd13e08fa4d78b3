"""The local WhatsApp takes a call-to-action URL message as Meta documents it
(.../messages/interactive-cta-url-messages): a body (1024 at most), the action `cta_url`
with a `display_text` of 20 at most and an http(s) `url`, an optional text header and
footer (60 each); anything else is refused with Meta's codes, and the chat shows the
message with its button."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from emulator import RunningEmulator
from tests.emulator.whatsapp.conftest import ABUELA, Graph

JSON = dict[str, Any]
URL = "https://burro.example/view#l=1.k3j9x0qa.5f.708.0123456789abcdef0123456789abcdef"


def cta(body: str = "🖼 La mesa como tú la ves.", label: str = "🖼 Abrir la mesa") -> JSON:
    return {
        "type": "interactive",
        "interactive": {
            "type": "cta_url",
            "body": {"text": body},
            "action": {"name": "cta_url", "parameters": {"display_text": label, "url": URL}},
        },
    }


def edit(change: Callable[[JSON], None]) -> JSON:
    changed = copy.deepcopy(cta())
    change(changed["interactive"])
    return changed


def params(m: JSON) -> JSON:
    found: JSON = m["action"]["parameters"]
    return found


# (what is wrong, the message, Meta's code)
REFUSED: list[tuple[str, JSON, int]] = [
    ("body missing", edit(lambda m: m.pop("body")), 131008),
    ("body 1025", edit(lambda m: m["body"].update(text="x" * 1025)), 131009),
    ("body blank", edit(lambda m: m["body"].update(text="  ")), 131009),
    ("action missing", edit(lambda m: m.pop("action")), 131008),
    ("action name missing", edit(lambda m: m["action"].pop("name")), 131008),
    ("action name not cta_url", edit(lambda m: m["action"].update(name="url")), 100),
    ("parameters missing", edit(lambda m: m["action"].pop("parameters")), 131008),
    ("a reply button's action", edit(lambda m: m["action"].update(buttons=[])), 100),
    ("display_text missing", edit(lambda m: params(m).pop("display_text")), 131008),
    ("display_text 21", edit(lambda m: params(m).update(display_text="x" * 21)), 131009),
    (
        "display_text 11 emoji (UTF-16)",
        edit(lambda m: params(m).update(display_text="🖼" * 11)),
        131009,
    ),
    ("url missing", edit(lambda m: params(m).pop("url")), 131008),
    ("url not http", edit(lambda m: params(m).update(url="ftp://burro.example/view")), 100),
    ("url without a host", edit(lambda m: params(m).update(url="https:///view")), 100),
    ("url a bare word", edit(lambda m: params(m).update(url="burro")), 100),
    ("url not a string", edit(lambda m: params(m).update(url=7)), 100),
    ("unknown parameter", edit(lambda m: params(m).update(id="x")), 100),
    ("header 61", edit(lambda m: m.update(header={"type": "text", "text": "x" * 61})), 131009),
    (
        "image header (not modelled)",
        edit(lambda m: m.update(header={"type": "image", "image": {"link": URL}})),
        100,
    ),
    ("footer 61", edit(lambda m: m.update(footer={"text": "x" * 61})), 131009),
]


@pytest.mark.parametrize(("wrong", "message", "code"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_cta_url_message_breaking_a_rule_is_refused(
    graph: Graph, wrong: str, message: JSON, code: int
) -> None:
    status, error = graph.refused(message)
    assert (status, error["code"]) == (400, code), error
    assert error["message"].startswith(f"(#{code}) ")


def test_a_cta_url_message_within_the_limits_shows_with_its_button(
    emu: RunningEmulator, graph: Graph
) -> None:
    full = edit(
        lambda m: m.update(header={"type": "text", "text": "x" * 60}, footer={"text": "y" * 60})
    )
    params(full["interactive"]).update(display_text="x" * 20)
    graph.ok(full)
    plain = cta()
    params(plain["interactive"]).update(url="http://127.0.0.1:8080/view#l=abc")
    graph.ok(plain, to=ABUELA)
    first, second = emu.whatsapp.messages("Abuela")
    assert (first.header, first.footer, first.buttons, first.rows) == ("x" * 60, "y" * 60, (), ())
    assert first.cta is not None and (first.cta.display_text, first.cta.url) == ("x" * 20, URL)
    assert second.text == "🖼 La mesa como tú la ves."
    assert second.cta is not None and second.cta.url == "http://127.0.0.1:8080/view#l=abc"
