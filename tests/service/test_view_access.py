"""Who may open a table's view (service.access.checks): a Mini App's initData checked as
Telegram specifies, and WhatsApp's signed links. Every tampering is refused, each for
its own reason; Telegram's own published example passes both checks."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.access.checks import (
    TELEGRAM_KEY,
    TELEGRAM_TEST_KEY,
    MiniAppLaunch,
    Refusal,
    Refused,
    ViewGrant,
    check_init_data,
    check_init_data_signature,
    check_link,
    init_data_hash,
    new_link,
    renew_link,
    sign_link,
)

TOKEN = "123456789:AAE-emulated-token-for-the-view-tests00"
OTHER_TOKEN = "987654321:AAE-another-bot-entirely-its-own-token0"
NOW = 1_800_000_000
AGE, SKEW = 3600, 60

# Telegram's example (the Mini Apps docs' sample bot, as the tma.js project publishes it
# with its token): signed by Telegram itself, `hash` and `signature` both.
EXAMPLE_TOKEN = "7342037359:AAHI25ES9xCOMPokpYoz-p8XVrZUdygo2J4"
EXAMPLE_BOT = 7342037359
EXAMPLE = (
    "user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%20%2B%20-%20%3F%20%5C%2F"
    "%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C"
    "%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%2C%22allows_write_to_pm%22"
    "%3Atrue%2C%22photo_url%22%3A%22https%3A%5C%2F%5C%2Ft.me%5C%2Fi%5C%2Fuserpic%5C%2F320"
    "%5C%2F4FPEE4tmP3ATHa57u6MqTDih13LTOiMoKoLDRG4PnSA.svg%22%7D"
    "&chat_instance=8134722200314281151&chat_type=private&auth_date=1733509682"
    "&signature=TYJxVcisqbWjtodPepiJ6ghziUL94-KNpG8Pau-X7oNNLNBM72APCpi_RKiUlBvcqo5L-LAxIc3dn"
    "TzcZX_PDg&hash=a433d8f9847bd6addcc563bff7cc82c89e97ea0d90c11fe5729cae6796a36d73"
)
EXAMPLE_AT = 1733509682


def encode(pairs: list[tuple[str, str]]) -> str:
    return "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in pairs)


def signed(
    token: str = TOKEN,
    *,
    user: dict[str, object] | None = None,
    auth_date: int = NOW - 10,
    more: dict[str, str] | None = None,
    **extra: str,
) -> list[tuple[str, str]]:
    """initData's fields as Telegram would send them, `hash` last."""
    fields = {
        **(more or {}),
        "user": json.dumps(user or {"id": 42, "first_name": "Ana", "language_code": "es"}),
        "chat_instance": "-7770001",
        "chat_type": "sender",
        "auth_date": str(auth_date),
        **extra,
    }
    return [*fields.items(), ("hash", init_data_hash(fields, token))]


def check(raw: str, token: str = TOKEN, now: float = NOW) -> MiniAppLaunch | Refused:
    return check_init_data(raw, token, now=now, max_age=AGE, skew=SKEW)


def test_a_launch_signed_for_the_bot_names_its_user_and_table() -> None:
    launch = check(encode(signed(start_param="t_Ab3dE9xZ")))
    assert launch == MiniAppLaunch(
        user_id=42,
        auth_date=NOW - 10,
        start_param="t_Ab3dE9xZ",
        first_name="Ana",
        language_code="es",
        chat_type="sender",
    )


def test_telegrams_own_example_passes_both_checks() -> None:
    by_hash = check_init_data(EXAMPLE, EXAMPLE_TOKEN, now=EXAMPLE_AT + 5, max_age=AGE, skew=SKEW)
    assert isinstance(by_hash, MiniAppLaunch) and by_hash.user_id == 279058397
    assert by_hash.first_name == "Vladislav + - ? /"  # %20 and %2B read apart
    by_key = check_init_data_signature(
        EXAMPLE, EXAMPLE_BOT, now=EXAMPLE_AT + 5, max_age=AGE, skew=SKEW
    )
    assert by_key == by_hash


def by_key(raw: str, bot_id: int, key: bytes = TELEGRAM_KEY) -> MiniAppLaunch | Refused:
    at = EXAMPLE_AT + 5
    return check_init_data_signature(raw, bot_id, now=at, max_age=AGE, skew=SKEW, public_key=key)


def test_telegrams_example_is_refused_for_another_bot_or_key() -> None:
    assert check(EXAMPLE, now=EXAMPLE_AT + 5) == Refused(Refusal.FORGED)  # not our bot's
    assert by_key(EXAMPLE, EXAMPLE_BOT - 1) == Refused(Refusal.FORGED)
    assert by_key(EXAMPLE, EXAMPLE_BOT, TELEGRAM_TEST_KEY) == Refused(Refusal.FORGED)
    unsigned = EXAMPLE.replace("&signature=", "&signatur=")
    assert by_key(unsigned, EXAMPLE_BOT) == Refused(Refusal.UNSIGNED)
    tampered = EXAMPLE.replace("chat_type=private", "chat_type=sender")
    assert by_key(tampered, EXAMPLE_BOT) == Refused(Refusal.FORGED)


