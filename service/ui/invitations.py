"""What an invitation that did not work tells the person who gave it: someone followed a
link to their game against bots, which seats nobody (a link shared before family tables
had links of their own), and was not seated."""

from __future__ import annotations

from service.i18n import Translator, _
from service.table.names import clean, shown
from service.ui.screens import Screen


def knocked(lang: str, visitor: str) -> Screen:
    """Told to a game's owner: `visitor` (their name as kept) followed its link."""
    words = _(
        "🔒 {name} followed a link to your game against the bots, but nobody can join "
        "that game: they were not seated. To play with them, open a family table and "
        "send them its link."
    )
    tr = Translator(lang)
    name = shown(clean(visitor, "")) or tr.gettext(_("Someone"))
    return Screen(tr.gettext(words, name=name))
