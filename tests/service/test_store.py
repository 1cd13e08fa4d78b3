"""The store's update reuses the room a handler loaded, only while it is what Redis holds:
a tap parses its room once, and never acts on a stale or already-changed copy."""

from __future__ import annotations

import time

import fakeredis
import pytest

from service.infra.store import Store
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings

ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")


@pytest.fixture
def store() -> Store:
    return Store(fakeredis.FakeRedis(), 3600, 3600)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the rooms parsed from JSON."""
    calls: list[int] = []
    parse = Room.model_validate_json

    def counted(data: bytes | str) -> Room:
        calls.append(1)
        return parse(data)

    monkeypatch.setattr(Room, "model_validate_json", counted)
    return calls


def new_room(store: Store) -> str:
    room = lobby.create_room(-100, None, ANA, time.time(), settings=RoomSettings())
    assert store.create(room, lobby.changed(room), None)
    return room.id


def test_an_update_of_the_room_as_loaded_parses_it_once(store: Store, parses: list[int]) -> None:
    room_id = new_room(store)
    room = store.load(room_id)
    assert room is not None and len(parses) == 1
    result = store.update(room_id, lambda r: lobby.join(r, BEN), loaded=room)
    assert result is not None and len(parses) == 1
    assert result[0] is room  # the loaded copy was changed and is given up
    saved = store.load(room_id)
    assert saved is not None and [s.user_id for s in saved.seats] == [1, 2]


def test_a_room_changed_since_it_was_loaded_is_read_again(store: Store, parses: list[int]) -> None:
    room_id = new_room(store)
    stale = store.load(room_id)
    assert stale is not None
    assert store.update(room_id, lambda r: lobby.join(r, BEN)) is not None
    result = store.update(room_id, lambda r: lobby.leave(r, BEN), loaded=stale)
    assert result is not None and result[0] is not stale
    saved = store.load(room_id)
    assert saved is not None and [s.user_id for s in saved.seats] == [1]


def test_a_loaded_room_serves_one_update_only(store: Store) -> None:
    room_id = new_room(store)
    room = store.load(room_id)
    assert room is not None
    assert store.update(room_id, lambda r: Outcome(), loaded=room) is not None  # no change
    again = store.update(room_id, lambda r: lobby.join(r, BEN), loaded=room)
    assert again is not None and again[0] is not room
