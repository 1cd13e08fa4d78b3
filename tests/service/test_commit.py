"""A press in two round trips (service.infra.commit, Store.session): its claim reads the
room and the person into the request's view of the store, and its change is compared
and written in one Lua script, which writes nothing when the room changed or the update
was handled meanwhile."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator

import pytest

from bench.counting import COUNTS, counting_aclient, counting_client
from service.infra.redis_server import RedisServer
from service.infra.store import Store, room_key, update_key
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings

GROUPS = itertools.count(100)
ANA, BEN, CARLA = Actor(1, "Ana", "en"), Actor(2, "Ben", "en"), Actor(3, "Carla", "en")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    with RedisServer(tmp_path_factory.mktemp("redis"), persist=False) as running:
        yield running


@pytest.fixture
def plain(server: RedisServer, request: pytest.FixtureRequest) -> Store:
    """The store as workers use it: no request's view."""
    return Store(counting_client(server.url, request.node.name), 3600, 3600)


@pytest.fixture
def store(plain: Store) -> Store:
    """One request's view of the store (Store.session), as the desk makes one."""
    return plain.session()


def trips(store: Store) -> int:
    """The round trips the store's client made so far (bench.counting)."""
    label: str = store.redis.connection_pool.connection_class.label
    return COUNTS[label]["round_trips"] if label in COUNTS else 0


def new_room(store: Store) -> str:
    """A lobby in a group of its own (the tests share one Redis)."""
    room = lobby.create_room(-next(GROUPS), None, ANA, time.time(), settings=RoomSettings())
    assert store.create(room, lobby.changed(room), None)
    return room.id


def test_a_press_is_claimed_read_and_committed_in_two_round_trips(plain: Store) -> None:
    room_id = new_room(plain)
    plain.remember_user(BEN.user_id, "Ben", "es")
    plain.update(room_id, lambda r: Outcome(changed=True))  # Redis learns the scripts once
    plain.claim(7000)
    store = plain.session()
    before = trips(store)
    assert store.claim(7001, rooms=[room_id], users=[BEN.user_id]) == "claimed"
    assert store.user(BEN.user_id)["name"] == "Ben"
    room = store.load(room_id)
    assert room is not None
    assert store.update(room_id, lambda r: lobby.join(r, BEN), 7001, loaded=room) is not None
    store.finish(7001)  # written with the change: no round trip
    assert trips(store) - before == 2
    saved = store.load(room_id)
    assert saved is not None and [s.user_id for s in saved.seats] == [1, 2]
    assert store.claim(7001) == "duplicate"


def test_a_room_changed_after_it_was_read_ahead_is_changed_again_from_fresh(
    store: Store,
) -> None:
    room_id = new_room(store)
    assert store.claim(7002, rooms=[room_id]) == "claimed"
    stale = store.load(room_id)
    assert stale is not None
    assert store.update(room_id, lambda r: lobby.join(r, CARLA)) is not None  # another tap
    tried: list[int] = []

    def join(room: Room) -> Outcome:
        tried.append(len(room.seats))
        return lobby.join(room, BEN)

    result = store.update(room_id, join, 7002, loaded=stale)
    assert result is not None and tried == [1, 2]  # the stale copy first, then a fresh one
    saved = store.load(room_id)
    assert saved is not None and [s.user_id for s in saved.seats] == [1, 3, 2]


def test_a_commit_after_its_update_was_handled_writes_nothing(store: Store) -> None:
    room_id = new_room(store)
    assert store.claim(7003, rooms=[room_id]) == "claimed"
    room = store.load(room_id)
    assert room is not None
    other = Store(store.redis, 3600, 3600)  # a redelivery, handled by another copy first
    assert other.update(room_id, lambda r: lobby.join(r, BEN), 7003) is not None
    before = store.redis.get(room_key(room_id))
    assert store.update(room_id, lambda r: lobby.join(r, CARLA), 7003, loaded=room) is None
    assert store.redis.get(room_key(room_id)) == before


def test_the_room_knows_an_update_whose_mark_was_lost(plain: Store) -> None:
    """A cluster writes an update's mark apart from the room: the room holds the ids of
    the updates that changed it, so a redelivery changes nothing twice all the same."""
    room_id = new_room(plain)
    assert plain.update(room_id, lambda r: lobby.join(r, BEN), 7005) is not None
    plain.redis.delete(update_key(7005))
    before = plain.redis.get(room_key(room_id))
    assert plain.update(room_id, lambda r: lobby.join(r, CARLA), 7005) is None
    assert plain.redis.get(room_key(room_id)) == before


def test_a_commit_on_a_room_gone_writes_nothing(store: Store) -> None:
    room_id = new_room(store)
    room = store.load(room_id)
    assert room is not None
    store.redis.delete(room_key(room_id))
    store.redis.expire(f"chat:{room.chat_id}:0", 100)
    assert store.update(room_id, lambda r: lobby.join(r, BEN), loaded=room) is None
    assert store.redis.get(room_key(room_id)) is None
    assert store.redis.ttl(f"chat:{room.chat_id}:0") <= 100  # not written either


