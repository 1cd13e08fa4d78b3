"""Bots that move at once play in the job that made their turn due (workers.jobs.streak):
one job for the bots between two of a person's moves, not one job each, and one commit
with the move before them (workers.jobs.BotsAfter): a press and the cheap bots' replies
are one read and one write of the room, the bots choosing as their own jobs would. A bot
move that fails in that commit leaves the move before it committed alone; failing again
on its own, its turn goes to a job of its own."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest
from rq import SimpleWorker

from engine.follow_suit.game import GameState, legal_actions, to_move
from service.infra import indexes
from service.infra.keys import PENDING_PRESSES, index_key, room_key
from service.infra.queue import BOT_QUEUE, QUEUE
from service.infra.store import Store, decode_room, presses_key, text
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.outcome import Outcome, QueuedPress
from service.table.room import Room, RoomSettings
from workers import jobs
from workers.runtime import Runtime

ANA = Actor(1, "Ana", "en")
CHATS = itertools.count(1)


def private_game(store: Store, levels: tuple[str, ...] = ("heuristic",) * 2) -> str:
    """Ana against bots of these levels (two cheap ones unless told), dealt and started."""
    now = time.time()
    chat = next(CHATS)  # a game of its own each time (one private chat holds one)
    room = lobby.create_room(chat, None, ANA, now, private=True, settings=RoomSettings())
    for level in levels:
        lobby.add_bot(room, ANA)
        room.seats[-1].bot = level
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
    """The jobs run on `rt`, and bots move without thinking first (the store's queued
    presses too, as a deployment's store takes the settings' delay)."""
    monkeypatch.setattr(jobs, "runtime", lambda: rt)
    monkeypatch.setattr(rt.svc.settings, "bot_delay", 0.0)
    monkeypatch.setattr(rt.svc.store, "bot_delay", 0.0)


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
        if len(calls) in (2, 3):  # the second bot: in the first's commit, then alone
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
        burst(rt)  # the second bot's move fails twice: a job of its own plays it
        if len(calls) >= 2:
            assert calls[1] == calls[2] == calls[3]  # the seat whose move failed
            assert len(turns) == 2 and turns[1].endswith(f":{calls[1]}")
            assert seat_to_move(store, room_id) in (0, None)
            return
    pytest.fail("no two bots chose in a row after her moves")


# ----- a press and the bots' replies in one commit ---------------------------------------

THREE = ("heuristic",) * 3


def her_turn(rt: Runtime, levels: tuple[str, ...] = THREE) -> str:
    """A game against bots of these levels whose first hand starts with Ana."""
    for _ in range(30):
        room_id = private_game(rt.svc.store, levels)
        queues = [QUEUE, BOT_QUEUE]  # a strong bot thinks on its own queue
        SimpleWorker(queues, connection=rt.redis).work(burst=True, with_scheduler=False)
        if seat_to_move(rt.svc.store, room_id) == 0:
            return room_id
    pytest.fail("no game began with her turn")


def queue_press(rt: Runtime, room_id: str) -> QueuedPress:
    """Ana's tap on her first legal action, answered and queued as serve queues it
    (Store.aclaim): its place on the room's list and its pending mark."""
    room = rt.svc.store.load(room_id)
    assert room is not None and isinstance(room.game, GameState)
    action = legal_actions(room.game, 0)[0]
    pressed = QueuedPress(
        room_id, room.phase_version, ANA.user_id, next(CHATS), time.time(), action
    )
    rt.redis.rpush(presses_key(room_id), pressed.arg)
    rt.redis.zadd(index_key(PENDING_PRESSES, room_id), {pressed.member: pressed.at})
    return pressed


