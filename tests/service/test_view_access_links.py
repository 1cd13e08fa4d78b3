"""A person's link key (service.infra.view_links) in Redis: made once, kept with their
record, never made by checking a link; /forget deletes it, so every WhatsApp link to a
view made before is refused, and links made afterwards use a new key."""

from __future__ import annotations

import time
from dataclasses import replace
from urllib.parse import quote

import fakeredis
import pytest
from pydantic import SecretStr

from service.access.checks import (
    MiniAppLaunch,
    Refusal,
    Refused,
    ViewGrant,
    check_link,
    init_data_hash,
    new_link,
)
from service.infra import keys
from service.infra.forget import forget
from service.infra.store import Store
from service.infra.view_links import ViewAccess, known_link_key, link_key, revoke_links
from service.settings import Settings

SECRET = b"view link secret"
PERSON = 2**52 + 11  # a WhatsApp person's player id
TTL = 365 * 24 * 3600


@pytest.fixture
def store() -> Store:
    return Store(fakeredis.FakeRedis(), 3600, 3600)


def link(store: Store, room: str = "Ab3dE9xZ") -> str:
    key = link_key(store.redis, PERSON, TTL)
    return new_link(SECRET, key, PERSON, room, now=time.time(), ttl=1800)


def check(store: Store, token: str) -> ViewGrant | Refused:
    return check_link(
        token, SECRET, lambda person: known_link_key(store.redis, person), now=time.time()
    )


def test_a_link_key_is_made_once_and_kept_with_the_persons_record(store: Store) -> None:
    assert known_link_key(store.redis, PERSON) is None
    first = link_key(store.redis, PERSON, TTL)
    assert len(first) == 16 and link_key(store.redis, PERSON, TTL) == first
    assert known_link_key(store.redis, PERSON) == first
    assert 0 < store.redis.ttl(keys.user_key(PERSON)) <= TTL


def test_checking_a_link_never_makes_a_key(store: Store) -> None:
    token = new_link(SECRET, bytes(16), PERSON, "Ab3dE9xZ", now=time.time(), ttl=60)
    assert check(store, token) == Refused(Refusal.REVOKED)
    assert not store.redis.exists(keys.user_key(PERSON))


def test_forgetting_the_person_kills_their_old_links(store: Store) -> None:
    store.redis.hset(keys.user_key(PERSON), "lang", "pt_BR")
    old = link(store)
    assert isinstance(check(store, old), ViewGrant)
    forget(store, PERSON, time.time())
    assert check(store, old) == Refused(Refusal.REVOKED)
    new = link(store)  # they come back and ask for the view again
    assert isinstance(check(store, new), ViewGrant)
    assert check(store, old) == Refused(Refusal.FORGED)


def test_revoking_kills_every_link_of_the_persons_and_no_one_elses(store: Store) -> None:
    mine, other = link(store, "Room1"), link(store, "Room2")
    someone = 2**52 + 12
    theirs = new_link(
        SECRET, link_key(store.redis, someone, TTL), someone, "Room1", now=time.time(), ttl=60
    )
    revoke_links(store.redis, PERSON)
    assert check(store, mine) == check(store, other) == Refused(Refusal.REVOKED)
    assert isinstance(check(store, theirs), ViewGrant)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def access(store: Store, clock: Clock, **changes: object) -> ViewAccess:
    chosen: dict[str, object] = {
        "view_link_secret": SecretStr("s3cret"),
        "view_link_ttl": 1800,
        "view_link_lifetime": 3 * 3600,
    }
    settings = Settings(**{**chosen, **changes})  # type: ignore[arg-type]
    return replace(ViewAccess.of(store.redis, settings, BOT_TOKEN), clock=clock)


BOT_TOKEN = "123456:TEST-token_abc"


def test_the_door_checks_telegram_launches_with_the_bots_token(store: Store) -> None:
    clock = Clock(1_800_000_000)
    fields = {"user": '{"id":100001,"first_name":"Ana"}', "auth_date": str(int(clock.now))}
    raw = "&".join(f"{k}={quote(v, safe='')}" for k, v in fields.items())
    door = access(store, clock, webapp_max_age=600)
    signed = f"{raw}&hash={init_data_hash(fields, BOT_TOKEN)}"
    launch = door.telegram(signed)
    assert isinstance(launch, MiniAppLaunch) and launch.user_id == 100001
    clock.now += 601
    assert door.telegram(signed) == Refused(Refusal.TOO_OLD)
    assert door.telegram(raw) == Refused(Refusal.UNSIGNED)


def test_the_door_gives_renews_and_refuses_whatsapp_links(store: Store) -> None:
    clock = Clock(1_800_000_000)
    door = access(store, clock)
    token = door.link(PERSON, "Ab3dE9xZ")
    assert token is not None
    grant = door.whatsapp(token)
    assert grant == ViewGrant(PERSON, "Ab3dE9xZ", int(clock.now), int(clock.now) + 1800)
    tokens = [token]
    for _ in range(7):  # an open view renews every 25 minutes
        clock.now += 1500
        grant = door.whatsapp(tokens[-1])
        assert isinstance(grant, ViewGrant)
        renewed = door.renew(grant)
        assert isinstance(renewed, str)
        tokens.append(renewed)
    clock.now += 1500  # past the 3 hours since the chat gave the first link
    assert door.whatsapp(tokens[-1]) == Refused(Refusal.EXPIRED)
    forget(store, PERSON, clock.now)
    assert door.whatsapp(tokens[-2]) == Refused(Refusal.REVOKED)
    off = access(store, clock, view_link_secret=None)
    assert off.link(PERSON, "Ab3dE9xZ") is None
    assert off.whatsapp(token) == Refused(Refusal.NO_LINKS)
