"""WhatsApp people as Burro players.

Meta names a person by their business-scoped user id (BSUID, `BR.1502576394655843`,
the `user_id` of the webhooks' contacts) and, while their number is shared with us,
their phone number (`wa_id`): both, or only the BSUID (a person who took a username),
or only the phone (Meta's shape before BSUIDs, still sent for people in Meta's contact
book). Either name leads to one player id of ours (`wa:id:<BSUID>`, `wa:id:<phone>`:
the two never look alike), so a person first seen by phone stays one player when their
BSUID comes. The player id is an int above every Telegram user id (Telegram's have at
most 52 bits), so the table's rooms, seats and chat targets hold players of every
platform alike and a table may mix them. The person's own data lives in
`user:<player id>` as a Telegram user's does (its name, language, and here `wa`, the
BSUID, `phone` when known, and `zone`, their time zone: WhatsApp tells none, so it is
first their number's country's, service.table.zones); messages go to the BSUID once
known, else to the phone (`address_of`).
"""

from __future__ import annotations

import redis

from service.desk.asks import Sender
from service.infra import keys
from service.infra.store import Store, text
from service.platforms.whatsapp import window
from service.platforms.whatsapp.graph import BSUID, Address
from service.platforms.whatsapp.message import Inbound
from service.table import names, zones

PLATFORM = "whatsapp"
BASE = 1 << 52  # player ids from here on are WhatsApp people's
# A person's language before they choose one: WhatsApp tells none, so the country of
# their BSUID (or of their phone number) says it.
COUNTRY_LANGS = {"BR": "pt_BR", "PT": "pt_PT", "ES": "es", "ID": "id", "MX": "es", "AR": "es"}
PHONE_LANGS = {"55": "pt_BR", "351": "pt_PT", "34": "es", "62": "id", "52": "es", "54": "es"}


def is_whatsapp(player_id: int) -> bool:
    return player_id >= BASE


def key_of(name: str) -> str:
    """The key of a person's player id, by their BSUID or their phone number."""
    return keys.wa_id_key(name)


def user_key(player: int) -> str:
    return keys.user_key(player)


def find(client: redis.Redis, bsuid: str | None, phone: str | None) -> int | None:
    """The player id of a person known by their BSUID, else by their phone; not by a
    phone whose player has another BSUID (a number passed on to someone else: Meta
    gives its new owner a new BSUID). None if they are new."""
    if bsuid:
        found = client.get(key_of(bsuid))
        if found is not None:
            return int(found)
    if phone:
        found = client.get(key_of(phone))
        if found is not None and (bsuid is None or stored_bsuid(client, int(found)) is None):
            return int(found)
    return None


def player_of(client: redis.Redis, bsuid: str | None, phone: str | None, ttl: int) -> int:
    """The player id of a person named by their BSUID, their phone or both (made on
    first sight, safe when two requests race); every name given then leads to it."""
    first = bsuid or phone
    if first is None:
        raise ValueError("a WhatsApp person is named by a BSUID or a phone number")
    player = find(client, bsuid, phone)
    if player is None:
        candidate = BASE + int(client.incr(keys.WA_NEXT))
        made = client.set(key_of(first), candidate, nx=True, ex=ttl)
        player = candidate if made else int(client.get(key_of(first)) or candidate)
    link(client, player, bsuid, phone, ttl)
    return player


def link(client: redis.Redis, player: int, bsuid: str | None, phone: str | None, ttl: int) -> None:
    """Both names lead to the player, and the player's record keeps both (for `people_ttl`
    more, as every key about a person)."""
    fields = {field: name for field, name in (("wa", bsuid), ("phone", phone)) if name}
    with client.pipeline(transaction=False) as pipe:
        for field, name in fields.items():
            pipe.set(key_of(name), player, ex=ttl)
            pipe.hset(user_key(player), field, name)
        pipe.expire(user_key(player), ttl)
        pipe.execute()


def stored_bsuid(client: redis.Redis, player: int) -> str | None:
    found = client.hget(user_key(player), "wa")
    name = text(found) if found is not None else None
    return name if name is not None and BSUID.match(name) else None


def names_of(client: redis.Redis, player: int) -> list[str]:
    """The BSUID and the phone the player's record keeps, those it has."""
    found = client.hmget(user_key(player), ["wa", "phone"])
    return [text(name) for name in found if name is not None]


def address_of(client: redis.Redis, player: int) -> Address | None:
    """Where messages to the player go: their BSUID once known, else their phone (a
    record from before phones were kept apart may hold the phone as `wa`)."""
    names = names_of(client, player)
    bsuid = next((n for n in names if BSUID.match(n)), None)
    if bsuid is not None:
        return Address(bsuid, "bsuid")
    phone = next((n for n in names if n.isdigit()), None)
    return Address(phone, "phone") if phone is not None else None


def language_of(bsuid: str | None, phone: str | None) -> str:
    """The language a new person is spoken to in: their country's, else English."""
    country = (bsuid or "").split(".", 1)[0]
    if country in COUNTRY_LANGS:
        return COUNTRY_LANGS[country]
    for prefix in sorted(PHONE_LANGS, key=len, reverse=True):
        if phone and phone.startswith(prefix):
            return PHONE_LANGS[prefix]
    return "en"


def sender_of(client: redis.Redis, store: Store, message: Inbound) -> Sender:
    """The person who wrote, as a player (first seen: their id made, their language
    and time zone guessed from their number's country); they wrote, so their 24-hour
    window is open."""
    bsuid = message.bsuid if Address.of(message.bsuid).kind == "bsuid" else None
    phone = message.phone or (None if bsuid else message.bsuid)
    player = player_of(client, bsuid, phone, store.people_ttl)
    known = store.user(player)
    name = names.clean(message.name or "", names.clean(known.get("name") or "", "WhatsApp"))
    guess = known.get("lang_wa") or language_of(bsuid, phone)
    zone = known.get("zone") or zones.of_number(bsuid, phone)
    fields = {"name": name, "lang_wa": guess, "zone": zone, "started": "1"}
    if message.phone:
        fields["phone"] = message.phone
    client.hset(user_key(player), mapping=fields)  # type: ignore[arg-type]
    client.expire(user_key(player), store.people_ttl)
    window.note_inbound(client, player, message.at)
    return Sender(player, name, guess, PLATFORM)
