"""A screen as a WhatsApp message: text, and a control sized to its buttons.

Meta's limits, in UTF-16 code units as Meta counts them (an emoji past the BMP is two;
cloud-api/guides/send-message-types/interactive-*-messages): reply
buttons at most 3, titles at most 20 characters and unique, ids at most 256; a list has
one opening button (20), at most 10 rows in all, row titles 24, ids 200, and a title
per section when it has more than one; an interactive body at most 1024 characters.

    buttons ≤ 3      reply buttons
    4 – 10           a list; cards in sections by suit, other moves in their own
    more             cards: the same list with the smallest suits folded, each into
                     one row that opens its cards (a `Pick`, a second message only
                     then); other screens (settings): pages of 9 and a "more" row

A button's id is the press's short text (service.ui.tokens), so a tap decodes as a
Telegram press does and an old prompt's tap is refused as stale by the table. The ids
of the rows that only open a part of the screen are `Pick`s (`pick_id`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from service.i18n import Translator, _
from service.platforms.base import Rendered
from service.ui import tokens
from service.ui.intents import Command, Move, NotPlayable, Press
from service.ui.screens import Button, Screen

MAX_BODY = 1024
MAX_REPLY_BUTTONS = 3
MAX_ROWS = 10
BUTTON_TITLE = 20
ROW_TITLE = 24
ROW_DESCRIPTION = 72
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
    private chat: every chat is private here; no "not playable" card; no whole story's
    button: a list's rows are for moves, and the word `historia` asks for it)."""
    return [
        (button, button.intent)
        for row in screen.rows
        for button in row
        if isinstance(button.intent, Press)
        and not isinstance(button.intent.what, NotPlayable)
        and button.intent.what != Command("story")
    ]


def room_of(screen: Screen) -> str | None:
    """The room whose buttons the screen holds (a turn's prompt has some), if any."""
    return next((press.room for _button, press in pressable(screen)), None)


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
        return listed(prompt_line(screen.text), tr, [(OTHER, page_rows(buttons, int(part)))])
    if part is not None:  # only what the row opens: the table was shown just above
        buttons = [(b, p) for b, p in buttons if suit_of(p) == part]
        if len(buttons) > MAX_ROWS:  # one suit longer than a list: every move, paged
            return render(screen, lang, part="0")
        body = opened(buttons, tr) if buttons else body
    if not buttons:
        return {"type": "text", "text": {"body": short(screen.text, 4096) or "…"}}
    if len(buttons) <= MAX_REPLY_BUTTONS:
        return reply_buttons(body, buttons)
    folded = folds(buttons)
    if folded is None:
        return listed(body, tr, [(OTHER, page_rows(buttons, 0))])
    return listed(body, tr, sections_of(buttons, tr, folded))


def opened(buttons: list[tuple[Button, Press]], tr: Translator) -> str:
    """A folded suit's message: its name and count, as its row said (`Oros · 4 cards`)."""
    count = tr.ngettext("{n} card", "{n} cards", len(buttons))
    return f"{suit_title(buttons[0][0].label)} · {count}"


def prompt_line(text: str) -> str:
    """A screen's last line (what it asks), for a page of its buttons shown alone."""
    lines = [line for line in text.split("\n") if line.strip()]
    return short(lines[-1], MAX_BODY) if lines else "…"


CUT = "…"  # where a body's lines were cut away to fit: nothing goes unannounced


def fit_body(text: str) -> str:
    """The text within an interactive body: the title line kept, then the oldest lines
    go first (the story's; the hand and the prompt are at the bottom), their place
    marked `CUT` (the whole story is a word away: service.desk.reading)."""
    if units(text) <= MAX_BODY:
        return text
    title, *lines = text.split("\n")
    while lines and units("\n".join([title, CUT, *lines])) > MAX_BODY:
        lines.pop(0)
    body = "\n".join([title, CUT, *lines]) if lines else text
    while units(body) > MAX_BODY:
        body = body[1:]
    return body or CUT


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


def folds(buttons: list[tuple[Button, Press]]) -> frozenset[str] | None:
    """The suits to fold so that one list holds every move: none when it does already,
    else the smallest suits first (the fewest cards a second message away; a suit of
    one card folds into nothing shorter). None when even every suit folded is too many
    rows (a screen of other buttons: it is paged)."""
    sizes = Counter(suit for suit in (suit_of(p) for _b, p in buttons) if suit)
    rows, folded = len(buttons), set()
    for suit, size in sorted(sizes.items(), key=lambda item: item[1]):  # stable: ties in order
        if rows <= MAX_ROWS:
            break
        if size > 1:
            folded.add(suit)
            rows -= size - 1
    return frozenset(folded) if rows <= MAX_ROWS else None


def sections_of(
    buttons: list[tuple[Button, Press]], tr: Translator, folded: frozenset[str] = frozenset()
) -> list[Section]:
    """Cards by suit (in the screen's order), a `folded` suit as one row that opens its
    cards; then the other moves."""
    titles = unique([b.label for b, _p in buttons], ROW_TITLE)
    by_suit: dict[str, list[tuple[Button, Press, str]]] = {}  # in the order suits come
    others: list[Row] = []
    for (button, press), title in zip(buttons, titles, strict=True):
        suit = suit_of(press)
        if suit is None:
            others.append((tokens.text(press), title, ""))
        else:
            by_suit.setdefault(suit, []).append((button, press, title))
    sections: list[Section] = []
    for suit, members in by_suit.items():
        rows = [(tokens.text(p), t, "") for _b, p, t in members]
        if suit in folded:
            rows = [folded_row(suit, [b for b, _p, _t in members], members[0][1], tr)]
        sections.append((suit_title(members[0][0].label), rows))
    if others:
        sections.append((OTHER, others))
    return sections


def folded_row(suit: str, cards: list[Button], first: Press, tr: Translator) -> Row:
    """A suit's cards as one row: its name and count, the ranks below; a tap opens it."""
    count = tr.ngettext("{n} card", "{n} cards", len(cards))
    title = short(f"{suit_title(cards[0].label)} · {count}", ROW_TITLE)
    ranks = " · ".join(rank_of(card.label) for card in cards)
    return pick_id(Pick(first.room, first.version, suit)), title, short(ranks, ROW_DESCRIPTION)


def rank_of(label: str) -> str:
    """A card's rank as its label names it: `10` of `10♥`, `Caballo` of `Caballo de
    copas`."""
    if label and label[-1] in "♠♥♦♣":
        return label[:-1]
    return label.split()[0] if label.split() else label


def suit_title(label: str) -> str:
    """A section's title from one of its cards' labels: `♥` of `10♥`, `oros` of
    `As de oros`."""
    if label and label[-1] in "♠♥♦♣":
        return label[-1]
    found = _SPANISH_WORDS.match(label)
    return short((found[1] if found else label).capitalize(), SECTION_TITLE)


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
