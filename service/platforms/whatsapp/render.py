"""A screen as a WhatsApp message: text, and a control sized to its buttons.

Meta's limits, in UTF-16 code units as Meta counts them (an emoji past the BMP is two;
cloud-api/guides/send-message-types/interactive-*-messages): reply
buttons at most 3, titles at most 20 characters and unique, ids at most 256; a list has
one opening button (20), at most 10 rows in all, row titles 24, ids 200, and a title
per section when it has more than one; an interactive body at most 1024 characters.

    buttons ≤ 3      reply buttons
    4 – 10           a list; cards in sections by suit, other moves in their own
    more             cards: a list of suits first, each opening its cards (a `Pick`);
                     other screens (settings): pages of 9 and a "more" row

A button's id is the press's short text (service.ui.tokens), so a tap decodes as a
Telegram press does and an old prompt's tap is refused as stale by the table. The ids
of the rows that only open a part of the screen are `Pick`s (`pick_id`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from service.i18n import Translator, _
from service.platforms.base import Rendered
from service.ui import tokens
from service.ui.intents import Move, NotPlayable, Press
from service.ui.screens import Button, Screen

MAX_BODY = 1024
MAX_REPLY_BUTTONS = 3
MAX_ROWS = 10
BUTTON_TITLE = 20
ROW_TITLE = 24
SECTION_TITLE = 24
OTHER = "⋯"  # the section of a list's moves that are not cards
_CARD = re.compile(r"^(play|pass):((?:10|[2-9AJQK])[SHDC]|JK)$")
_SPANISH_WORDS = re.compile(r"^\S+\s+(?:(?:de|of|dari)\s+)?(.+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Pick:
    """A row that opens part of a screen drawn at `version` of `room`: the cards of one
    suit (`part` a suit letter), or a page of its buttons (`part` the page number)."""

    room: str
    version: int
    part: str


def pick_id(pick: Pick) -> str:
    return f"pick:{pick.part}:{pick.room}.{pick.version}"


def pick_of(data: str) -> Pick | None:
    found = re.match(r"^pick:([SHDC]|\d{1,2}):([a-z0-9]{8})\.(\d{1,9})$", data)
    return None if found is None else Pick(found[2], int(found[3]), found[1])


def pressable(screen: Screen) -> list[tuple[Button, Press]]:
    """The screen's buttons a WhatsApp person can press (no inline list, no link to a
    private chat: every chat is private here; no "not playable" card)."""
    return [
        (button, button.intent)
        for row in screen.rows
        for button in row
        if isinstance(button.intent, Press) and not isinstance(button.intent.what, NotPlayable)
    ]


def suit_of(press: Press) -> str | None:
    """The suit letter of a card move, else None."""
    if not isinstance(press.what, Move):
        return None
    found = _CARD.match(press.what.action)
    return found[2][-1] if found and found[2] != "JK" else None


def render(screen: Screen, lang: str, part: str | None = None) -> Rendered:
    """The screen as one message's content (`type` and its object); `part` picks a suit
    or page of a screen too big for one list."""
    tr = Translator(lang)
    buttons = pressable(screen)
    body = fit_body(screen.text)
    if part is not None and part.isdigit() and buttons:
        return listed(body, tr, [(OTHER, page_rows(buttons, int(part)))])
    if part is not None:
        buttons = [(b, p) for b, p in buttons if suit_of(p) == part]
    if not buttons:
        return {"type": "text", "text": {"body": short(screen.text, 4096) or "…"}}
    if len(buttons) <= MAX_REPLY_BUTTONS:
        return reply_buttons(body, buttons)
    if len(buttons) <= MAX_ROWS:
        return listed(body, tr, sections_of(buttons))
    return listed(body, tr, overview(buttons, tr))


def fit_body(text: str) -> str:
    """The text within an interactive body: the oldest lines go first (the hand and
    the prompt are at the bottom)."""
    lines = text.split("\n")
    while units("\n".join(lines)) > MAX_BODY and len(lines) > 1:
        lines.pop(0)
    body = "\n".join(lines)
    while units(body) > MAX_BODY:
        body = body[1:]
    return body or "…"


def units(text: str) -> int:
    """A length as Meta counts it: UTF-16 code units (an emoji past the BMP is two)."""
    return len(text.encode("utf-16-le")) // 2


def short(title: str, limit: int) -> str:
    """The title within `limit` units, cut with … when it is longer."""
    if units(title) <= limit:
        return title
    while title and units(title) > limit - 1:
        title = title[:-1]
    return title + "…"


def unique(titles: list[str], limit: int) -> list[str]:
    """Titles within `limit`, made unique (WhatsApp refuses two the same)."""
    out: list[str] = []
    for title in titles:
        candidate, n = short(title, limit), 2
        while candidate in out:
            suffix = f" {n}"
            candidate, n = short(title, limit - units(suffix)) + suffix, n + 1
        out.append(candidate)
    return out


def reply_buttons(body: str, buttons: list[tuple[Button, Press]]) -> Rendered:
    titles = unique([b.label for b, _p in buttons], BUTTON_TITLE)
    return {
        "type": "interactive",
        "interactive": {
            "type": "button",
            "body": {"text": body},
            "action": {
                "buttons": [
                    {"type": "reply", "reply": {"id": tokens.text(p), "title": t}}
                    for (_b, p), t in zip(buttons, titles, strict=True)
                ]
            },
        },
    }


Row = tuple[str, str, str]  # id, title, description
Section = tuple[str, list[Row]]


def sections_of(buttons: list[tuple[Button, Press]]) -> list[Section]:
    """Cards by suit (in the screen's order), then the other moves."""
    titles = unique([b.label for b, _p in buttons], ROW_TITLE)
    rows = [
        (suit_of(p), (tokens.text(p), t, "")) for (_b, p), t in zip(buttons, titles, strict=True)
    ]
    cards = [(s, r) for s, r in rows if s is not None]
    others = [r for s, r in rows if s is None]
    labels = {suit_of(p): b.label for b, p in buttons}
    by_suit: dict[str, list[Row]] = {}  # in the order the suits first come
    for suit, row in cards:
        by_suit.setdefault(suit, []).append(row)
    sections: list[Section] = [(suit_title(labels[suit]), rows) for suit, rows in by_suit.items()]
    if others:
        sections.append((OTHER, others))
    return sections


def suit_title(label: str) -> str:
    """A section's title from one of its cards' labels: `♥` of `10♥`, `oros` of
    `As de oros`."""
    if label and label[-1] in "♠♥♦♣":
        return label[-1]
    found = _SPANISH_WORDS.match(label)
    return short((found[1] if found else label).capitalize(), SECTION_TITLE)


def overview(buttons: list[tuple[Button, Press]], tr: Translator) -> list[Section]:
    """A list for more buttons than one list holds: the suits (each row opens its
    cards) and the other moves; a screen without cards is paged."""
    first = buttons[0][1]
    suits = [suit for suit, _n in groupby(suit_of(p) for _b, p in buttons) if suit]
    others = [(b, p) for b, p in buttons if suit_of(p) is None]
    if suits and len(suits) + len(others) <= MAX_ROWS:
        rows: list[Row] = []
        for suit in dict.fromkeys(suits):
            members = [b for b, p in buttons if suit_of(p) == suit]
            pick = pick_id(Pick(first.room, first.version, suit))
            count = tr.ngettext("{n} card", "{n} cards", len(members))
            rows.append((pick, suit_title(members[0].label), count))
        sections: list[Section] = [(tr.gettext(_("Your cards")), rows)]
        if others:
            sections.append((OTHER, sections_of(others)[0][1]))
        return sections
    return [(OTHER, page_rows(buttons, 0))]


def page_rows(buttons: list[tuple[Button, Press]], page: int) -> list[Row]:
    """Page `page` of the buttons: 9 rows, and one to the next page if there is one."""
    size = MAX_ROWS - 1
    shown = buttons[page * size : (page + 1) * size]
    titles = unique([b.label for b, _p in shown], ROW_TITLE)
    rows: list[Row] = [(tokens.text(p), t, "") for (_b, p), t in zip(shown, titles, strict=True)]
    if len(buttons) > (page + 1) * size:
        first = buttons[0][1]
        rows.append((pick_id(Pick(first.room, first.version, str(page + 1))), "➡️ …", ""))
    return rows


def listed(body: str, tr: Translator, sections: list[Section]) -> Rendered:
    many = len(sections) > 1
    return {
        "type": "interactive",
        "interactive": {
            "type": "list",
            "body": {"text": body},
            "action": {
                "button": short(tr.gettext(_("Choose")), BUTTON_TITLE),
                "sections": [section(title, rows, many) for title, rows in sections],
            },
        },
    }


def section(title: str, rows: list[Row], titled: bool) -> dict[str, Any]:
    found: dict[str, Any] = {
        "rows": [{"id": id_, "title": t} | ({"description": d} if d else {}) for id_, t, d in rows]
    }
    return ({"title": short(title, SECTION_TITLE)} if titled else {}) | found
