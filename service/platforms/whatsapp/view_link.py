"""The table's view on WhatsApp: a call-to-action URL message ("🖼 Open the table")
whose link is signed for one person and one table (service.infra.view_links, `ViewAccess`:
`<public_url>/view#l=<token>`; every message a fresh link; docs/mini-app.md).

It goes when asked, the person having just written (so their 24-hour window is open):
the "🖼 Table" row of a hand's list or its reply button (id `view:<room>`, `with_row`),
or a typed word in any of our languages (`table`, `mesa`, `meja`: `words.view_asked`);
and once to each player at each table when their game starts (the outbox's
`WhatsAppDelivery.offer_view`, after their first prompt of it, and only inside their
window: outside it WhatsApp takes templates only, so the offer waits for a prompt that
can go). Nothing of it without links
(BURRO_VIEW_LINK_SECRET and BURRO_PUBLIC_URL both set): no row, no offer, and the word
says the picture is not available here.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import redis

from service.desk.asks import Reply, Sender
from service.desk.prompts import current_prompt
from service.i18n import Translator, _
from service.infra.keys import user_key
from service.infra.view_links import ViewAccess
from service.platforms.whatsapp.answer import Sending
from service.platforms.whatsapp.render import (
    BUTTON_TITLE,
    MAX_REPLY_BUTTONS,
    MAX_ROWS,
    OTHER,
    ROW_TITLE,
    short,
)
from service.services import Services
from service.settings import Settings
from service.table.room import Room
from service.ui.intents import OpenView
from service.ui.screens import Screen, table_name

ROW_PREFIX = "view:"  # a row's or a reply button's id: `view:<room>`
_ROW = re.compile(r"^view:([a-z0-9]{8})$")
OFFERED = "view_offered:"  # a field of the person's `user:` hash per table offered
BODY = 1024  # Meta's limit on an interactive message's body
DISPLAY_TEXT = 20  # … and on a cta_url button's text

OPEN = _("🖼 Open the table")
NO_LINKS = _("The table's picture cannot be opened here yet.")
NO_TABLE = _("You are not at a table now: type “play” to start a game.")


@dataclass(frozen=True)
class ViewLinks:
    """Links to the view, signed for one person and table (`access`), at `public_url`."""

    access: ViewAccess
    public_url: str

    def url(self, person: int, room_id: str) -> str | None:
        """A fresh link to the person's view of the table (None: links are off)."""
        token = self.access.link(person, room_id)
        return None if token is None else f"{self.public_url.rstrip('/')}/view#l={token}"

    @property
    def minutes(self) -> int:
        return max(1, self.access.link_ttl // 60)


def links_of(
    client: redis.Redis, settings: Settings, clock: Callable[[], float] = time.time
) -> ViewLinks | None:
    """The view's links with these settings, signed at `clock`'s time (the service's);
    None unless both a public URL and a link secret are set."""
    secret = settings.view_link_secret
    if not settings.public_url or secret is None or not secret.get_secret_value():
        return None
    token = settings.telegram_token.get_secret_value() if settings.telegram_token else ""
    access = replace(ViewAccess.of(client, settings, token), clock=clock)
    return ViewLinks(access, settings.public_url)


def cta(url: str, table: str, minutes: int, lang: str) -> dict[str, Any]:
    """The call-to-action message: what the link shows, and its button."""
    tr = Translator(lang)
    told = tr.ngettext(
        "🖼 {table}: the table as you see it, your cards included. The link is yours alone "
        "and lasts {n} minute; for a new one, tap 🖼 Table or type “table”.",
        "🖼 {table}: the table as you see it, your cards included. The link is yours alone "
        "and lasts {n} minutes; for a new one, tap 🖼 Table or type “table”.",
        minutes,
        table=table,
    )
    body = short(told, BODY)
    return {
        "type": "interactive",
        "interactive": {
            "type": "cta_url",
            "body": {"text": body},
            "action": {
                "name": "cta_url",
                "parameters": {"display_text": short(tr.gettext(OPEN), DISPLAY_TEXT), "url": url},
            },
        },
    }


def row_id(room_id: str) -> str:
    return f"{ROW_PREFIX}{room_id}"


def asked_room(data: str) -> str | None:
    """The table a tapped row or button asks the view of, if it is one of ours."""
    found = _ROW.match(data)
    return None if found is None else found[1]


def view_of(screen: Screen) -> tuple[str, str] | None:
    """The screen's "🖼 Table" button, as (its label, its table), if it has one."""
    for row in screen.rows:
        for button in row:
            if isinstance(button.intent, OpenView):
                return button.label, button.intent.room
    return None


def with_row(message: dict[str, Any], screen: Screen) -> dict[str, Any]:
    """The rendered screen with its "🖼 Table" button as one more reply button or list row,
    where one fits beside the moves (never a move left out for it)."""
    view = view_of(screen)
    if view is None or message.get("type") != "interactive":
        return message
    label, room = view
    inner = message["interactive"]
    action = inner["action"]
    if inner["type"] == "button" and len(action["buttons"]) < MAX_REPLY_BUTTONS:
        titles = {b["reply"]["title"] for b in action["buttons"]}
        title = short(label, BUTTON_TITLE)
        if title not in titles:  # titles must be unique
            button = {"type": "reply", "reply": {"id": row_id(room), "title": title}}
            action["buttons"] = [*action["buttons"], button]
    elif inner["type"] == "list" and sum(len(s["rows"]) for s in action["sections"]) < MAX_ROWS:
        add_row(action["sections"], {"id": row_id(room), "title": short(label, ROW_TITLE)})
    return message


def add_row(sections: list[dict[str, Any]], row: dict[str, str]) -> None:
    """The row, last: in the list's one section, or its section of other moves (a new
    one if none; a list of more than one section titles each)."""
    if len(sections) == 1 and "title" not in sections[0]:
        sections[0]["rows"].append(row)
        return
    others = next((s for s in sections if s.get("title") == OTHER), None)
    if others is None:
        sections.append({"title": OTHER, "rows": [row]})
    else:
        others["rows"].append(row)


def offered(client: redis.Redis, person: int, room_id: str) -> bool:
    """Whether the person was offered this table's view already."""
    return bool(client.hexists(user_key(person), OFFERED + room_id))


def note_offered(client: redis.Redis, person: int, room_id: str) -> bool:
    """Note the offer (a field of the person's record: forgetting them forgets it, and
    it lapses with it); False if another process noted it first."""
    return bool(client.hsetnx(user_key(person), OFFERED + room_id, "1"))


def answer(
    svc: Services, sending: Sending, links: ViewLinks | None, sender: Sender, room_id: str | None
) -> None:
    """The view's message, asked for now: of `room_id`, else of the person's current
    table; else a line saying why not."""
    lang = sending.lang(sender)
    tr = Translator(lang)
    if links is None:
        sending.reply(sender, Reply.say(tr.gettext(NO_LINKS)))
        return
    room = table_for(svc, sender.player, room_id)
    url = None if room is None else links.url(sender.player, room.id)
    if room is None or url is None:
        sending.reply(sender, Reply.say(tr.gettext(NO_TABLE)))
        return
    sending.content(sender, cta(url, table_name(room, tr), links.minutes, lang))


def table_for(svc: Services, player: int, room_id: str | None) -> Room | None:
    """The table asked for (a row names it; a word means the current one), if the person
    has a seat there: a link for a table they are not at is no link of theirs."""
    if room_id is None:
        current = current_prompt(svc, player)
        room = None if current is None else current[0]
    else:
        room = svc.store.load(room_id)
    return room if room is not None and room.seat_of(player) is not None else None
