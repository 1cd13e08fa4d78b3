"""A person's link key (service.infra.view_links) in Redis: made once, kept with their
record, never made by checking a link; /forget deletes it, so every WhatsApp link to a
view made before is refused, and links made afterwards use a new key."""

from __future__ import annotations

import time

import fakeredis
import pytest

from service.infra import keys
from service.infra.forget import forget
from service.infra.store import Store
from service.infra.view_links import known_link_key, link_key, revoke_links
from service.view.access import Refusal, Refused, ViewGrant, check_link, new_link

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
