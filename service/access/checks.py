"""Who may open a table's view (#39; docs/mini-app.md): pure checks, no Redis, no clock.

Telegram: a Mini App's page sends its `initData` (a query string Telegram signed); only a
string that passes `check_init_data` names a person, and only its `user.id` is theirs:
the view trusts no other id the page sends. Telegram signs it twice: `hash`, an HMAC
keyed by the bot's token (what `serve` checks), and `signature`, Ed25519 with Telegram's
own key over the bot's id (`check_init_data_signature`: for a process without the token).

WhatsApp: a link signed here for one person and one table (`new_link`), short-lived and
renewed while its view is open (`renew_link`), for a few hours at most. Its MAC also
covers the person's link key (service.infra.view_links), which forgetting them deletes:
every link made before dies. A forwarded link shows its owner's seat and nothing more
(docs/mini-app.md)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import parse_qsl

from service.access import ed25519

# Telegram's Ed25519 keys for `signature` (its Mini Apps page, "Validating data for
# third-party use"): the production servers' and the test servers'.
TELEGRAM_KEY = bytes.fromhex("e7bf03a2fa4602af4580703d88dda5bb59f32ed8b02a56c187fe7d34caed242d")
TELEGRAM_TEST_KEY = bytes.fromhex(
    "40055058a4ee38156a06562e52eece92a771bcd8346a8c4615cb7376eddf72ec"
)

MAX_INIT_DATA = 8192  # characters: a real one is well under 1 KB
_HASH = re.compile(r"[0-9a-f]{64}")
_NUMBER = re.compile(r"[0-9]{1,12}")
_START_PARAM = re.compile(r"[A-Za-z0-9_-]{1,512}")  # what t.me/<bot>/<app>?startapp= takes


class Refusal(StrEnum):
    """Why a view was not opened (each a distinct reason, for logs and tests)."""

    MALFORMED = "malformed"  # not a query string, a field twice, a field's shape wrong
    UNSIGNED = "unsigned"  # no hash (or no signature, for the third-party check)
    FORGED = "forged"  # the hash, signature or MAC does not match
    TOO_OLD = "too_old"  # signed longer ago than allowed
    FUTURE = "future"  # signed later than our clock, beyond the skew allowed
    NO_USER = "no_user"  # signed, but names no user
    EXPIRED = "expired"  # a link past its time
    REVOKED = "revoked"  # a link whose owner has no link key any more (forgotten)
    NO_LINKS = "no_links"  # this server signs no links (no view_link_secret)


@dataclass(frozen=True)
class Refused:
    reason: Refusal


@dataclass(frozen=True)
class MiniAppLaunch:
    """What a checked initData says: the person, and the table asked for."""

    user_id: int
    auth_date: int
    start_param: str | None  # the `startapp` of a direct link (a table), if any
    first_name: str
    language_code: str | None
    chat_type: str | None  # "private", "group", ... (only for some launches)


# ----- Telegram ---------------------------------------------------------------------


def webapp_secret(bot_token: str) -> bytes:
    """The HMAC key Telegram derives from the bot's token (key "WebAppData")."""
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str], *, leave_out: tuple[str, ...] = ("hash",)) -> str:
    """The fields but those left out, sorted by key, as `key=value` lines."""
    return "\n".join(f"{k}={v}" for k, v in sorted(fields.items()) if k not in leave_out)


def init_data_hash(fields: dict[str, str], bot_token: str) -> str:
    """The `hash` Telegram puts in initData for these fields (every field but `hash`)."""
    check = data_check_string(fields).encode()
    return hmac.new(webapp_secret(bot_token), check, hashlib.sha256).hexdigest()


def parse_fields(raw: str) -> dict[str, str] | None:
    """initData's fields, or None if it is no query string or names a field twice."""
    if not raw or len(raw) > MAX_INIT_DATA:
        return None
    try:
        pairs = parse_qsl(
            raw, keep_blank_values=True, strict_parsing=True, errors="strict", max_num_fields=64
        )
    except (ValueError, UnicodeDecodeError):
        return None
    fields = dict(pairs)
    return fields if len(fields) == len(pairs) else None


def check_init_data(
    raw: str, bot_token: str, *, now: float, max_age: int, skew: int
) -> MiniAppLaunch | Refused:
    """The launch a Mini App's initData describes, if Telegram signed it for this bot's
    token within `max_age` seconds of `now` (and no more than `skew` ahead of it)."""
    fields = parse_fields(raw)
    if fields is None:
        return Refused(Refusal.MALFORMED)
    given = fields.get("hash")
    if given is None:
        return Refused(Refusal.UNSIGNED)
    if not _HASH.fullmatch(given):
        return Refused(Refusal.MALFORMED)
    if not hmac.compare_digest(init_data_hash(fields, bot_token), given):
        return Refused(Refusal.FORGED)
    return launch_of(fields, now=now, max_age=max_age, skew=skew)


def check_init_data_signature(
    raw: str,
    bot_id: int,
    *,
    now: float,
    max_age: int,
    skew: int,
    public_key: bytes = TELEGRAM_KEY,
) -> MiniAppLaunch | Refused:
    """The same, from `signature` (Telegram's Ed25519 key over `<bot id>:WebAppData` and
    the fields but `hash` and `signature`), without the bot's token."""
    fields = parse_fields(raw)
    if fields is None:
        return Refused(Refusal.MALFORMED)
    if "signature" not in fields:
        return Refused(Refusal.UNSIGNED)
    signature = _unbase64(fields["signature"])
    if signature is None or len(signature) != 64:
        return Refused(Refusal.MALFORMED)
    check = data_check_string(fields, leave_out=("hash", "signature"))
    if not ed25519.verify(public_key, f"{bot_id}:WebAppData\n{check}".encode(), signature):
        return Refused(Refusal.FORGED)
    return launch_of(fields, now=now, max_age=max_age, skew=skew)


