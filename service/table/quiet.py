"""Quiet hours: a group's night window, in its time zone, when reminders wait.

Moves and timeouts never wait; only the nudges do.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from service.table import zones
from service.table.room import RoomSettings

TIMEZONES = (
    "UTC",
    "Europe/Madrid",
    "Europe/Lisbon",
    "America/Sao_Paulo",
    "America/Mexico_City",
    "Asia/Jakarta",
    "Asia/Kolkata",
)
WINDOWS: tuple[tuple[int, int] | None, ...] = (None, (22, 8), (23, 9), (21, 7))


def quiet_until(settings: RoomSettings, now: float) -> float | None:
    """The end of the quiet window if `now` falls inside it, else None."""
    if settings.quiet_hours is None:
        return None
    start, end = settings.quiet_hours
    local = datetime.fromtimestamp(now, zones.tz(settings.timezone))
    hour = local.hour
    inside = start <= hour or hour < end if start > end else start <= hour < end
    if not inside:
        return None
    ends = local.replace(hour=end, minute=0, second=0, microsecond=0)
    if ends <= local:
        ends += timedelta(days=1)
    return ends.timestamp()
