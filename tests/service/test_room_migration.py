"""Rooms saved before the table core (one play path, phases, platforms) keep working:
`rooms_before_the_table_core.json` holds a follow-suit and a cuartetos room as the
release before it wrote them to Redis. They load as Telegram's, their buttons (drawn
for the version of the phase they show) still count, and the jobs queued under the old
names still run as the jobs they became."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rq import Queue

from service.infra.queue import QUEUE
from service.table import play
from service.table.identity import ChatRef, PlayerRef
from service.table.outcome import Outcome
from service.table.room import Room
from tests.service.inproc import running_hook
from workers import jobs

SAVED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "rooms_before_the_table_core.json").read_text()
)
NOW = 1_790_000_100.0


def load(game: str) -> Room:
    return Room.model_validate_json(json.dumps(SAVED[game]))


@pytest.mark.parametrize("game", ["follow_suit", "cuartetos"])
def test_an_old_room_is_telegrams_and_round_trips(game: str) -> None:
    room = load(game)
    doc = SAVED[game]
    assert room.chat == ChatRef("telegram", doc["chat_id"], doc["thread_id"])
    assert [s.player for s in room.seats] == [
        PlayerRef("telegram", s["user_id"]) if s["user_id"] is not None else None
        for s in doc["seats"]
    ]
    assert Room.model_validate_json(room.model_dump_json()) == room


def test_an_old_follow_suit_room_takes_its_phase_from_its_version() -> None:
    room = load("follow_suit")
    assert SAVED["follow_suit"]["phase_version"] == 0
    assert room.phase_version == room.version  # buttons drawn for this version still count
    g = play.game(room)
    (seat,) = g.to_act(room.game)
    action = g.legal_actions(room.game, seat)[0]
    if room.is_bot_seat(seat):
        outcome = play.bot_turn(room, seat, play.bot_action(room, seat), NOW, 0.0)
    else:
        user = room.seats[seat].user_id
        assert user is not None
        change = play.press(room, room.version, user, action, NOW, 0.0)
        assert not isinstance(change, Outcome), change.popup
        outcome = change(room)
    assert outcome.changed and room.phase_version == room.version


def test_an_old_cuartetos_room_keeps_its_phase() -> None:
    room = load("cuartetos")
    phase = SAVED["cuartetos"]["phase_version"]
    assert room.phase_version == phase
    user = room.seats[0].user_id
    assert user is not None
    card = play.game(room).hand(room.game, 0)[0]
    change = play.press(room, phase, user, f"pass:{card}", NOW, 0.0)
    assert not isinstance(change, Outcome), change.popup
    assert change(room).changed


def test_jobs_queued_under_old_names_still_run(tmp_path: Path) -> None:
    assert jobs.passing_close is jobs.deadline
    assert jobs.passing_bot is jobs.bot_turn
    assert jobs.passing_remind is jobs.remind
    with running_hook(tmp_path) as hook:
        room = load("follow_suit")
        room.seats[0] = room.seats[0].model_copy(update={"user_id": None, "bot": "easy"})
        room.seats[1] = room.seats[1].model_copy(update={"user_id": None, "bot": "easy"})
        store = hook.store()
        assert store.create(room, Outcome(changed=True), None)
        queue = Queue(QUEUE, connection=hook.redis)
        queue.enqueue_call("workers.jobs.bot_move", args=(room.id, str(room.version)))
        assert hook.run_jobs(hook.runtime(), ("bot_move",)) == 1
        moved = store.load(room.id)
        assert moved is not None and moved.version > room.version  # the bot played
