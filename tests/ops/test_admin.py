"""`burro admin`: list, show (hands hidden unless asked), end a stuck game (atomically,
with a message to its chat), export records that replay, purge stale index entries and
old failed jobs, all against a real Redis; and `end` through the whole product."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rq import Queue
from rq.job import Job

from cli.main import main
from cli.stack import Stack
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage
from engine.follow_suit.game import GameState, legal_actions, to_move
from service.i18n import Translator
from service.infra import indexes
from service.infra.keys import DUE_KEY, PENDING_SYNC, index_key
from service.infra.queue import BOT_QUEUE, QUEUE
from service.infra.redis_server import connect
from service.infra.store import Store, chat_key, room_key
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room
from tests.service.play import GROUP, room_in

ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "es")


@pytest.fixture
def store(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.setenv("BURRO_REDIS_URL", redis_url)
    return Store(connect(redis_url), 3600, 3600)


def playing_room(store: Store, chat_id: int, finished_hands: int = 0) -> Room:
    """A game of Ana, Ben and a bot in a group, saved after `finished_hands` hands."""
    room = lobby.create_room(chat_id, None, ANA, 1000.0)
    lobby.join(room, BEN)
    lobby.add_bot(room, ANA)
    outcome = lobby.start(room, ANA, 1000.0)
    assert room.status == "playing" and isinstance(room.game, GameState)
    while len(room.game.past) < finished_hands:
        seat = to_move(room.game)
        assert seat is not None, "the game ended before enough hands"
        play.act(room, seat, legal_actions(room.game, seat)[0], 1000.0, 0.0)
    assert store.create(room, outcome, None)
    return room


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["admin", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_games_lists_the_games_in_play(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    playing = playing_room(store, -10)
    waiting = lobby.create_room(-11, None, BEN, 1000.0)
    assert store.create(waiting, Outcome(changed=True), None)
    status, out, _ = run(capsys, "games", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and [r["id"] for r in rows] == [playing.id]
    assert rows[0]["status"] == "playing" and rows[0]["players"] == [
        "Ana",
        "Ben",
        "Rocinante (bot)",
    ]
    assert rows[0]["to_move"] in ("Ana", "Ben", "Rocinante")
    status, out, _ = run(capsys, "games", "--all", "--json")
    assert {json.loads(line)["id"] for line in out.splitlines()} == {playing.id, waiting.id}
    status, out, err = run(capsys, "games")
    assert status == 0 and playing.id in out and "1 room" in err


def test_show_hides_hands_unless_asked(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    room = playing_room(store, -12)
    assert isinstance(room.game, GameState)
    hands = [list(room.game.table.codec.codes(h)) for h in room.game.hand.hands]
    status, out, _ = run(capsys, "show", room.id)
    shown = json.loads(out)
    assert status == 0 and shown["status"] == "playing" and shown["game"]["hand_no"] == 1
    assert [s["cards"] for s in shown["seats"]] == [len(h) for h in hands]
    assert all("hand" not in seat for seat in shown["seats"])
    assert '"hand":' not in out
    status, out, _ = run(capsys, "show", room.id, "--show-hands")
    assert [s["hand"] for s in json.loads(out)["seats"]] == hands
    assert run(capsys, "show", "nosuchrm")[0] == 1


def test_end_cancels_atomically_once(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    room = playing_room(store, -13)
    assert indexes.score(store.redis, DUE_KEY, room.id) is not None
    status, out, _ = run(capsys, "end", room.id, "--silent")
    assert status == 0 and "cancelled" in out
    ended = store.load(room.id)
    assert ended is not None and ended.status == "cancelled"
    assert ended.version == room.version + 1 and ended.deadline is None  # old buttons go stale
    assert indexes.score(store.redis, DUE_KEY, room.id) is None  # no more timers
    assert store.redis.get(chat_key(-13, None)) is None  # the chat may open a new game
    assert store.redis.ttl(room_key(room.id)) > 0  # kept for the retention period
    assert any(f"{room.id}|table" in m for m in indexes.members(store.redis, PENDING_SYNC))
    status, _, err = run(capsys, "end", room.id, "--silent")
    assert status == 1 and "cancelled already" in err
    assert run(capsys, "end", "nosuchrm")[0] == 1


def test_end_reports_a_chat_it_could_not_tell(
    store: Store, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    room = playing_room(store, -14)
    monkeypatch.setenv("BURRO_TELEGRAM_TOKEN", "1:x")
    monkeypatch.setenv("BURRO_TELEGRAM_API_URL", "http://127.0.0.1:9")  # nobody listens
    status, out, err = run(capsys, "end", room.id)
    assert status == 3 and "could not tell chat -14" in err and "cancelled" in out
    ended = store.load(room.id)
    assert ended is not None and ended.status == "cancelled"  # ended all the same


def test_export_writes_records_that_replay(
    store: Store, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    room = playing_room(store, -15, finished_hands=2)
    status, _, err = run(capsys, "export", room.id, "--out", str(tmp_path))
    files = sorted(tmp_path.glob("*.json"))
    assert status == 0 and "2 records" in err
    assert [f.name for f in files] == [f"burro-{room.id}-hand1.json", f"burro-{room.id}-hand2.json"]
    for path in files:
        assert json.loads(path.read_text())["format"] == "burro-record/1"
        assert main(["replay", str(path)]) == 0
    capsys.readouterr()
    status, out, err = run(capsys, "export", room.id, "--include-current")
    records = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(records) == 3 and "3 records" in err
    status, out, _ = run(capsys, "export", "--all")
    assert status == 0 and len(out.splitlines()) == 2
    assert run(capsys, "export")[0] == 2
    assert run(capsys, "export", "nosuchrm")[0] == 1


def test_purge_removes_only_what_points_nowhere(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    live = playing_room(store, -16)
    client = store.redis
    client.zadd(index_key(DUE_KEY, "gone0001"), {"gone0001": 1.0})
    for member in ("gone0001|table", "gone0002|hand:5", f"{live.id}|table"):
        client.zadd(index_key(PENDING_SYNC, member.split("|")[0]), {member: 1.0})
    client.set(chat_key(-99, None), "gone0003")
    client.hset("game:{gone0003}:msgs", "table", 5)
    client.hset(f"game:{{{live.id}}}:msgs", "table", 6)
    jobs = store.jobs
    queue = Queue(QUEUE, connection=jobs)
    old = Job.create("workers.jobs.sync", args=("gone0001", "table"), connection=jobs, id="old")
    old.ended_at = datetime(2020, 1, 1, tzinfo=UTC)
    old.save()
    queue.failed_job_registry.add(old, ttl=10**8)
    recent = Job.create("workers.jobs.sync", args=("x", "table"), connection=jobs, id="new")
    recent.ended_at = datetime.now(UTC)
    recent.save()
    queue.failed_job_registry.add(recent, ttl=10**8)
    bots = Queue(BOT_QUEUE, connection=jobs)  # the thinking bots' queue is looked after too
    thought = Job.create("workers.jobs.bot_think", args=("gone0001", "p1:1"), connection=jobs)
    thought.ended_at = datetime(2020, 1, 1, tzinfo=UTC)
    thought.save()
    bots.failed_job_registry.add(thought, ttl=10**8)

    expected = {"rooms:due": 1, "sync:pending": 2, "chat": 1, "messages": 1, "failed_jobs": 2}
    status, out, _ = run(capsys, "purge", "--dry-run", "--json")
    assert status == 0 and json.loads(out) == {"dry_run": True, **expected}
    assert indexes.score(client, DUE_KEY, "gone0001") is not None  # a dry run removes nothing
    status, out, _ = run(capsys, "purge", "--json")
    assert json.loads(out) == {"dry_run": False, **expected}
    assert indexes.members(client, DUE_KEY) == [live.id]
    assert {m.split("|")[0] for m in indexes.members(client, PENDING_SYNC)} == {live.id}
    assert client.get(chat_key(-99, None)) is None
    assert client.get(chat_key(-16, None)) == live.id.encode()
    assert not client.exists("game:{gone0003}:msgs")
    assert client.exists(f"game:{{{live.id}}}:msgs")
    assert queue.failed_job_registry.get_job_ids() == ["new"]
    assert not client.exists(old.key)
    assert bots.failed_job_registry.get_job_ids() == [] and not jobs.exists(thought.key)
    status, out, _ = run(capsys, "purge", "--json")
    assert json.loads(out) == {"dry_run": False, **dict.fromkeys(expected, 0)}


def test_end_through_the_product_tells_the_chat(emu: RunningEmulator, stack: Stack) -> None:
    """A group game ended by the operator: the chat gets the notice in the room's
    language, and the worker redraws the table as cancelled."""
    emu.send_message("Ana", GROUP, "/burro")
    message = emu.wait_for_message(GROUP, lambda m: "✋" in " ".join(m.button_texts))
    room = room_in(stack, message.chat_id)
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "admin", "end", room.id],
        env=stack.env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    tr = Translator(room.seats[0].lang)  # the creator's language (Ana writes Spanish)
    notice = tr.gettext("The game was cancelled.")
    assert notice in done.stdout
    emu.wait_for_message(GROUP, notice)
    cancelled = tr.gettext("🫏 This game of Burro was cancelled.")

    def redrawn() -> ChatMessage | None:
        shown = emu.message(GROUP, message.message_id)
        return shown if shown.text == cancelled else None

    table = emu.wait_for(redrawn, what="the table redrawn as cancelled")
    assert not table.buttons
