"""A moment as its reader's local time, naming the zone: "18:00 (São Paulo)".

Every time a screen shows goes through `when`: a deadline in a person's own screen in
their zone, a group's table in the group's (service.table.zones holds the zones).
A deadline a screen shows is `moment`: those words, marked (service.ui.spans) so that
where a platform can (Telegram's `date_time` entity) each reader sees the moment in
their own zone; elsewhere (WhatsApp) the words stay as they are.
"""

from __future__ import annotations

from datetime import datetime

from service.i18n import Translator, _
from service.table import zones
from service.ui import spans


def when(at: float, zone: str, tr: Translator) -> str:
    """`at` (seconds since 1970) as hours and minutes in `zone`, with the zone's name."""
    local = datetime.fromtimestamp(at, zones.tz(zone))
    # TRANSLATORS: a time of day and the place whose time it is, as "18:00 (São Paulo)"
    return tr.gettext(_("{time} ({zone})"), time=f"{local:%H:%M}", zone=zones.label(zone))


def moment(at: float, zone: str, tr: Translator) -> str:
    """`when`'s words, marked as the moment `at` for each reader's own zone."""
    return spans.moment(at, when(at, zone, tr))
