"""The desk's reply sent on WhatsApp: each line a message (its choices reply buttons,
or a list past three), a popup said as a line unless it only echoes what the screens
show (`Reply.quiet`). The person just wrote, so their window is open: these go at once,
paced as every message to them is (`window.pace`). WhatsApp draws no marks
(service.ui.spans: a mention, a moment): a line says their words alone."""

from __future__ import annotations

import logging
from typing import Any

import redis

from service.desk.asks import Choice, Line, Reply, Sender
from service.i18n import Translator, _
from service.platforms.whatsapp import people, render, window
from service.platforms.whatsapp.graph import Address, Graph, GraphError
from service.services import Services
from service.ui import spans

log = logging.getLogger("burro.whatsapp")
TEXT = 4096  # Meta's limit on a text message's body
BUTTON, ROW, ROWS = 20, 24, 10  # limits on a reply button's title, a list row's, its rows


class Sending:
    """Sends the desk's replies to a WhatsApp person."""

    def __init__(self, svc: Services, client: redis.Redis, api: Graph) -> None:
        self.svc, self.redis, self.api = svc, client, api

    def reply(self, sender: Sender, reply: Reply, address: Address | None = None) -> None:
        lines = reply.lines
        if not lines and reply.popup and not reply.quiet:
            lines = (Line(reply.popup),)
        for line in lines:
            self.content(sender, content_of(line, self.lang(sender)), address)

    def lang(self, sender: Sender) -> str:
        return self.svc.user_lang(sender.player, sender.lang_hint)

    def content(
        self, sender: Sender, content: dict[str, Any], address: Address | None = None
    ) -> None:
        """One message to the person, now (to `address` if given: read before they
        asked to be forgotten); paced while we know them."""
        known = people.address_of(self.redis, sender.player)
        address = address or known
        if address is None:
            return
        if known is not None:
            pace = self.svc.settings.whatsapp_pair_rate
            window.pace(self.redis, sender.player, self.svc.now(), pace)
        try:
            self.api.send(address, content)
        except GraphError as error:
            log.warning("whatsapp %s: an answer was not sent: %s", sender.player, error)


def content_of(line: Line, lang: str) -> dict[str, Any]:
    """A line as a message: text, reply buttons (three at most) or a list."""
    choices = [c for row in line.choices for c in row if c.ask is not None]
    links = [c for row in line.choices for c in row if c.url is not None]
    text = spans.plain("\n".join([line.text, *(f"{c.label}: {c.url}" for c in links)]))
    if not choices:
        return {"type": "text", "text": {"body": render.short(text, TEXT)}}
    if len(choices) <= 3:
        buttons = [reply_button(c) for c in choices]
        action: dict[str, Any] = {"buttons": buttons}
        return interactive("button", text, action)
    rows = [{"id": c.ask, "title": render.short(spans.plain(c.label), ROW)} for c in choices[:ROWS]]
    label = render.short(Translator(lang).gettext(_("Choose")), BUTTON)
    return interactive("list", text, {"button": label, "sections": [{"rows": rows}]})


def reply_button(choice: Choice) -> dict[str, Any]:
    return {
        "type": "reply",
        "reply": {"id": choice.ask, "title": render.short(spans.plain(choice.label), BUTTON)},
    }


def interactive(kind: str, body: str, action: dict[str, Any]) -> dict[str, Any]:
    body = render.short(body, 1024)  # an interactive message's body
    return {
        "type": "interactive",
        "interactive": {"type": kind, "body": {"text": body}, "action": action},
    }
