"""A move's press that its phase lists is answered at once and applied by a worker
(Store.aclaim with a press, workers.jobs.press): what the player sees, and that nothing
is lost or applied twice."""

from __future__ import annotations

from typing import Any

import httpx

from engine.follow_suit.game import legal_actions, to_move
from service.infra import indexes
from service.infra.keys import PENDING_PRESSES, PENDING_SYNC
from service.infra.queue import QUEUE
from service.infra.store import moves_key, presses_key, text
from service.platforms.telegram import callbacks
from service.table.log import LogKind
from service.table.outcome import Outcome
from service.table.room import Room
from tests.service.inproc import ANA, BEN, GROUP, Hook, press
from tests.service.test_being_told import (
    PEOPLE,
    button,
    clock,
    hook,
    new_game,
    new_passing_game,
    run_jobs,
)
from workers import sweeper

__all__ = ["hook"]  # the module's Hook, shared with test_being_told's tests
STALE = "This button is out of date: use the newest message."


def to_act(room: Room) -> tuple[dict[str, Any], list[str]]:
    """The player to move in a follow-suit room, and their legal actions."""
    seat = to_move(room.game)
    assert seat is not None
    user = room.seats[seat].user_id
    assert user is not None
    return PEOPLE[user], legal_actions(room.game, seat)


def tap(hook: Hook, user: dict[str, Any], room: Room, action: str) -> httpx.Response:
    data = button(room, callbacks.game_token(action))
    return hook.send(press(user, data, user["id"]))


def queued(hook: Hook) -> list[str]:
    return indexes.members(hook.redis, PENDING_PRESSES)


def press_jobs(hook: Hook) -> list[str]:
    ids = [text(i) for i in hook.redis.lrange(f"rq:queue:{QUEUE}", 0, -1)]
    return [i for i in ids if i.startswith("press-")]


def test_a_legal_move_is_answered_at_once_and_a_worker_applies_it(hook: Hook) -> None:
    room = new_game(hook, (ANA, BEN))
    user, actions = to_act(room)
    listed = hook.redis.hget(moves_key(room.id), str(user["id"]))
    assert listed is not None and set(text(listed).split("\n")) == set(actions)
    answer = tap(hook, user, room, actions[0])
    reply = answer.json()  # no popup: as a move applied at once has none
    assert set(reply) == {"method", "callback_query_id"}
    assert hook.room(GROUP) == room  # not applied yet
    assert len(queued(hook)) == 1 and len(press_jobs(hook)) == 1
    assert run_jobs(hook, clock(hook), ("press",)) == 1
    after = hook.room(GROUP)
    assert after.version > room.version and queued(hook) == []
    assert to_act(after)[0] is not user or after.phase_version != room.phase_version
    mover_hand = hook.redis.hget(f"game:{{{room.id}}}:msgs", f"hand:{user['id']}")
    assert mover_hand is not None  # the job brought the chats up to date itself
    assert not indexes.members(hook.redis, PENDING_SYNC)


def test_a_second_press_in_the_same_turn_is_out_of_date(hook: Hook) -> None:
    room = new_game(hook, (ANA, BEN), auto_forced=False)
    user, actions = to_act(room)
    assert tap(hook, user, room, actions[0]).status_code == 200
    again = tap(hook, user, room, actions[-1])
    assert again.json().get("text") == STALE
    assert len(queued(hook)) == 1
    run_jobs(hook, clock(hook), ("press",))
    log = [line for line in hook.room(GROUP).log if line.seat is not None]
    assert len(log) >= 1 and queued(hook) == []
    assert hook.room(GROUP).version == room.version + 1  # one move, the first one


def test_a_press_not_listed_is_handled_at_once(hook: Hook) -> None:
    room = new_game(hook, (ANA, BEN))
    user, actions = to_act(room)
    other = BEN if user is ANA else ANA
    answer = tap(hook, other, room, actions[0])  # not their turn
    assert "text" in answer.json() and queued(hook) == []
    hook.redis.delete(moves_key(room.id))  # a room saved before the hash existed
    assert tap(hook, user, room, actions[0]).status_code == 200
    assert queued(hook) == [] and hook.room(GROUP).version > room.version


def test_a_press_whose_job_was_lost_is_applied_by_the_sweeper(hook: Hook) -> None:
    room = new_game(hook, (ANA, BEN))
    user, actions = to_act(room)
    assert tap(hook, user, room, actions[0]).status_code == 200
    hook.redis.delete(f"rq:queue:{QUEUE}")  # the job lost, its pending mark kept
    rt = clock(hook, 60)
    assert sweeper.sweep_once(rt.svc.store, rt.svc.now(), 30) >= 1
    assert run_jobs(hook, rt, ("press",)) == 1
    assert hook.room(GROUP).version > room.version and queued(hook) == []


def test_a_press_queued_before_its_turns_end_is_not_overtaken(hook: Hook) -> None:
    """The turn's timer fires while the press waits for its job: every change applies
    the room's queued presses first, so the player's own move counts, no timeout."""
    room = new_game(hook, (ANA, BEN))
    user, actions = to_act(room)
    seat = room.seat_of(user["id"])
    assert seat is not None
    assert tap(hook, user, room, actions[0]).status_code == 200
    timed_out = clock(hook, 13 * 3600)
    assert run_jobs(hook, timed_out, ("turn_timeout",)) >= 1
    after = hook.room(GROUP)
    assert after.version > room.version and queued(hook) == []
    assert after.seats[seat].timeouts == 0
    assert not [line for line in after.log if line.kind == LogKind.TIMEOUT]
    assert not hook.redis.exists(presses_key(room.id))
    run_jobs(hook, timed_out, ("press",))  # its own job finds nothing left to do
    assert hook.room(GROUP).version == after.version


def test_a_change_computed_before_a_press_was_queued_is_made_again(hook: Hook) -> None:
    room = new_game(hook, (ANA, BEN))
    user, actions = to_act(room)
    store = hook.store()
    seen: list[int] = []

    def change(fresh: Room) -> Outcome:
        seen.append(fresh.version)
        if len(seen) == 1:  # a press is queued while this change is computed
            assert tap(hook, user, room, actions[0]).status_code == 200
        return Outcome()

    store.update(room.id, change)
    assert seen == [room.version, room.version + 1]  # read again, the press applied first
    assert queued(hook) == [] and hook.room(GROUP).version == room.version + 1


def test_only_a_passing_games_passes_are_queued(hook: Hook) -> None:
    room = new_passing_game(hook)
    moves = hook.redis.hgetall(moves_key(room.id))
    listed = [a for k, v in moves.items() if text(k) != "phase" for a in text(v).split("\n")]
    assert listed and all(a.startswith("pass:") for a in listed)  # not ¡Burro!: it says


def test_the_moves_hash_goes_when_the_game_ends(hook: Hook) -> None:
    room = new_game(hook, (ANA, BEN), scoring="single", hand_size=3)
    for _ in range(200):
        current = hook.room(GROUP)
        if current.status != "playing":
            break
        user, actions = to_act(current)
        tap(hook, user, current, actions[0])
        run_jobs(hook, clock(hook), ("press",))
    assert hook.room(GROUP).status == "over"
    assert not hook.redis.exists(moves_key(room.id))