def commits(monkeypatch: pytest.MonkeyPatch, store: Store) -> list[str]:
    """The rooms of `store.update` calls (each one read, parse and write of a room)."""
    calls: list[str] = []
    real = store.update

    def counting(room_id: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(room_id)
        return real(room_id, *args, **kwargs)

    monkeypatch.setattr(store, "update", counting)
    return calls


def choices(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seats whose bot chose a move (a forced move asks no bot)."""
    seats: list[int] = []
    real = play.bot_action

    def choosing(room: Room, seat: int, level: str | None = None) -> str | None:
        seats.append(seat)
        return real(room, seat, level)

    monkeypatch.setattr(play, "bot_action", choosing)
    return seats


def queued_jobs(rt: Runtime, kind: str, queue: str = QUEUE) -> list[str]:
    ids = [text(i) for i in rt.redis.lrange(f"rq:queue:{queue}", 0, -1)]
    return [i for i in ids if i.startswith(f"{kind}-")]


def one_by_one(room: Room, pressed: QueuedPress) -> None:
    """Her press, then each bot's move as its own job played it before (in memory)."""
    play.queued(room, pressed, 0.0)
    while room.bots_waiting():
        seat = room.bots_waiting()[0]
        play.bot_turn(room, seat, play.bot_action(room, seat), time.time(), 0.0)


def test_a_press_and_the_bots_replies_are_one_commit(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots_at_once(rt, monkeypatch)
    store = rt.svc.store
    room_id = her_turn(rt)
    committed, chose = commits(monkeypatch, store), choices(monkeypatch)
    for _ in range(30):  # until bots choose after her move (not only forced moves)
        if seat_to_move(store, room_id) != 0:
            break
        committed.clear()
        chose.clear()
        jobs.press(room_id, queue_press(rt, room_id).arg)
        assert committed == [room_id]  # her move and every bot's reply: one commit
        assert seat_to_move(store, room_id) in (0, None)  # her turn again, or the end
        assert queued_jobs(rt, "bot_turn") == []  # no bot left to a job of its own
        assert indexes.members(rt.redis, PENDING_PRESSES) == []
        if chose:
            return
    pytest.fail("no bot chose after her moves")


def test_a_press_parses_its_room_once_and_shows_the_room_it_committed(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job's commit reads and parses the room; its chats are shown from that very
    room (what Redis holds after the commit), not from a second parse; a room changed
    by someone else since is parsed again."""
    bots_at_once(rt, monkeypatch)
    store = rt.svc.store
    room_id = her_turn(rt)
    parsed: list[bytes | str] = []
    real = decode_room

    def counting(data: bytes | str) -> Room:
        parsed.append(data)
        return real(data)

    pressed = queue_press(rt, room_id)
    monkeypatch.setattr("service.infra.store.rooms.decode_room", counting)
    jobs.press(room_id, pressed.arg)
    assert len(parsed) == 1  # the commit's read; the chats' job took the room it wrote
    committed = store.update(room_id, lambda fresh: Outcome(changed=True))
    assert committed is not None
    room = committed[0]
    assert room._loaded_from == rt.redis.get(room_key(room_id))  # the bytes Redis holds
    assert store.parse(room._loaded_from, room) is room

    def rename(fresh: Room) -> Outcome:  # another writer's change
        fresh.seats[1].name = "Rocinante II"
        return Outcome(changed=True)

    rt.svc.store.update(room_id, rename)
    parsed.clear()
    fresh = store.parse(rt.redis.get(room_key(room_id)), room)
    assert fresh is not room and len(parsed) == 1


def test_the_bots_in_her_commit_choose_as_their_own_jobs_would(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots_at_once(rt, monkeypatch)
    store = rt.svc.store
    room_id = her_turn(rt)
    for _ in range(10):
        if seat_to_move(store, room_id) != 0:
            break
        expected = store.load(room_id)
        assert expected is not None
        pressed = queue_press(rt, room_id)
        one_by_one(expected, pressed)
        jobs.press(room_id, pressed.arg)
        after = store.load(room_id)
        assert after is not None
        assert after.game == expected.game and after.version == expected.version


def test_a_commit_run_again_after_another_writer_plays_each_bot_once(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another change commits while the press's commit is being made (here: from inside
    the first bot's choice, a writer of its own that applies her queued press first):
    the store runs the change again on the room as it is now, bots and all."""
    bots_at_once(rt, monkeypatch)
    store = rt.svc.store
    room_id = her_turn(rt)
    other = Store(rt.redis, 3600, 3600, bot_delay=0.0)
    real, meddled = play.bot_action, list[int]()

    def meddling(room: Room, seat: int, level: str | None = None) -> str | None:
        if not meddled:
            meddled.append(seat)
            assert other.update(room_id, reminded) is not None
        return real(room, seat, level)

    for _ in range(30):  # until a bot chooses after her move
        if seat_to_move(store, room_id) != 0:
            break
        expected = store.load(room_id)
        assert expected is not None
        pressed = queue_press(rt, room_id)
        one_by_one(expected, pressed)
        monkeypatch.setattr(play, "bot_action", meddling)
        committed, runs = commits(monkeypatch, store), changes_run(monkeypatch)
        jobs.press(room_id, pressed.arg)
        after = store.load(room_id)
        assert after is not None
        assert after.game == expected.game and after.version == expected.version
        if meddled:
            assert committed == [room_id] and len(runs) == 2  # run again in one commit
            return
        monkeypatch.undo()
        bots_at_once(rt, monkeypatch)
    pytest.fail("no bot chose after her moves")


def changes_run(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The rooms a commit's change (with its bots) was run on, once a run."""
    runs: list[str] = []
    real = jobs.BotsAfter.__call__

    def counting(self: jobs.BotsAfter, fresh: Room) -> Outcome:
        runs.append(fresh.id)
        return real(self, fresh)

    monkeypatch.setattr(jobs.BotsAfter, "__call__", counting)
    return runs


def reminded(room: Room) -> Outcome:
    """Another writer's change of the room."""
    room.reminded = True
    return Outcome(changed=True)


def test_her_move_stands_when_the_bot_after_it_fails(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots_at_once(rt, monkeypatch)
    store = rt.svc.store
    room_id = her_turn(rt)

    def broken(room: Room, seat: int, level: str | None = None) -> str | None:
        raise RuntimeError("the bot's search ran out of memory")

    for _ in range(30):  # until a bot chooses after her move
        if seat_to_move(store, room_id) != 0:
            break
        trial = store.load(room_id)
        assert trial is not None
        pressed = queue_press(rt, room_id)
        play.queued(trial, pressed, 0.0)
        if not trial.bots_waiting():  # only forced moves after hers: played as ever
            jobs.press(room_id, pressed.arg)
            continue
        monkeypatch.setattr(play, "bot_action", broken)
        with pytest.raises(RuntimeError):
            jobs.press(room_id, pressed.arg)
        after = store.load(room_id)
        assert after is not None and after.game == trial.game  # her move, committed alone
        assert indexes.members(rt.redis, PENDING_PRESSES) == []
        seat = trial.bots_waiting()[0]  # the bot's turn: a job of its own
        assert queued_jobs(rt, "bot_turn") == [f"bot_turn-{room_id}-{trial.phase_version}_{seat}"]
        return
    pytest.fail("no bot chose after her moves")


def test_a_streak_longer_than_its_bound_goes_on_in_jobs_of_its_own(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots_at_once(rt, monkeypatch)
    monkeypatch.setattr(jobs, "MAX_STREAK", 1)
    store = rt.svc.store
    room_id = her_turn(rt)
    committed = commits(monkeypatch, store)
    for _ in range(30):  # until two bots choose in a row after her move
        if seat_to_move(store, room_id) != 0:
            break
        expected = store.load(room_id)
        assert expected is not None
        pressed = queue_press(rt, room_id)
        one_by_one(expected, pressed)
        committed.clear()
        jobs.press(room_id, pressed.arg)
        next_seat = seat_to_move(store, room_id)
        if next_seat not in (0, None):  # one bot played in her commit, the next waits
            assert committed == [room_id]
            assert queued_jobs(rt, "bot_turn") != []
            burst(rt)
            after = store.load(room_id)
            assert after is not None and after.game == expected.game
            return
    pytest.fail("no two bots chose in a row after her moves")


def test_a_strong_bots_turn_after_her_commit_goes_to_the_bots_queue(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots_at_once(rt, monkeypatch)
    store = rt.svc.store
    room_id = her_turn(rt, ("heuristic", "strong", "heuristic"))
    committed, chose = commits(monkeypatch, store), choices(monkeypatch)
    for _ in range(30):  # until the strong bot has a choice to think over
        if seat_to_move(store, room_id) != 0:
            break
        committed.clear()
        chose.clear()
        jobs.press(room_id, queue_press(rt, room_id).arg)
        assert committed == [room_id] and 2 not in chose
        room = store.load(room_id)
        assert room is not None
        if seat_to_move(store, room_id) == 2:  # it thinks, on the bots' queue
            phase = room.phase_version
            assert queued_jobs(rt, "bot_think", BOT_QUEUE) == [f"bot_think-{room_id}-{phase}_2"]
            assert queued_jobs(rt, "bot_turn") == []
            return
    pytest.fail("the strong bot never had a choice after her moves")


def test_a_bot_thinks_where_its_game_says_its_level_does(rt: Runtime) -> None:
    """Cuartetos' strong bot is a style (a cheap decision): it plays inline like the
    other levels, where follow-suit's strong bot, a search, thinks on the bots' queue."""
    store = rt.svc.store
    now = time.time()
    room = lobby.create_room(
        next(CHATS), None, ANA, now, private=True, settings=RoomSettings(preset="cuartetos")
    )
    for _ in range(3):
        lobby.add_bot(room, ANA)
        room.seats[-1].bot = "strong"
    assert store.create(room, lobby.start(room, ANA, now, 0.0), None)
    dealt = store.load(room.id)
    assert dealt is not None and dealt.status == "playing"
    assert not any(jobs.thinks(dealt, seat) for seat in (1, 2, 3))
    spanish = store.load(private_game(store, ("strong",)))
    assert spanish is not None
    assert play.game(spanish).thinking_levels == {"strong"}
    assert play.bot_level(spanish, 1) in play.game(spanish).thinking_levels
