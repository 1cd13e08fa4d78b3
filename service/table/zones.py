"""Time zones of people and tables, as text: an IANA name (`America/Sao_Paulo`) or a
fixed offset (`UTC-03:00`).

WhatsApp gives no time zone, so a person's first one comes from their number's
country (`of_number`); a country of several zones gets its most populous one, and
every time shown names its zone, so the guess is plain to see and easy to change: a
person names theirs (`named`) by a city, a zone, a UTC offset, or the time it is now
where they are.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

DEFAULT = "UTC"
# The zone of a country's most people (Brazil, Indonesia and Mexico have several).
COUNTRY_ZONES = {
    "BR": "America/Sao_Paulo",
    "PT": "Europe/Lisbon",
    "ES": "Europe/Madrid",
    "ID": "Asia/Jakarta",
    "MX": "America/Mexico_City",
    "AR": "America/Argentina/Buenos_Aires",
}
# Phone country codes of the same countries.
PHONE_COUNTRIES = {"55": "BR", "351": "PT", "34": "ES", "62": "ID", "52": "MX", "54": "AR"}
# Zones by the names people give them that are no IANA city (local spellings, countries).
ALIASES = {
    "lisboa": "Europe/Lisbon",
    "portugal": "Europe/Lisbon",
    "espana": "Europe/Madrid",
    "spain": "Europe/Madrid",
    "brasil": "America/Sao_Paulo",
    "brazil": "America/Sao_Paulo",
    "brasilia": "America/Sao_Paulo",
    "rio": "America/Sao_Paulo",
    "rio de janeiro": "America/Sao_Paulo",
    "belo horizonte": "America/Sao_Paulo",
    "mexico": "America/Mexico_City",
    "ciudad de mexico": "America/Mexico_City",
    "cdmx": "America/Mexico_City",
    "argentina": "America/Argentina/Buenos_Aires",
    "indonesia": "Asia/Jakarta",
    "yakarta": "Asia/Jakarta",
    "bali": "Asia/Makassar",
    "papua": "Asia/Jayapura",
    "canarias": "Atlantic/Canary",
    "azores": "Atlantic/Azores",
    "acores": "Atlantic/Azores",
}
# How a zone reads in a time ("18:00 (São Paulo)"), where its IANA city is spelt otherwise.
LABELS = {
    "America/Sao_Paulo": "São Paulo",
    "Europe/Lisbon": "Lisboa",
    "America/Mexico_City": "Ciudad de México",
    "America/Argentina/Buenos_Aires": "Buenos Aires",
    "Atlantic/Azores": "Açores",
}
# "UTC+5", "gmt-03:30", "+2", "-3": a sign is needed (a bare number is a time of day).
OFFSET = re.compile(r"^(?:utc|gmt)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?$")
# "18", "18:30", "18h", "6:30": the time it is now where the person is (a bare hour up
# to MAX_OFFSET could be an offset that lost its sign: it needs its minutes or an "h").
MAX_OFFSET = 14
TIME_OF_DAY = re.compile(r"^(\d{1,2})(?:[:h.](\d{2}))?h?$")
# Signs spelt as words (a platform may keep no "+" or "-" of what was typed).
SIGN_WORDS = {
    **dict.fromkeys(["menos", "minus", "kurang"], "-"),
    **dict.fromkeys(["mas", "mais", "plus", "tambah"], "+"),
}


def of_number(bsuid: str | None, phone: str | None) -> str:
    """The zone of a WhatsApp person's country (their BSUID's prefix, else their phone's
    country code), else UTC."""
    country = (bsuid or "").split(".", 1)[0]
    if country in COUNTRY_ZONES:
        return COUNTRY_ZONES[country]
    for code in sorted(PHONE_COUNTRIES, key=len, reverse=True):
        if phone and phone.startswith(code):
            return COUNTRY_ZONES[PHONE_COUNTRIES[code]]
    return DEFAULT


def tz(zone: str) -> tzinfo:
    """The tzinfo of a zone as stored; UTC for one we cannot read."""
    found = OFFSET.match(zone.lower())
    if found:
        return timezone(offset_of(found[1], found[2], found[3] or "0"))
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def label(zone: str) -> str:
    """A zone as people read it: its city ("São Paulo"), or its offset ("UTC-3")."""
    if zone in LABELS:
        return LABELS[zone]
    found = OFFSET.match(zone.lower())
    if found:
        minutes = f":{found[3]}" if found[3] and found[3] != "00" else ""
        return f"UTC{found[1]}{int(found[2])}{minutes}"
    return zone.rsplit("/", 1)[-1].replace("_", " ")


def named(said: str, now: float) -> str | None:
    """The zone a person names: a city or a zone ("Lisboa", "America/Recife"), a UTC
    offset ("UTC-3", "menos 3"), or the time it is now where they are ("18:30", read
    against `now`); None for words that name none."""
    words = plain(said)
    for word, sign in SIGN_WORDS.items():
        words = re.sub(rf"\b{word}\b\s*", sign, words)
    if words in ("utc", "gmt", "z"):
        return DEFAULT
    offset = OFFSET.match(words)
    if offset:
        return fixed(offset_of(offset[1], offset[2], offset[3] or "0"))
    local = TIME_OF_DAY.match(words)
    if local and (local[2] or "h" in words or int(local[1]) > MAX_OFFSET):
        return by_time_of_day(int(local[1]), int(local[2] or 0), now)
    if local:
        return None  # "3": 3 o'clock, or an offset whose sign was lost ("-3")? ask again
    return ALIASES.get(words) or by_city().get(words.replace(" ", "_"))


def plain(text: str) -> str:
    """Lower case without accents, spaces collapsed."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


def offset_of(sign: str, hours: str, minutes: str) -> timedelta:
    span = timedelta(hours=int(hours), minutes=int(minutes))
    return -span if sign == "-" else span


def fixed(offset: timedelta) -> str | None:
    """A fixed offset's zone ("UTC+05:30"), within the offsets there are."""
    if not timedelta(hours=-12) <= offset <= timedelta(hours=14):
        return None
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours:02d}:{rest:02d}"


def by_time_of_day(hour: int, minute: int, now: float) -> str | None:
    """The offset at which it is `hour:minute` now (to the nearest quarter hour)."""
    if hour > 23 or minute > 59:
        return None
    utc = datetime.fromtimestamp(now, UTC)
    minutes = (hour * 60 + minute) - (utc.hour * 60 + utc.minute)
    minutes = (minutes + 12 * 60) % (24 * 60) - 12 * 60  # within a day either way
    quarters = round(minutes / 15)
    return fixed(timedelta(minutes=15 * quarters))


@cache
def by_city() -> dict[str, str]:
    """Every IANA zone by its full name and by its city, lower case; a city in two
    regions keeps the one sorted first (the canonical names come before old ones)."""
    cities: dict[str, str] = {}
    for zone in sorted(available_timezones()):
        cities.setdefault(zone.lower(), zone)
        if "/" in zone:
            cities.setdefault(zone.rsplit("/", 1)[-1].lower(), zone)
    return cities
