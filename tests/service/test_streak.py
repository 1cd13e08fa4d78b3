"""Bots that move at once play in the job that made their turn due (workers.jobs.streak):
one job for the bots between two of a person's moves, not one job each, and a bot move
that fails leaves the turns after it to jobs of their own."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest
from rq import SimpleWorker

from engine.follow_suit.game import GameState, legal_actions, to_move
from service.infra.queue import QUEUE
from service.infra.store import Store
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from workers import jobs
from workers.runtime import Runtime

ANA = Actor(1, "Ana", "en")
CHATS = itertools.count(1)


def private_game(store: Store) -> str:
    """Ana against two bots that move at once, dealt and started."""
    now = time.time()
    chat = next(CHATS)  # a game of its own each time (one private chat holds one)
    room = lobby.create_room(chat, None, ANA, now, private=True, settings=RoomSettings())
    lobby.add_bot(room, ANA)
    lobby.add_bot(room, ANA)
    assert store.create(room, lobby.start(room, ANA, now, 0.0), None)
    return room.id


def seat_to_move(store: Store, room_id: str) -> int | None:
    room = store.load(room_id)
    assert room is not None
    if room.status != "playing" or not isinstance(room.game, GameState):
        return None
    return to_move(room.game)


def counted(monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """The calls of `workers.jobs.<name>` (as RQ finds it), by their argument."""
    calls: list[str] = []
    real: Callable[..., Any] = getattr(jobs, name)

    def counting(room_id: str, arg: str) -> Any:
        calls.append(arg)
        return real(room_id, arg)

    monkeypatch.setattr(jobs, name, counting)
    return calls


def bots_at_once(rt: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    """The jobs run on `rt`, and bots move without thinking first."""
    monkeypatch.setattr(jobs, "runtime", lambda: rt)
    monkeypatch.setattr(rt.svc.settings, "bot_delay", 0.0)


def burst(rt: Runtime) -> None:
    SimpleWorker([QUEUE], connection=rt.redis).work(burst=True, with_scheduler=False)


def ana_moves(rt: Runtime, room_id: str) -> Room:
    """Ana plays her first legal action, as a tap in serve commits it; the room after."""

    def move(room: Room) -> Any:
        assert isinstance(room.game, GameState)
        action = legal_actions(room.game, 0)[0]
        return play.act(room, 0, action, time.time(), 0.0)

    done = rt.svc.store.update(room_id, move)
    assert done is not None
    return done[0]


def test_the_bots_between_two_of_her_moves_play_in_one_job(
    rt: Runtime,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bots_at_once(rt, monkeypatch)
    turns = counted(monkeypatch, "bot_turn")
    store = rt.svc.store
    room_id = private_game(store)
    burst(rt)  # the bots before her first turn, if any
    for _ in range(5):
        if seat_to_move(store, room_id) != 0:
            break
        before = store.load(room_id)
        assert before is not None
        turns.clear()
        moved = ana_moves(rt, room_id)
        burst(rt)
        after = store.load(room_id)
        assert after is not None
        assert len(turns) <= 1  # every bot's move in the one job her move made
        assert after.version > before.version
        assert seat_to_move(store, room_id) in (0, None)  # her turn again, or the hand over
        # a bot's job that ran moved the game on (counted in versions: the log keeps
        # only its last lines, which a long draw of hers can fill)
        assert after.version > moved.version or not turns


def test_a_bot_move_that_fails_leaves_the_next_to_a_job_of_its_own(
    rt: Runtime,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bots_at_once(rt, monkeypatch)
    store = rt.svc.store
    room_id = private_game(store)
    burst(rt)
    while seat_to_move(store, room_id) != 0:  # a hand that starts with her
        room_id = private_game(store)
        burst(rt)
    real = play.bot_action
    calls: list[int] = []

    def second_fails(room: Room, seat: int, level: str | None = None) -> str | None:
        calls.append(seat)
        if len(calls) == 2:  # the second bot of the streak
            raise RuntimeError("the search ran out of memory")
        return real(room, seat, level)

    monkeypatch.setattr(play, "bot_action", second_fails)
    turns = counted(monkeypatch, "bot_turn")
    for _ in range(30):  # until both bots choose after one of her moves (not forced)
        if seat_to_move(store, room_id) != 0:
            break
        calls.clear()
        turns.clear()
        ana_moves(rt, room_id)
        burst(rt)  # the second bot's move fails: a job of its own plays it
        if len(calls) >= 2:
            assert calls[2] == calls[1]  # the seat whose move failed, in its own job
            assert len(turns) == 2 and turns[1].endswith(f":{calls[1]}")
            assert seat_to_move(store, room_id) in (0, None)
            return
    pytest.fail("no two bots chose in a row after her moves")
