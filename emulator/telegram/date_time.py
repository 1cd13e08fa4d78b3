"""`date_time` entities as a reader's app shows them: in that reader's time zone.

A date_time entity carries `unix_time` and `date_time_format`: "r" (relative: "in 3
hours"), or any of "w" (day of the week), "d"/"D" (short/long date), "t"/"T"
(short/long time), shown in the order day of the week, time, date; "" keeps the text
as the bot wrote it. Apps follow the user's locale; the emulator shows English.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from emulator.telegram.formatting import utf16_len

DEFAULT_ZONE = "UTC"
_UNITS = (("day", 86400), ("hour", 3600), ("minute", 60))


def valid_zone(name: str) -> str:
    """The IANA zone name, checked (ValueError for one the system does not know)."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}") from None
    return name


def relative(unix_time: int, now: int) -> str:
    """ "in 3 hours", "5 minutes ago", "now"."""
    delta = unix_time - now
    for unit, seconds in _UNITS:
        count = abs(delta) // seconds
        if count:
            words = f"{count} {unit}{'s' if count != 1 else ''}"
            return f"in {words}" if delta > 0 else f"{words} ago"
    return "now"


def render(unix_time: int, date_time_format: str, zone: str, now: int) -> str | None:
    """The entity's text in that zone; None when the format keeps the written text."""
    if not date_time_format:
        return None
    if date_time_format == "r":
        return relative(unix_time, now)
    moment = datetime.fromtimestamp(unix_time, UTC).astimezone(ZoneInfo(zone))
    parts = []
    if "w" in date_time_format:
        parts.append(moment.strftime("%A"))
    if "t" in date_time_format:
        parts.append(moment.strftime("%H:%M"))
    if "T" in date_time_format:
        parts.append(moment.strftime("%H:%M:%S %Z"))
    if "d" in date_time_format:
        parts.append(moment.strftime("%d/%m/%Y"))
    if "D" in date_time_format:
        parts.append(f"{moment.day} {moment.strftime('%B %Y')}")
    return ", ".join(parts)


def text_view(view: dict[str, Any], zone: str, now: int) -> str:
    """A message's text (or caption) with its date_time entities shown in `zone`."""
    text: str = view.get("text") or view.get("caption") or ""
    entities = view.get("entities") if "text" in view else view.get("caption_entities")
    units = text.encode("utf-16-le")
    out, cursor = [], 0
    for entity in sorted(entities or [], key=lambda e: e["offset"]):
        if entity.get("type") != "date_time" or entity["offset"] < cursor:
            continue
        shown = render(
            int(entity.get("unix_time", 0)), str(entity.get("date_time_format", "")), zone, now
        )
        if shown is None:
            continue
        start, end = entity["offset"] * 2, (entity["offset"] + entity["length"]) * 2
        out += [units[cursor * 2 : start].decode("utf-16-le"), shown]
        cursor = end // 2
    out.append(units[cursor * 2 :].decode("utf-16-le"))
    return "".join(out) if utf16_len(text) else ""