def test_each_field_changed_is_refused() -> None:
    pairs = signed(start_param="t_room1")
    for i, (key, value) in enumerate(pairs):
        if key == "hash":
            continue
        changed = [*pairs]
        changed[i] = (key, value + "0" if key != "user" else value.replace("42", "43"))
        assert check(encode(changed)) == Refused(Refusal.FORGED), key


def test_a_field_added_or_taken_away_is_refused() -> None:
    pairs = signed()
    assert check(encode([("start_param", "t_other"), *pairs])) == Refused(Refusal.FORGED)
    without = [p for p in pairs if p[0] != "chat_type"]
    assert check(encode(without)) == Refused(Refusal.FORGED)


def test_the_hash_changed_or_missing_is_refused() -> None:
    pairs = signed()
    good = pairs[-1][1]
    flipped = ("0" if good[0] != "0" else "1") + good[1:]
    assert check(encode([*pairs[:-1], ("hash", flipped)])) == Refused(Refusal.FORGED)
    assert check(encode([*pairs[:-1], ("hash", good.upper())])) == Refused(Refusal.MALFORMED)
    assert check(encode(pairs[:-1])) == Refused(Refusal.UNSIGNED)


def test_the_order_of_the_fields_sent_does_not_matter_but_signing_unsorted_does() -> None:
    pairs = signed()
    assert isinstance(check(encode(list(reversed(pairs)))), MiniAppLaunch)
    fields = dict(pairs[:-1])
    unsorted = "\n".join(f"{k}={v}" for k, v in fields.items())  # as sent, not by key
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    forged = hmac.new(secret, unsorted.encode(), hashlib.sha256).hexdigest()
    assert check(encode([*pairs[:-1], ("hash", forged)])) == Refused(Refusal.FORGED)


def test_a_field_given_twice_is_refused() -> None:
    pairs = signed()
    user = next(p for p in pairs if p[0] == "user")
    other = ("user", json.dumps({"id": 666, "first_name": "Mallory"}))
    for doubled in ([other, *pairs], [*pairs, other], [user, *pairs], [*pairs, pairs[-1]]):
        assert check(encode(doubled)) == Refused(Refusal.MALFORMED)


def test_too_old_and_future_dated_are_refused_at_their_bounds() -> None:
    raw = encode(signed(auth_date=NOW))
    assert isinstance(check(raw, now=NOW + AGE), MiniAppLaunch)
    assert check(raw, now=NOW + AGE + 1) == Refused(Refusal.TOO_OLD)
    assert isinstance(check(raw, now=NOW - SKEW), MiniAppLaunch)
    assert check(raw, now=NOW - SKEW - 1) == Refused(Refusal.FUTURE)


def test_another_bots_token_is_refused() -> None:
    assert check(encode(signed(OTHER_TOKEN))) == Refused(Refusal.FORGED)
    assert check(encode(signed()), token=OTHER_TOKEN) == Refused(Refusal.FORGED)


@pytest.mark.parametrize(
    ("user", "reason"),
    [
        ({"id": True, "first_name": "Bool"}, Refusal.MALFORMED),
        ({"id": "42", "first_name": "Text"}, Refusal.MALFORMED),
        ({"id": -5, "first_name": "Negative"}, Refusal.MALFORMED),
        ({"first_name": "Nobody"}, Refusal.MALFORMED),
    ],
)
def test_a_signed_user_without_a_proper_id_is_refused(
    user: dict[str, object], reason: Refusal
) -> None:
    assert check(encode(signed(user=user))) == Refused(reason)


def test_signed_but_odd_fields_are_refused() -> None:
    no_user = [(k, v) for k, v in signed() if k != "user"]
    fields = dict(no_user[:-1])
    assert check(encode([*no_user[:-1], ("hash", init_data_hash(fields, TOKEN))])) == Refused(
        Refusal.NO_USER
    )
    assert check(encode(signed(start_param="t room"))) == Refused(Refusal.MALFORMED)
    for junk in ("", "hash", "a=1&&b=2", "%ff=1&hash=" + "0" * 64, "x=1&" * 100):
        assert check(junk) == Refused(Refusal.MALFORMED), junk


_text = st.text(st.characters(codec="utf-8"), max_size=40)


@settings(max_examples=150, deadline=None)
@given(
    extra=st.dictionaries(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), _text, max_size=5),
    name=_text,
    user_id=st.integers(1, 2**52),
)
def test_any_fields_round_trip_and_any_one_change_is_refused(
    extra: dict[str, str], name: str, user_id: int
) -> None:
    extra = {k: v for k, v in extra.items() if k not in ("user", "auth_date", "hash")}
    extra.pop("start_param", None)
    pairs = signed(user={"id": user_id, "first_name": name}, more=extra)
    launch = check(encode(pairs))
    assert isinstance(launch, MiniAppLaunch)
    assert (launch.user_id, launch.first_name) == (user_id, name)
    for i in range(len(pairs) - 1):
        key, value = pairs[i]
        changed = [*pairs]
        changed[i] = (key, value + "x")
        assert check(encode(changed)) != launch