def test_what_was_read_ahead_is_not_read_after_it_was_written(store: Store) -> None:
    store.remember_user(BEN.user_id, "Ben", "en")
    assert store.claim(7004, users=[BEN.user_id]) == "claimed"
    store.set_user_language(BEN.user_id, "pt-br")
    assert store.user(BEN.user_id)["lang"] == "pt-br"
    store.finish(7004)


def test_the_store_itself_keeps_nothing_read_ahead_nor_a_committed_mark(
    plain: Store,
) -> None:
    """Workers use the store itself: a claim there reads nothing for later, and a
    change's mark does not spare a finish its round trip."""
    room_id = new_room(plain)
    plain.remember_user(BEN.user_id, "Ben", "es")
    plain.update(room_id, lambda r: Outcome(changed=True))  # Redis learns the scripts once
    assert plain.claim(7006, rooms=[room_id], users=[BEN.user_id]) == "claimed"
    before = trips(plain)
    assert plain.load(room_id) is not None and plain.user(BEN.user_id)["name"] == "Ben"
    assert plain.update(room_id, lambda r: lobby.join(r, BEN), 7006) is not None
    plain.finish(7006)
    assert trips(plain) - before == 5  # the load, the person, the update's two, finish
    assert plain.ahead is None and plain.committed is None


def test_each_request_has_its_own_view(plain: Store) -> None:
    room_id = new_room(plain)
    first, second = plain.session(), plain.session()
    assert first.claim(7007, rooms=[room_id]) == "claimed"
    assert second.claim(7008, rooms=[room_id]) == "claimed"
    assert first.update(room_id, lambda r: lobby.join(r, BEN), 7007) is not None
    assert first.committed == 7007 and second.committed is None
    stale = second.load(room_id)  # read with its own claim, before the join
    assert stale is not None and [s.user_id for s in stale.seats] == [1]
    assert first.redis is plain.redis and second.retention == plain.retention


def test_a_duplicate_keeps_nothing_read_ahead(store: Store) -> None:
    store.remember_user(BEN.user_id, "Ben", "en")
    store.redis.set(update_key(7005), 1)
    assert store.claim(7005, users=[BEN.user_id]) == "duplicate"
    store.redis.hset(f"user:{BEN.user_id}", "name", "Benito")
    assert store.user(BEN.user_id)["name"] == "Benito"


def test_the_asyncio_client_claims_and_commits_a_press_in_the_same_two_round_trips(
    server: RedisServer, store: Store
) -> None:
    """`serve`'s way (Store.aclaim, aupdate, afinish): the same round trips as above, on
    the asyncio client, and the same outcome."""
    room_id = new_room(store)
    store.remember_user(BEN.user_id, "Ben", "es")
    label = f"{store.redis.connection_pool.connection_class.label}-async"

    async def press() -> int:
        store.aredis = counting_aclient(server.url, label)
        try:
            await store.aupdate(room_id, lambda r: Outcome(changed=True))  # the script, once
            before = COUNTS[label]["round_trips"]
            assert await store.aclaim(7101, rooms=[room_id], users=[BEN.user_id]) == "claimed"
            room = store.load(room_id)
            assert room is not None and store.user(BEN.user_id)["name"] == "Ben"
            joined = await store.aupdate(room_id, lambda r: lobby.join(r, BEN), 7101, room)
            assert joined is not None
            await store.afinish(7101)
            assert await store.aclaim(7101) == "duplicate"
            return COUNTS[label]["round_trips"] - before - 1  # the duplicate's claim
        finally:
            await store.aredis.aclose()

    assert asyncio.run(press()) == 2
    saved = store.load(room_id)
    assert saved is not None and [s.user_id for s in saved.seats] == [1, 2]
    assert store.claim(7101) == "duplicate"  # the mark, as the synchronous client reads it


def test_an_update_released_on_the_asyncio_client_is_handled_again(
    server: RedisServer, store: Store
) -> None:
    async def claim_twice() -> tuple[str, str, str]:
        store.aredis = counting_aclient(server.url, "released")
        try:
            first = await store.aclaim(7103)
            busy = await store.aclaim(7103)  # another copy, while this one handles it
            await store.arelease(7103)
            return first, busy, await store.aclaim(7103)
        finally:
            await store.aredis.aclose()

    assert asyncio.run(claim_twice()) == ("claimed", "busy", "claimed")


def test_a_commit_loads_its_script_again_after_redis_forgot_it(store: Store) -> None:
    room_id = new_room(store)
    store.redis.script_flush()  # as after a restart of Redis
    assert store.update(room_id, lambda r: lobby.join(r, BEN)) is not None
    saved = store.load(room_id)
    assert saved is not None and [s.user_id for s in saved.seats] == [1, 2]
