"""Rooms saved before the table core (one play path, phases, platforms) keep working:
`rooms_before_the_table_core.json` holds a follow-suit and a cuartetos room as the
release before it wrote them to Redis. They load as Telegram's, their buttons (drawn
for the version of the phase they show) still count, and the jobs queued under the old
names still run as the jobs they became. Log lines of every kind a release wrote load
and are written back as the same strings; a kind never written is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from rq import Queue

from service.infra.queue import QUEUE
from service.infra.store import decode_room, encode_room
from service.table import play
from service.table.identity import ChatRef, PlayerRef
from service.table.log import LogKind
from service.table.outcome import Outcome
from service.table.room import Room
from tests.service.inproc import running_hook
from workers import jobs

SAVED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "rooms_before_the_table_core.json").read_text()
)
NOW = 1_790_000_100.0
# Every log kind a release has written to Redis, as it wrote it (git history of the
# writers: service/table/follow_suit.py, cuartetos/table.py, play.py).
STORED_KINDS = (
    *("play", "draw", "pass", "pickup", "topple", "trick", "out"),
    *("burro", "winner", "no_burro", "trick_cap", "timeout", "removed"),
    *("false_call", "fake_call", "real_call", "absent", "left", "cap", "received"),
)


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


@pytest.mark.parametrize("game", ["follow_suit", "cuartetos"])
def test_a_room_is_stored_deflated_and_one_stored_as_json_still_loads(game: str) -> None:
    room = load(game)
    stored = encode_room(room)
    assert len(stored) * 2 < len(room.model_dump_json())
    assert decode_room(stored) == room
    assert decode_room(json.dumps(SAVED[game])) == room  # as older releases stored it
    assert decode_room(json.dumps(SAVED[game]).encode()) == room


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


@pytest.mark.parametrize("game", ["follow_suit", "cuartetos"])
def test_old_log_lines_of_every_kind_load_and_are_written_back_alike(game: str) -> None:
    assert {k.value for k in LogKind} == set(STORED_KINDS), "a new kind: list it above"
    stored = SAVED["follow_suit"]["log"][0]  # a line as the old release wrote it
    lines = [{**stored, "kind": kind} for kind in STORED_KINDS]
    room = Room.model_validate_json(json.dumps({**SAVED[game], "log": lines}))
    assert [line.kind for line in room.log] == [LogKind(k) for k in STORED_KINDS]
    written = json.loads(room.model_dump_json())["log"]
    assert [{k: d[k] for k in old} for d, old in zip(written, lines, strict=True)] == lines
    # the fields added since (the story's place, a seat's own cards) load at their defaults
    assert all(d["seq"] == 0 and d["cards"] == [] and not d["forced"] for d in written)


def test_a_log_line_of_an_unknown_kind_is_refused() -> None:
    doc = SAVED["follow_suit"]
    line = {**doc["log"][0], "kind": "join"}
    with pytest.raises(ValidationError, match="kind"):
        Room.model_validate_json(json.dumps({**doc, "log": [line]}))
