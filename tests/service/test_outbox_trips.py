"""The outbox's Redis round trips for a target (issue #40): what a target needs is read
in one trip before it is drawn (`read_ahead`), and what its send leaves is written in
one script call after (`write_marks`). Counted, not timed: a command sent alone or a
pipeline is one round trip."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from redis.client import Pipeline

from service.infra import tables
from service.infra.keys import (
    BOT_EPHEMERAL,
    BOT_INLINE,
    BOT_WIDGETS,
    IDLE_KEY,
    index_key,
    live_key,
    msgs_key,
    sent_key,
    user_seated_key,
)
from service.platforms.telegram import botfather
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings
from tests.service.conftest import FakeApi
from tests.service.test_outbox import started_room
from workers import outbox
from workers.runtime import Runtime


@contextmanager
def trips(rt: Runtime, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The round trips to Redis made inside, each named by its first command; the
    bot's settings aside (a process reads each once in a few seconds: botfather)."""
    made: list[str] = []
    alone, batch = rt.redis.execute_command, Pipeline.execute
    settings = {BOT_EPHEMERAL, BOT_INLINE, BOT_WIDGETS}

    def command(*args: Any, **options: Any) -> Any:
        if not (args[0] == "GET" and args[1] in settings):
            made.append(str(args[0]))
        return alone(*args, **options)  # type: ignore[no-untyped-call]

    def pipeline(pipe: Pipeline, raise_on_error: bool = True) -> list[Any]:
        if pipe.command_stack:
            made.append("pipeline:" + str(pipe.command_stack[0][0][0]))
        return batch(pipe, raise_on_error)

    monkeypatch.setattr(rt.redis, "execute_command", command)
    monkeypatch.setattr(Pipeline, "execute", pipeline)
    yield made


