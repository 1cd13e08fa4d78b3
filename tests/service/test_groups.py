"""service.table.groups on its own (Redis in memory): moving a group's rooms to its supergroup,
stopping the games of a chat that is gone."""

from __future__ import annotations

import time

import fakeredis
import pytest

from service.infra import chats, indexes
from service.infra.keys import PENDING_SYNC
from service.infra.store import Store, chat_key, text
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings

ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")
OLD, NEW = -4000000001, -1004000000001


@pytest.fixture
def store() -> Store:
    return Store(fakeredis.FakeRedis(), 3600, 3600)


def playing(store: Store, chat: int, thread: int | None = None) -> Room:
    now = time.time()
    room = lobby.create_room(chat, thread, ANA, now, settings=RoomSettings())
    lobby.join(room, BEN)
    assert store.create(room, lobby.start(room, ANA, now), None)
    return room


def test_an_upgrade_moves_the_room_its_index_caps_and_stats(store: Store) -> None:
    room = playing(store, OLD)
    store.redis.hset(f"stats:chat:{OLD}", mapping={"games": 3, "burro:2": 1})
    indexes.clear(store.redis, PENDING_SYNC)
    assert chats.migrate(store, OLD, NEW) == [room.id]
    moved = store.room_in_chat(NEW, None)
    assert moved is not None and moved.id == room.id and moved.chat_id == NEW
    assert moved.version == room.version and moved.game == room.game  # timers still hold
    assert store.room_in_chat(OLD, None) is None
    assert store.redis.sismember(f"open:chat:{NEW}", room.id)
    assert not store.redis.sismember(f"open:chat:{OLD}", room.id)
    assert store.stats(f"stats:chat:{NEW}") == {"games": 3, "burro:2": 1}
    assert store.redis.sismember("user:2:chats", str(NEW))  # forgetting Ben finds it
    posted = indexes.score(store.redis, PENDING_SYNC, f"{room.id}|table:new")
    assert posted is not None  # posted anew
    assert chats.migrate(store, OLD, NEW) == []  # the second service message: nothing to do


def test_a_finished_game_moves_without_a_new_table(store: Store) -> None:
    room = playing(store, OLD)

    def finish(fresh: Room) -> Outcome:
        fresh.status = "over"
        return Outcome(changed=True)

    store.update(room.id, finish)
    indexes.clear(store.redis, PENDING_SYNC)
    assert chats.migrate(store, OLD, NEW) == [room.id]
    assert indexes.count(store.redis, PENDING_SYNC) == 0
    moved = store.load(room.id)
    assert moved is not None and moved.chat_id == NEW and moved.status == "over"


@pytest.mark.parametrize(("blocked", "reminded"), [(True, True), (True, False), (False, True)])
def test_an_upgrade_reminds_anew_who_plays_from_the_group(
    store: Store, blocked: bool, reminded: bool
) -> None:
    """The turn's reminder, given in the old group, holds the way to the cards of a
    member who plays from the group: it comes again in the supergroup (else only the
    table, whose deletion nobody would tell the bot, would show it)."""
    room = playing(store, OLD)
    waiting = [room.seats[s].user_id for s in play.waiting_humans(room)]

    def before(fresh: Room) -> Outcome:
        fresh.blocked = [u for u in waiting if u is not None] if blocked else []
        fresh.reminded = reminded
        return Outcome(changed=True)

    store.update(room.id, before)
    indexes.clear(store.redis, PENDING_SYNC)
    assert chats.migrate(store, OLD, NEW) == [room.id]
    pending = {text(m).split("|", 1)[1] for m in indexes.members(store.redis, PENDING_SYNC)}
    assert pending == ({"table:new", "nudge"} if blocked and reminded else {"table:new"})


def test_stopping_a_chat_ends_its_live_games_in_every_topic_once(store: Store) -> None:
    general, topic = playing(store, NEW), playing(store, NEW, 7)
    elsewhere = playing(store, -1009)
    stopped = chats.stop_chat(store, NEW, time.time())
    assert sorted(r.id for r in stopped) == sorted([general.id, topic.id])
    for room in (general, topic):
        gone = store.load(room.id)
        assert gone is not None and gone.status == "cancelled" and gone.deadline is None
        assert store.redis.ttl(f"game:{{{room.id}}}:room") > 0  # it expires
        assert not store.redis.exists(chat_key(NEW, room.thread_id))
    assert chats.stop_chat(store, NEW, time.time()) == []
    assert chats.stop(store, topic.id, time.time()) is None
    still = store.room_in_chat(-1009, None)
    assert still is not None and still.status == "playing"
    assert elsewhere.id != general.id