# ----- WhatsApp's links --------------------------------------------------------------

SECRET = b"the server's own link secret, from settings"
ANA_KEY, BEN_KEY = bytes(range(16)), bytes(range(16, 32))
ANA = 2**52 + 7


def read(token: str, known: dict[int, bytes] | None = None, now: float = NOW) -> object:
    known = {ANA: ANA_KEY} if known is None else known
    return check_link(token, SECRET, known.get, now=now)


ROOM = "Ab3dE9xZ"
HOURS = 12 * 3600


def ana_link(now: float = NOW, ttl: int = 1800) -> str:
    return new_link(SECRET, ANA_KEY, ANA, ROOM, now=now, ttl=ttl)


def test_a_link_round_trips_and_is_compact() -> None:
    token = ana_link()
    assert read(token) == ViewGrant(ANA, ROOM, NOW, NOW + 1800)
    assert len(token) <= 64 and quote(token, safe="") == token  # as is in a URL


def test_an_expired_link_is_refused_and_a_renewed_one_works() -> None:
    token = ana_link()
    assert read(token, now=NOW + 1800) == Refused(Refusal.EXPIRED)
    grant = read(token, now=NOW + 1700)
    assert isinstance(grant, ViewGrant)
    fresh = renew_link(SECRET, ANA_KEY, grant, now=NOW + 1700, ttl=1800, lifetime=HOURS)
    assert isinstance(fresh, str)
    assert read(fresh, now=NOW + 1800) == ViewGrant(ANA, ROOM, NOW, NOW + 3500)


def test_renewing_never_goes_past_the_lifetime_of_the_first_link() -> None:
    grant = ViewGrant(ANA, ROOM, NOW, NOW + 1800)
    late = NOW + HOURS - 100
    last = renew_link(SECRET, ANA_KEY, grant, now=late, ttl=1800, lifetime=HOURS)
    assert isinstance(last, str)
    assert read(last, now=late) == ViewGrant(ANA, ROOM, NOW, NOW + HOURS)
    assert read(last, now=NOW + HOURS) == Refused(Refusal.EXPIRED)
    refused = renew_link(SECRET, ANA_KEY, grant, now=NOW + HOURS, ttl=1800, lifetime=HOURS)
    assert refused == Refused(Refusal.EXPIRED)


def test_a_forged_link_is_refused() -> None:
    token = ana_link()
    person, room, issued, lasts, mac = token.split(".")
    grant = ViewGrant(ANA, ROOM, NOW, NOW + 1800)
    for forged in (
        f"{ANA + 1:x}.{room}.{issued}.{lasts}.{mac}",  # another person
        f"{person}.Zz3dE9xZ.{issued}.{lasts}.{mac}",  # another table
        f"{person}.{room}.{issued}.{int(lasts, 16) + 86400:x}.{mac}",  # a longer life
        f"{person}.{room}.{int(issued, 16) + 86400:x}.{lasts}.{mac}",  # issued later
        f"{person}.{room}.{issued}.{lasts}.{'A' if mac[0] != 'A' else 'B'}{mac[1:]}",  # the MAC
        sign_link(b"another secret", ANA_KEY, grant),
        sign_link(SECRET, BEN_KEY, grant),  # signed with someone else's key
    ):
        assert read(forged, {ANA: ANA_KEY, ANA + 1: ANA_KEY}) == Refused(Refusal.FORGED), forged


def test_a_link_spelt_otherwise_is_refused() -> None:
    token = ana_link()
    for odd in ("0" + token, token + ".", token.upper(), "", token.replace(".", "-", 1)):
        assert read(odd) == Refused(Refusal.MALFORMED), odd
    for bad in (ViewGrant(ANA, "a.b", NOW, NOW), ViewGrant(ANA, ROOM, NOW, NOW - 1)):
        with pytest.raises(ValueError):
            sign_link(SECRET, ANA_KEY, bad)


def test_a_forgotten_persons_links_are_refused() -> None:
    token = ana_link()
    assert read(token, {}) == Refused(Refusal.REVOKED)  # forgotten: no key at all
    assert read(token, {ANA: BEN_KEY}) == Refused(Refusal.FORGED)  # a new key since


@settings(max_examples=100, deadline=None)
@given(
    person=st.integers(0, 2**63),
    room=st.from_regex(r"[A-Za-z0-9]{1,32}", fullmatch=True),
    life=st.integers(1, 10**6),
    position=st.integers(0, 200),
    char=st.sampled_from("0123456789abcdefABCDEF_-.x"),
)
def test_links_round_trip_and_any_one_character_changed_is_refused(
    person: int, room: str, life: int, position: int, char: str
) -> None:
    token = new_link(SECRET, ANA_KEY, person, room, now=NOW, ttl=life)
    grant = ViewGrant(person, room, NOW, NOW + life)
    assert check_link(token, SECRET, lambda _: ANA_KEY, now=NOW) == grant
    i = position % len(token)
    changed = token[:i] + char + token[i + 1 :]
    if changed != token:
        assert isinstance(check_link(changed, SECRET, lambda _: ANA_KEY, now=NOW), Refused)
