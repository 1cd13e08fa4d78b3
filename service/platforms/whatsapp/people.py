"""WhatsApp people as Burro players.

Meta names a person by their business-scoped user id (BSUID, `BR.1502576394655843`,
the `user_id` of the webhooks' contacts); the phone number (`wa_id`) may be absent,
for a person who took a username. We key people by the BSUID and give each a player
id of ours: an int above every Telegram user id (Telegram's have at most 52 bits), so
the table's rooms, seats and chat targets hold players of every platform alike and a
table may mix them. The person's own data lives in `user:<player id>` as a Telegram
user's does (its name, language, and here the BSUID and the phone when known).
"""

from __future__ import annotations

import re

import redis

from service.infra.store import text

BASE = 1 << 52  # player ids from here on are WhatsApp people's
_NEXT = "wa:next"
BSUID = re.compile(r"^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$")
# A person's language before they choose one: WhatsApp tells none, so the country of
# their BSUID (or of their phone number) says it.
COUNTRY_LANGS = {"BR": "pt_BR", "PT": "pt_PT", "ES": "es", "ID": "id", "MX": "es", "AR": "es"}
PHONE_LANGS = {"55": "pt_BR", "351": "pt_PT", "34": "es", "62": "id", "52": "es", "54": "es"}


def is_whatsapp(player_id: int) -> bool:
    return player_id >= BASE


def key_of(bsuid: str) -> str:
    return f"wa:id:{bsuid}"


def player_id(client: redis.Redis, bsuid: str, ttl: int) -> int:
    """The player id of a BSUID, made on first sight (safe when two requests race)."""
    found = client.get(key_of(bsuid))
    if found is not None:
        client.expire(key_of(bsuid), ttl)
        return int(found)
    candidate = BASE + int(client.incr(_NEXT))
    if client.set(key_of(bsuid), candidate, nx=True, ex=ttl):
        client.hset(f"user:{candidate}", "wa", bsuid)
        client.expire(f"user:{candidate}", ttl)
        return candidate
    return int(client.get(key_of(bsuid)) or candidate)


def bsuid_of(client: redis.Redis, player: int) -> str | None:
    found = client.hget(f"user:{player}", "wa")
    return text(found) if found is not None else None


def language_of(bsuid: str, phone: str | None) -> str:
    """The language a new person is spoken to in: their country's, else English."""
    country = bsuid.split(".", 1)[0]
    if country in COUNTRY_LANGS:
        return COUNTRY_LANGS[country]
    for prefix in sorted(PHONE_LANGS, key=len, reverse=True):
        if phone and phone.startswith(prefix):
            return PHONE_LANGS[prefix]
    return "en"
