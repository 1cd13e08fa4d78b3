"""bench.move_e2e's measuring parts: when a tap counts as carried out, the tap it sends,
the sink's streamed call log routed to a game and its marks, the floor's round trips,
the report; and bench.profile_worker's tables. In one process (the sink served on this
test's event loop); a tiny run of the whole stack is marked e2e."""

from __future__ import annotations

import asyncio
import json
import pstats
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import move_e2e, profile_worker, sink
from bench.games import new_group_room
from bench.move_e2e import Cell, Driver, Game, Tap, carried_out
from bench.seen import Seen
from engine.follow_suit.game import legal_actions, to_move
from service.infra.redis_server import RedisServer, free_port
from service.infra.store import encode_room
from service.table.room import Room
from service.ui import tokens


@pytest.fixture
def room() -> Room:
    """A started group game of three humans (bench.games makes it as the service does)."""
    found, _outcome = new_group_room(0, seats=3)
    return found


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    with RedisServer(tmp_path / "redis", persist=False) as server:
        yield server.url


def seat_to_move(room: Room) -> int:
    assert room.game is not None
    seat = to_move(room.game)
    assert seat is not None
    return seat


def test_a_tap_is_carried_out_once_applied_with_nothing_pending_and_a_human_to_move(
    room: Room,
) -> None:
    before = room.version - 1
    assert carried_out(room, before, [])
    assert not carried_out(room, room.version, [])  # not applied yet
    assert not carried_out(None, before, [])
    assert not carried_out(room, before, [f"{room.id}|hand:1".encode()])  # outbox waits
    assert carried_out(room, before, [b"otherroo|hand:1"])  # another room's work
    room.seats[seat_to_move(room)].user_id = None  # a bot's turn: its move is to come
    assert not carried_out(room, before, [])


def test_the_tap_is_a_legal_card_of_the_human_to_move(room: Room) -> None:
    raw, chat = move_e2e.a_tap(room, 77)
    update = json.loads(raw)
    query = update["callback_query"]
    user = room.seats[seat_to_move(room)].user_id
    assert update["update_id"] == 77 and chat == user and query["from"]["id"] == user
    found = tokens.decode(query["data"])
    assert found is not None and (found.room, found.version) == (room.id, room.version)


def test_a_look_reads_what_a_tap_needs_of_the_stored_room(room: Room) -> None:
    seen = Seen.of(encode_room(room))
    assert (seen.id, seen.version, seen.status) == (room.id, room.version, room.status)
    assert move_e2e.a_tap(seen, 77)[1] == move_e2e.a_tap(room, 77)[1]
    seat = seat_to_move(room)
    assert legal_actions(seen.game, seat) == legal_actions(room.game, seat)


def test_the_report_gives_percentiles_and_ratios_to_the_floor() -> None:
    cell = Cell("group", 5, seconds=2.0, cpu={"workers": 0.1, "redis": 0.05})
    cell.taps = [Tap(0.010 * n, 2, 0.002) for n in range(1, 101)] + [Tap(0.5, 0, 0.0)]
    cell.taps.append(Tap(40.0, 3, 0.0, stalled="end"))  # counted apart, not in percentiles
    found = cell.report()
    assert found["taps"] == 102 and found["taps_per_second"] == 51
    assert found["stalled"] == found["stalled_at_the_end"] == 1
    assert found["p50_ms"] == pytest.approx(500) and found["p99_ms"] == pytest.approx(990)
    assert found["floor_p50_ms"] == pytest.approx(2) and found["ratio_p50"] == pytest.approx(250)
    text = move_e2e.table({"cells": [found], "saturation": [{"workers": 3, **found}]})
    assert "a group of three, 5 games at once | 500.0 ms | 990.0 ms" in text
    assert "| 102 (1 stalled, 1 at a game's end) |" in text
    assert "| 3 | 51 |" in text
    assert "| 1.0 / 0.0 / 0.5 / 0.0 / 0.0 = 1.5 |" in text  # CPU a tap: Redis's counted


@pytest.fixture
def api_url() -> Iterator[str]:
    """bench.sink on its own thread's event loop (the floor's calls are synchronous)."""
    loop = asyncio.new_event_loop()
    port = free_port()
    server = loop.run_until_complete(loop.create_server(sink.Sink().protocol, "127.0.0.1", port))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        server.close()
        loop.close()  # the sink's connections are protocols: no task to end


def test_the_sinks_calls_reach_their_game_before_the_mark(
    redis_url: str, api_url: str, room: Room
) -> None:
    async def play() -> None:
        driver = Driver("http://127.0.0.1:1", api_url, redis_url)
        game = Game(driver, "group", 0)
        reading = asyncio.create_task(driver.calls.read(api_url))
        await driver.calls.open.wait()  # the stream is open: calls from here on reach it
        for chat in (game.chat, game.users[1], 99):  # 99: nobody's game
            driver.floor_api.call("sendMessage", chat_id=chat, text="hi")
        await driver.mark()
        assert len(game.calls) == 2 and game.woken.is_set()
        # the floor: round trips to the sink and Redis, neither streamed nor counted
        assert driver.floor(3, room.id) > 0
        await driver.mark()
        assert len(game.calls) == 2
        reading.cancel()
        await driver.close()

    asyncio.run(asyncio.wait_for(play(), timeout=60))


def test_the_profiles_tables_share_the_jobs_time() -> None:
    stats = pstats.Stats()
    stats.stats = {  # type: ignore[attr-defined]
        ("/v/site-packages/rq/worker/base.py", 1651, "perform_job"): (4, 4, 0.1, 2.0, {}),
        ("/t/workers/jobs.py", 117, "press"): (4, 4, 0.2, 1.5, {}),
        ("~", 0, "<method 'recv_into' of '_socket.socket' objects>"): (9, 9, 0.5, 0.5, {}),
    }
    text = profile_worker.report(stats, top=10)
    assert text.startswith("4 jobs, 2.00 s in them (500.00 ms a job)")
    assert "| `workers/jobs.py:117 press` | 4 | 0.20 | 1.50 | 75.0% | 375.00 |" in text
    assert "| `<method 'recv_into' of '_socket.socket' objects>` | 9 | 0.50 | 0.50 | 25.0%" in text


@pytest.mark.e2e
def test_a_tiny_run_times_taps_against_their_floor(tmp_path: Path) -> None:
    """One idle group game for a few seconds (its set-up in them): taps timed, each
    with calls and a floor."""
    with move_e2e.stack(tmp_path) as found:
        cells = [("group", 0)]
        results = asyncio.run(move_e2e.measure(found, cells, 5.0, 0.0, [], 0))
    [cell] = results["cells"]
    assert cell["taps"] > 0 and cell["calls_per_tap"] > 0
    assert cell["p50_ms"] > 0 and cell["floor_p50_ms"] > 0
    assert cell["cpu_ms_per_tap"]["redis"] > 0
