"""The view's words (#39), translated here and handed to the page, which writes none of
its own: its labels and messages, why a view was refused, and the rules and tips that
sit behind its "?" button."""

from __future__ import annotations

from engine.registry import find_game
from service.access.checks import Refusal
from service.i18n import LANGUAGES, Translator, _
from service.table.play import STALE
from service.table.room import Room
from service.ui import games, hints

# The page's own words, by the name page.js reads them under.
PAGE: dict[str, str] = {
    "help": _("Rules and tips"),
    "close": _("Back to the table"),
    "rules": _("Rules"),
    "tips": _("Tips"),
    "live": _("Up to date."),
    "lost": _("Connection lost: trying again…"),
    "expired": _("This view has expired: open it again from the chat."),
    "over": _("This game is over: a new one starts from the chat."),
    "gone": _("This table is closed: open the game again from the chat."),
    "busy": _("Not sent: try again."),
    "stale": _("The table changed meanwhile: look again, then choose."),
}

# Why a view was not opened, or stopped: what the page says (never the bare reason).
REFUSED: dict[str, str] = {
    Refusal.MALFORMED: _("This link is not valid: open the table again from the chat."),
    Refusal.UNSIGNED: _("This link is not valid: open the table again from the chat."),
    Refusal.FORGED: _("This link is not valid: open the table again from the chat."),
    Refusal.NO_USER: _("This link is not valid: open the table again from the chat."),
    Refusal.TOO_OLD: _("This view has expired: open it again from the chat."),
    Refusal.EXPIRED: _("This view has expired: open it again from the chat."),
    Refusal.FUTURE: _("Your device's clock is ahead: set it right, then open the table again."),
    Refusal.REVOKED: _("This link no longer works: open the table again from the chat."),
    Refusal.NO_LINKS: _("This server shows no tables."),
    "no_table": _("Open the table from its chat: this page was given none."),
    "gone": _("This table is closed: open the game again from the chat."),
}


def refused(reason: str, tr: Translator) -> str:
    return tr.gettext(REFUSED.get(reason, REFUSED[Refusal.MALFORMED]))


def page_words(tr: Translator) -> dict[str, str]:
    return {name: tr.gettext(text) for name, text in PAGE.items()}


def tips(room: Room, tr: Translator) -> list[str]:
    """The hints of the room's game, each on a line, as a newcomer's hand shows them one
    at a time (service.ui.hints)."""
    family = find_game(room.settings.preset)[0].name + ":"
    return [hints.hint_line(name, tr) for name in hints.ORDER if name.startswith(family)]


def help_texts(room: Room, lang: str, bot_username: str) -> dict[str, object]:
    """What the page's "?" shows: the table's rules, and the game's tips."""
    painter = games.painter(room, lang, bot_username)
    return {"rules": painter.rules_text(), "tips": tips(room, painter.tr)}


# The desk's words for a stale press, in every language: the chat's ("use the newest
# message") told the view's way (the table redraws itself; it has no messages).
_STALE_WORDS = frozenset(Translator(lang).gettext(STALE) for lang in LANGUAGES)


def for_the_view(popup: str | None, tr: Translator) -> str | None:
    """A press's answer in the view's words."""
    return tr.gettext(PAGE["stale"]) if popup in _STALE_WORDS else popup
