"""A redelivered update is answered as the first time: its dedupe mark keeps the answer
(the popup's text, none, or out of date), and its claim reads it back in the same round
trip (Store.claimed / aclaimed). Against fakeredis and a real Redis."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator

import fakeredis
import pytest

from bench.counting import COUNTS, counting_client
from service.infra.keys import moves_key, update_key
from service.infra.redis_server import RedisServer
from service.infra.store import Claimed, Store
from service.infra.store.claims import MAX_ANSWER
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import QueuedPress
from service.table.room import RoomSettings

UPDATES = itertools.count(9000)
GROUPS = itertools.count(500)
ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    with RedisServer(tmp_path_factory.mktemp("redis"), persist=False) as running:
        yield running


@pytest.fixture(params=["fake", "real"])
def store(request: pytest.FixtureRequest) -> Store:
    if request.param == "fake":
        return Store(fakeredis.FakeRedis(), 3600, 3600)
    server: RedisServer = request.getfixturevalue("server")
    return Store(counting_client(server.url, request.node.name), 3600, 3600)


def trips(store: Store) -> int:
    """The round trips the store's client made so far (0 on fakeredis: not counted)."""
    label = getattr(store.redis.connection_pool.connection_class, "label", "")
    return COUNTS[label]["round_trips"] if label in COUNTS else 0


def new_room(store: Store) -> str:
    room = lobby.create_room(-next(GROUPS), None, ANA, time.time(), settings=RoomSettings())
    assert store.create(room, lobby.changed(room), None)
    return room.id


def handled(store: Store, answer: str | None) -> int:
    """An update claimed and finished with `answer`; its id."""
    update_id = next(UPDATES)
    assert store.claim(update_id) == "claimed"
    store.finish(update_id, answer)
    return update_id


@pytest.mark.parametrize("answer", ["Not your turn.", "", None])
def test_a_redelivery_is_given_the_first_answer(store: Store, answer: str | None) -> None:
    update_id = handled(store, answer)
    assert store.claimed(update_id) == Claimed("duplicate", answer)
    assert store.claim(update_id) == "duplicate"


def test_a_duplicate_and_its_answer_take_one_round_trip(store: Store) -> None:
    update_id = handled(store, "Your cards are in our private chat.")
    store.claim(next(UPDATES))  # Redis learns the script once
    before = trips(store)
    claimed = asyncio.run(store.aclaimed(update_id))
    assert claimed == Claimed("duplicate", "Your cards are in our private chat.")
    assert trips(store) - before in (0, 1)  # 0: fakeredis, not counted


def test_a_long_answer_is_kept_short(store: Store) -> None:
    update_id = handled(store, "x" * 1000)
    assert store.claimed(update_id).answer == "x" * MAX_ANSWER


def test_a_mark_from_an_older_release_has_no_answer(store: Store) -> None:
    update_id = next(UPDATES)
    store.redis.set(update_key(update_id), 1)
    assert store.claimed(update_id) == Claimed("duplicate", None)


def changed_and_finished(store: Store, room_id: str, answer: str) -> tuple[int, int]:
    """An update that joins Ben to the room, finished with `answer`: its id, and the
    round trips its finish took."""
    update_id, view = next(UPDATES), store.session()  # one request's view, as the desk's
    assert view.claim(update_id, rooms=[room_id]) == "claimed"
    assert view.update(room_id, lambda r: lobby.join(r, BEN), update_id) is not None
    before = trips(store)
    view.finish(update_id, answer)
    return update_id, trips(store) - before


def test_a_change_marks_no_popup_and_a_popup_is_written_after_it(store: Store) -> None:
    room_id = new_room(store)
    quiet, spent = changed_and_finished(store, room_id, "")
    assert spent == 0  # written with the change
    loud, _ = changed_and_finished(store, room_id, "You sit at the table.")
    assert store.claimed(quiet) == Claimed("duplicate", "")
    assert store.claimed(loud) == Claimed("duplicate", "You sit at the table.")


def queue_a_press(store: Store, user: int) -> QueuedPress:
    """A press its room's moves hash lists (as a playing room's commit writes it)."""
    room_id = new_room(store)
    store.redis.hset(moves_key(room_id), mapping={"phase": 3, str(user): "play:5H\ndraw"})
    return QueuedPress(room_id, 3, user, next(UPDATES), time.time(), "draw")


def test_a_queued_press_redelivered_is_answered_without_a_popup(store: Store) -> None:
    press = queue_a_press(store, BEN.user_id)
    assert asyncio.run(store.aclaim(press.update_id, press=press)) == "accepted"
    again = asyncio.run(store.aclaimed(press.update_id, press=press))
    assert again == Claimed("duplicate", "")


def test_a_press_out_of_date_redelivered_is_out_of_date_again(store: Store) -> None:
    first = queue_a_press(store, BEN.user_id)
    assert asyncio.run(store.aclaim(first.update_id, press=first)) == "accepted"
    second = QueuedPress(first.room, 3, BEN.user_id, next(UPDATES), time.time(), "play:5H")
    assert asyncio.run(store.aclaim(second.update_id, press=second)) == "pressed"
    again = asyncio.run(store.aclaimed(second.update_id, press=second))
    assert again == Claimed("duplicate", None, out_of_date=True)
