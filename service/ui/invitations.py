"""What an invitation that did not work tells the person who gave it: someone followed a
link to their table and was not seated: it was their game against bots, which seats
nobody (a link shared before family tables had links of their own), or its game had
started, was full, or was over."""

from __future__ import annotations

from service.i18n import Translator, _
from service.table import targets
from service.table.names import clean, shown
from service.ui.screens import Screen

WHY = {
    targets.PRIVATE: _(
        "🔒 {name} followed a link to your game against the bots, but nobody can join "
        "that game: they were not seated. To play with them, open a family table and "
        "send them its link."
    ),
    targets.STARTED: _(
        "🔒 {name} followed your table's link, but its game had already started: they "
        "were not seated. For the next game, send them the link of your next table."
    ),
    targets.FULL: _(
        "🔒 {name} followed your table's link, but the table was full: they were not seated."
    ),
    targets.OVER: _(
        "🔒 {name} followed the link of a table of yours whose game is over: they were "
        "not seated. To play with them, send them the link of your next table."
    ),
}


def knocked(lang: str, visitor: str, why: str = targets.PRIVATE) -> Screen:
    """Told to a table's owner: `visitor` (their name as kept) followed its link and
    was not seated (`why`, service.table.targets.knock)."""
    words = WHY.get(why, WHY[targets.PRIVATE])
    tr = Translator(lang)
    name = shown(clean(visitor, "")) or tr.gettext(_("Someone"))
    return Screen(tr.gettext(words, name=name))
