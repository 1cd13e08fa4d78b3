"""The store's reads and writes on one Redis and on a cluster (conftest.BACKENDS): a
room's life, each update once, presses queued, the bucketed indexes, timers, and what
the sweeper and the idle sweep find. On the cluster every script is refused if it
touches a key it did not declare or one of another slot: these pass only if none does."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from functools import partial

import pytest
import redis
import redis.asyncio
from redis.exceptions import RedisClusterException

from service.infra import indexes, timers, trips
from service.infra.keys import (
    DUE_KEY,
    IDLE_KEY,
    PENDING_PRESSES,
    PENDING_SYNC,
    TIMERS_KEY,
    chat_key,
    moves_key,
    room_key,
    update_key,
)
from service.infra.store import Store
from service.table import lobby
from service.table.buckets import STRIDE, slot_of
from service.table.lobby import Actor
from service.table.outcome import Outcome, QueuedPress
from service.table.play import waiting_moves
from service.table.room import Room, RoomSettings
from tests.store.conftest import jobs_of
from workers import sweeper

CHATS = itertools.count(-5000, -1)
UPDATES = itertools.count(9_000_000)
ANA, BEN, CARLA = Actor(1, "Ana", "en"), Actor(2, "Ben", "en"), Actor(3, "Carla", "en")


def new_lobby(store: Store, *others: Actor) -> Room:
    room = lobby.create_room(next(CHATS), None, ANA, time.time(), settings=RoomSettings())
    assert store.create(room, lobby.changed(room), next(UPDATES))
    for actor in others:
        assert store.update(room.id, partial(lobby.join, actor=actor), next(UPDATES))
    found = store.load(room.id)
    assert found is not None
    return found


def new_game(store: Store) -> Room:
    room = new_lobby(store, BEN)
    started = store.update(room.id, lambda r: lobby.start(r, ANA, time.time()), next(UPDATES))
    assert started is not None and started[0].status == "playing"
    return started[0]


def test_a_new_room_lands_in_a_bucket_slot(store: Store) -> None:
    room = new_lobby(store)
    assert slot_of(room.id) % STRIDE == 0
    assert store.redis.get(chat_key(room.chat_id, None)) == room.id.encode()
    assert indexes.score(store.redis, IDLE_KEY, room.id) is not None


def test_a_chat_with_a_live_room_gets_no_second_one(store: Store) -> None:
    room = new_lobby(store)
    again = lobby.create_room(room.chat_id, None, BEN, time.time(), settings=RoomSettings())
    assert not store.create(again, lobby.changed(again), next(UPDATES))
    assert store.load(again.id) is None
    assert store.redis.get(chat_key(room.chat_id, None)) == room.id.encode()


def test_a_cancelled_room_leaves_its_chat_to_the_next(store: Store) -> None:
    room = new_lobby(store)
    assert store.update(room.id, lambda r: lobby.cancel(r, ANA, time.time()), next(UPDATES))
    assert indexes.score(store.redis, IDLE_KEY, room.id) is None
    after = lobby.create_room(room.chat_id, None, BEN, time.time(), settings=RoomSettings())
    assert store.create(after, lobby.changed(after), next(UPDATES))
    assert store.redis.get(chat_key(room.chat_id, None)) == after.id.encode()


def test_each_update_is_claimed_once(store: Store) -> None:
    update = next(UPDATES)
    assert store.claim(update) == "claimed"
    assert store.claim(update) == "busy"
    store.release(update)
    assert store.claim(update) == "claimed"
    store.finish(update, "Not your turn")
    claimed = store.claimed(update)
    assert claimed.claim == "duplicate" and claimed.answer == "Not your turn"


def test_a_claim_reads_its_rooms_and_people(store: Store) -> None:
    room = new_lobby(store)
    store.remember_user(BEN.user_id, "Ben", "es")
    view = store.session()
    assert view.claim(next(UPDATES), rooms=[room.id], users=[BEN.user_id]) == "claimed"
    assert view.load(room.id) == room
    assert view.user(BEN.user_id)["name"] == "Ben"


def test_a_redelivered_change_is_not_made_twice(store: Store) -> None:
    room = new_lobby(store)
    update = next(UPDATES)
    assert store.update(room.id, lambda r: lobby.join(r, BEN), update)
    store.redis.delete(update_key(update))  # a cluster writes it apart: it may be lost
    assert store.update(room.id, lambda r: lobby.join(r, CARLA), update) is None
    found = store.load(room.id)
    assert found is not None and [s.user_id for s in found.seats] == [1, 2]


def test_changes_at_once_are_each_made_once(store: Store) -> None:
    room = new_lobby(store)

    def bump(fresh: Room) -> Outcome:
        fresh.updated += 1
        return Outcome(changed=True)

    workers = [threading.Thread(target=store.update, args=(room.id, bump)) for _ in range(12)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    found = store.load(room.id)
    assert found is not None and found.updated == room.updated + 12


def test_a_started_game_is_due_and_lists_its_moves(store: Store) -> None:
    room = new_game(store)
    assert indexes.score(store.redis, DUE_KEY, room.id) is not None
    assert store.redis.hget(moves_key(room.id), "phase") == str(room.phase_version).encode()
    assert any(m.startswith(f"{room.id}|") for m in indexes.members(store.redis, PENDING_SYNC))
    assert jobs_of(store, f"sync-{room.id}-")


def a_press(room: Room, update: int) -> QueuedPress:
    user, moves = next(iter(waiting_moves(room).items()))
    return QueuedPress(room.id, room.phase_version, user, update, time.time(), moves[0])


def test_a_listed_press_is_queued_with_its_job(store: Store) -> None:
    room = new_game(store)
    press = a_press(room, next(UPDATES))
    claim = asyncio.run(store.aclaim(press.update_id, [room.id], [press.user], press))
    assert claim == "accepted"
    assert indexes.score(store.redis, PENDING_PRESSES, press.member) is not None
    assert jobs_of(store, f"press-{room.id}-")
    again = QueuedPress(room.id, press.phase, press.user, next(UPDATES), time.time(), press.action)
    assert asyncio.run(store.aclaim(again.update_id, [room.id], [press.user], again)) == "pressed"
    assert store.claimed(press.update_id).claim == "duplicate"


def test_a_change_applies_the_queued_press_first(store: Store) -> None:
    room = new_game(store)
    press = a_press(room, next(UPDATES))
    asyncio.run(store.aclaim(press.update_id, [room.id], [press.user], press))
    changed = store.update(room.id, lambda r: Outcome(presses=[press.member]))
    assert changed is not None and changed[0].version > room.version
    assert indexes.score(store.redis, PENDING_PRESSES, press.member) is None


def test_the_timers_of_many_rooms_are_claimed_once(store: Store) -> None:
    rooms = [new_lobby(store) for _ in range(6)]
    now = time.time()
    for room in rooms:
        read = room._loaded_from or b""
        assert timers.wake_if_same(store.redis, room_key(room.id), read, room.id, now - 1)
    claimed = timers.claim_due(store.redis, now)
    assert sorted(claimed) == sorted(r.id for r in rooms)
    assert timers.claim_due(store.redis, now) == []  # leased: not claimed twice
    assert timers.next_due(store.redis) is not None
    fired = timers.fire_due(store.redis, now + timers.LEASE + 1, store.jobs)
    assert fired == len(rooms) and len(jobs_of(store, "timer-")) >= len(rooms)
    for room in rooms:
        assert indexes.score(store.redis, TIMERS_KEY, room.id) is not None


def test_the_sweeper_queues_a_lost_sync_again(store: Store) -> None:
    room = new_game(store)
    store.jobs.delete("rq:queue:burro")  # the jobs were lost
    later = time.time() + 3600
    assert sweeper.sweep_once(store, later, 60) >= 1
    assert jobs_of(store, f"sync-{room.id}-")


def test_an_index_is_read_over_every_bucket(store: Store) -> None:
    rooms = [new_lobby(store) for _ in range(5)]
    due = dict(indexes.due(store.redis, IDLE_KEY, float("inf"), 10_000))
    assert {r.id for r in rooms} <= set(due)
    assert indexes.count(store.redis, IDLE_KEY) >= len(rooms)


def test_a_script_may_not_reach_out_of_its_slot(store: Store, backend: str) -> None:
    """The guard the tests above rely on: on the cluster, a script that touches a key of
    another slot is refused (by the server: `#!lua`), as one naming two slots is (by the
    client); one Redis lets both through."""
    room = new_lobby(store)
    chat = chat_key(room.chat_id, None)
    undeclared = trips.Script("return redis.call('GET', ARGV[1])", [room_key(room.id)], [chat])
    two_slots = trips.Script("return redis.call('GET', KEYS[2])", [room_key(room.id), chat])
    for script in (undeclared, two_slots):
        if backend == "cluster":
            with pytest.raises((redis.RedisError, RedisClusterException)):
                trips.run(store.redis, one_trip(script))
        else:
            assert trips.run(store.redis, one_trip(script)) == room.id.encode()


def one_trip(trip: trips.Trip) -> trips.Steps[object]:
    return (yield trip)


@pytest.mark.parametrize("backend", ["cluster"])  # the one Redis here has no replica
def test_a_move_no_replica_confirmed_is_not_acknowledged(store: Store) -> None:
    """Asked for more replicas than there are, a change is refused as not durable (it
    was written: the room knows its update, so its redelivery is not made twice)."""
    room = new_lobby(store)
    store.durable = trips.Durable(2, 50)
    update = next(UPDATES)
    with pytest.raises(trips.NotDurable):
        store.update(room.id, lambda r: lobby.join(r, BEN), update)
    store.durable = trips.Durable(1, 2000)
    assert store.update(room.id, lambda r: lobby.join(r, CARLA), update) is None


def test_a_move_lost_with_its_node_is_applied_again_on_redelivery(store: Store) -> None:
    """A change lost in a fail-over takes with it what says its update was handled: the
    room's note (Room.handled), and the update's mark, written in the same script on one
    Redis and only after a replica confirmed the change on a cluster. So the platform's
    redelivery (its update was never answered) applies the move once more, and once."""
    room = new_lobby(store)
    update, before = next(UPDATES), store.redis.get(room_key(room.id))
    assert store.claim(update) == "claimed"
    assert store.update(room.id, lambda r: lobby.join(r, BEN), update)
    store.redis.set(room_key(room.id), before)  # the replica taking over never had it
    store.redis.delete(update_key(update))  # lost with it (one Redis), or never written
    assert store.claim(update) == "claimed"  # the redelivery
    assert store.update(room.id, lambda r: lobby.join(r, BEN), update)
    assert store.update(room.id, lambda r: lobby.join(r, BEN), update) is None
    found = store.load(room.id)
    assert found is not None and [s.user_id for s in found.seats] == [1, 2]


def test_the_views_hear_of_every_change(store: Store) -> None:
    """The open views follow `view:changed` (service.view.live): on a cluster, through a
    plain client of one of its nodes, since each PUBLISH reaches them all."""
    from service.view.live import CHANNEL, Live

    async def heard() -> bytes:
        aclient = (
            redis.asyncio.RedisCluster.from_url(cluster_url(store))
            if not store.one_node
            else redis.asyncio.Redis.from_url(node_url(store))
        )
        live = Live(aclient, load=None, paint=None)  # type: ignore[arg-type]
        async with live.subscriber() as client, client.pubsub() as pubsub:
            await pubsub.subscribe(CHANNEL)
            room = new_lobby(store)  # its commit publishes its id
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # (None: the subscription's own answer)
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                if message is not None and message["data"] == room.id.encode():
                    await aclient.aclose()
                    return bytes(message["data"])
        raise AssertionError("no word of the change")

    assert asyncio.run(heard())


def cluster_url(store: Store) -> str:
    node = store.redis.get_default_node()
    return f"redis://{node.host}:{node.port}"


def node_url(store: Store) -> str:
    kwargs = store.redis.connection_pool.connection_kwargs
    return f"redis://{kwargs['host']}:{kwargs['port']}"


def test_of_rooms_opened_at_once_in_one_chat_one_stays(store: Store) -> None:
    """Six tables opened in one chat at the same moment: one is the chat's; the others
    leave nothing behind (no room, no index entry, no chat waiting for the outbox) and
    queued no job (one run before its room went could show that room in the chat)."""
    chat = next(CHATS)
    rooms = [
        lobby.create_room(chat, None, Actor(n, f"P{n}", "en"), time.time(), settings=RoomSettings())
        for n in range(1, 7)
    ]
    made: list[bool] = []
    threads = [
        threading.Thread(target=lambda r=r: made.append(store.create(r, lobby.changed(r), None)))
        for r in rooms
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert made.count(True) == 1
    kept = store.redis.get(chat_key(chat, None)).decode()
    for room in rooms:
        there = room.id == kept
        assert (store.load(room.id) is not None) == there
        assert (indexes.score(store.redis, IDLE_KEY, room.id) is not None) == there
        waiting = [m for m in indexes.members(store.redis, PENDING_SYNC) if m.startswith(room.id)]
        assert bool(waiting) == there
        assert bool(jobs_of(store, f"sync-{room.id}")) == there