def launch_of(
    fields: dict[str, str], *, now: float, max_age: int, skew: int
) -> MiniAppLaunch | Refused:
    """The launch signed fields describe, if they are fresh and name a user."""
    stamp = fields.get("auth_date", "")
    if not _NUMBER.fullmatch(stamp):
        return Refused(Refusal.MALFORMED)
    auth_date = int(stamp)
    if auth_date > now + skew:
        return Refused(Refusal.FUTURE)
    if now - auth_date > max_age:
        return Refused(Refusal.TOO_OLD)
    start = fields.get("start_param")
    if start is not None and not _START_PARAM.fullmatch(start):
        return Refused(Refusal.MALFORMED)
    found = _user(fields.get("user"))
    if isinstance(found, Refused):
        return found
    user_id, user = found
    return MiniAppLaunch(
        user_id=user_id,
        auth_date=auth_date,
        start_param=start,
        first_name=str(user.get("first_name", "")),
        language_code=_str_or_none(user.get("language_code")),
        chat_type=fields.get("chat_type"),
    )


def _user(raw: str | None) -> tuple[int, dict[str, object]] | Refused:
    """The `user` field's positive integer id, and the whole object."""
    if raw is None:
        return Refused(Refusal.NO_USER)
    try:
        user = json.loads(raw)
    except ValueError:
        return Refused(Refusal.MALFORMED)
    if not isinstance(user, dict):
        return Refused(Refusal.MALFORMED)
    ident = user.get("id")
    if type(ident) is not int or ident <= 0:  # bool is an int too: not an id
        return Refused(Refusal.MALFORMED)
    return ident, user


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _unbase64(text: str) -> bytes | None:
    """Bytes from base64url without padding (Telegram's `signature`), or None."""
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text):
        return None
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        return None


# ----- WhatsApp's links -------------------------------------------------------------

_LINK = re.compile(
    r"([0-9a-f]{1,16})\.([A-Za-z0-9]{1,32})\.([0-9a-f]{1,12})\.([0-9a-f]{1,8})\.([A-Za-z0-9_-]{22})"
)
_ROOM = re.compile(r"[A-Za-z0-9]{1,32}")
_LINK_DOMAIN = b"burro view link 1\x00"  # keeps these MACs apart from any other use of the secret


@dataclass(frozen=True)
class ViewGrant:
    """What a checked link gives: its owner's view of one table, until `expires`.
    `issued` is when the chat gave the first link of its line (renewals keep it)."""

    person: int
    room_id: str
    issued: int
    expires: int


def new_link(
    secret: bytes, person_key: bytes, person: int, room_id: str, *, now: float, ttl: int
) -> str:
    """A link for the person's view of a table, as the chat gives it."""
    return sign_link(secret, person_key, ViewGrant(person, room_id, int(now), int(now) + ttl))


def sign_link(secret: bytes, person_key: bytes, grant: ViewGrant) -> str:
    """The token for `grant`: `<person>.<room>.<issued>.<lasts>.<mac>` (hex numbers, the
    table's id, and 128 bits of HMAC-SHA256 in base64url): about 60 characters."""
    if not _ROOM.fullmatch(grant.room_id) or grant.person < 0 or grant.expires < grant.issued:
        raise ValueError(f"no link for {grant}")
    body = _link_body(grant)
    return f"{body}.{_link_mac(secret, person_key, body)}"


def renew_link(
    secret: bytes, person_key: bytes, grant: ViewGrant, *, now: float, ttl: int, lifetime: int
) -> str | Refused:
    """A fresh token for a grant just checked, good for `ttl` seconds from `now` but
    never past `lifetime` after the chat gave the first: an open view renews its link,
    and a forwarded one, renewed or not, dies then all the same."""
    end = grant.issued + lifetime
    if now >= end:
        return Refused(Refusal.EXPIRED)
    fresh = ViewGrant(grant.person, grant.room_id, grant.issued, min(int(now) + ttl, end))
    return sign_link(secret, person_key, fresh)


def check_link(
    token: str, secret: bytes, key_of: Callable[[int], bytes | None], *, now: float
) -> ViewGrant | Refused:
    """The grant a link token carries, if it was signed here with its owner's current
    link key (`key_of(person)`, None once they were forgotten) and has not expired."""
    found = _LINK.fullmatch(token)
    if found is None:
        return Refused(Refusal.MALFORMED)
    person, room_id, issued, lasts, mac = found.groups()
    grant = ViewGrant(int(person, 16), room_id, int(issued, 16), int(issued, 16) + int(lasts, 16))
    body = _link_body(grant)
    if f"{body}.{mac}" != token:  # one spelling per grant (no leading zeros)
        return Refused(Refusal.MALFORMED)
    person_key = key_of(grant.person)
    if person_key is None:
        return Refused(Refusal.REVOKED)
    if not hmac.compare_digest(_link_mac(secret, person_key, body), mac):
        return Refused(Refusal.FORGED)
    if now >= grant.expires:
        return Refused(Refusal.EXPIRED)
    return grant


def _link_body(grant: ViewGrant) -> str:
    return f"{grant.person:x}.{grant.room_id}.{grant.issued:x}.{grant.expires - grant.issued:x}"


def _link_mac(secret: bytes, person_key: bytes, body: str) -> str:
    message = _LINK_DOMAIN + len(person_key).to_bytes(1, "big") + person_key + body.encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