def test_a_hand_sent_reads_once_and_writes_once(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand's message: the job's own locks and room, one read of what the hand needs
    (its marks, its reader's tables and /look), one write of what its send leaves, the
    job's end; and the marks written are all there."""
    room = started_room(rt)
    tables.open_ids(rt.svc.store, 2)  # his open rooms' set, made once a person (below)
    with trips(rt, monkeypatch) as made:
        outbox.sync(rt, room.id, "hand:2")
    assert len(made) <= 4, made
    assert rt.redis.hget(msgs_key(room.id), "hand:2") is not None
    assert rt.redis.hget(sent_key(room.id), "hand:2") is not None
    assert rt.redis.hexists(live_key(room.id), "top:2")


def test_a_hand_that_shows_this_already_reads_once_and_sends_nothing(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    room = started_room(rt)
    outbox.sync(rt, room.id, "hand:2")
    sent = rt.clients["telegram"].sent()  # type: ignore[attr-defined]
    with trips(rt, monkeypatch) as made:
        outbox.sync(rt, room.id, "hand:2")
    assert rt.clients["telegram"].sent() == sent  # type: ignore[attr-defined]
    assert len(made) <= 3, made


def test_a_drawn_hand_edited_reads_what_its_widget_shows_with_its_marks(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand drawn as a widget, changed: what the widget shows is read with the
    target's marks, not in a trip of its own before the edit."""
    botfather.record_widgets(rt.redis, True)
    monkeypatch.setattr(rt.svc.settings, "telegram_widgets", True)  # the suite's is off
    room = started_room(rt)
    outbox.sync(rt, room.id, "hand:2")
    api: FakeApi = rt.clients["telegram"]  # type: ignore[assignment]
    assert [method for method, _params in api.calls] == ["sendWidget"]

    def rename(fresh: Room) -> Outcome:
        fresh.seats[0].name = "Anita"
        return Outcome(changed=True)

    assert rt.svc.store.update(room.id, rename) is not None
    with trips(rt, monkeypatch) as made:
        outbox.sync(rt, room.id, "hand:2")
    assert "editMessageCaption" in [method for method, _params in api.calls]
    # the job's locks and room, the read ahead, the marks with the widget's, its end
    assert len(made) <= 4, made


@pytest.mark.parametrize("other", ["open", "closed"])
def test_a_hand_names_its_table_for_one_who_sits_at_another_open_one(
    rt: Runtime, other: str
) -> None:
    """His open rooms are read ahead with the marks; a room there other than this one
    is looked at (still open, and he sits there) as service.infra.tables does."""
    api: FakeApi = rt.clients["telegram"]  # type: ignore[assignment]
    room = started_room(rt)
    second = carlas_game_with_ben(rt, -200)
    if other == "closed":
        rt.redis.zrem(index_key(IDLE_KEY, second.id), second.id)
    assert tables.elsewhere(rt.svc.store, 2, room.id) == (other == "open")
    outbox.sync(rt, room.id, "hand:2")
    named = "🫏" in str(api.calls[-1][1]["text"])
    assert named == (other == "open")
    # A room found closed leaves his open rooms: later screens do not ask about it.
    seated = tables.seated_ids(rt.redis.smembers(user_seated_key(2)))
    assert seated is not None and (second.id in seated) == (other == "open")


def carlas_game_with_ben(rt: Runtime, chat: int) -> Room:
    """A game Carla opened in another group, Ben seated at it, dealt."""
    carla, ben = Actor(3, "Carla", "en"), Actor(2, "Ben", "en")
    now = time.time()
    game = lobby.create_room(chat, None, carla, now, settings=RoomSettings(preset="spanish"))
    lobby.join(game, ben)
    assert rt.svc.store.create(game, lobby.start(game, carla, now, 0.0), None)
    return game


def finished_games(rt: Runtime, count: int) -> list[str]:
    """`count` games Ben played with Carla that are over, as their last moves leave them."""

    def over(fresh: Room) -> Outcome:
        fresh.status = "over"
        return Outcome(changed=True, finished=True)

    ids = []
    for n in range(count):
        old = carlas_game_with_ben(rt, -300 - n)
        assert rt.svc.store.update(old.id, over) is not None
        ids.append(old.id)
    return ids


def test_a_hand_asks_nothing_of_the_games_its_reader_played_before(rt: Runtime) -> None:
    """A year of evenings leaves a person in hundreds of rooms (the people index keeps
    them for /forget); a screen of theirs looks at their open tables only."""
    past = finished_games(rt, 12)
    room = started_room(rt)
    outbox.sync(rt, room.id, "hand:2")  # his open rooms' set made, at his first screen
    assert tables.open_ids(rt.svc.store, 2) == [room.id]
    asked: list[tuple[Any, ...]] = []
    batch = Pipeline.execute

    def pipeline(pipe: Pipeline, raise_on_error: bool = True) -> list[Any]:
        asked.extend(args for args, _options in pipe.command_stack)
        return batch(pipe, raise_on_error)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Pipeline, "execute", pipeline)
        request_hand(rt, room)
        outbox.sync(rt, room.id, "hand:2")
    assert asked, "the hand's job read nothing"
    named = [args for args in asked if any(str(a).find(r) >= 0 for a in args for r in past)]
    assert not named, named


def request_hand(rt: Runtime, room: Room) -> None:
    """A change that Ben's hand shows (a seat renamed)."""

    def rename(fresh: Room) -> Outcome:
        fresh.seats[0].name = "Anita"
        return Outcome(changed=True)

    assert rt.svc.store.update(room.id, rename) is not None


def test_open_rooms_kept_from_before_are_found_once_and_then_kept(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person whose open rooms' set was never made (their tables opened before it was
    kept) has it made from the people index at their first screen; later screens read
    it alone."""
    api: FakeApi = rt.clients["telegram"]  # type: ignore[assignment]
    room = started_room(rt)
    second = carlas_game_with_ben(rt, -200)
    rt.redis.delete(user_seated_key(2))  # as the code before kept it: no such set
    outbox.sync(rt, room.id, "hand:2")
    assert "🫏" in str(api.calls[-1][1]["text"])  # the table named: he sits at two
    assert tables.seated_ids(rt.redis.smembers(user_seated_key(2))) == frozenset(
        {room.id, second.id}
    )
    request_hand(rt, room)
    with trips(rt, monkeypatch) as made:
        outbox.sync(rt, room.id, "hand:2")
    assert "SMEMBERS" not in made, made  # the people index is not read again
    assert "🫏" in str(api.calls[-1][1]["text"])
