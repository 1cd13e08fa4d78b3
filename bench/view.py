"""The table's view, live (issue #39): from a move to every open view updated, and what
an open view costs `serve`.

    python -m bench.view [--tables 250] [--moves 300] [--rate 10] [--idle 20] [--json out.json]

Redis, the null Bot API and one `burro serve` run as their own processes (bench.procs);
this process is the readers and the players. `--tables` group games of three are dealt
(Spanish Burro) and each is watched by four views: one per seat and one by someone
without a seat, 1,000 views by default, each a `GET /view/events` stream opened with a
link token as the page opens it (POST /view/open). The streams are read with bare
asyncio sockets (no HTTP client's own cost in the figures), each event stamped as it
arrives.

Then `--moves` moves, at `--rate` a second, each on a table picked at random: its
player to move plays a legal move through the store (as a worker commits a press). A
move's time is from just before its commit to the arrival of the picture that follows it
in the last of its table's four views; a move whose views are not all updated within 5 s
is counted as missed. Memory per view: serve's resident memory with the views open,
less before, over the views. CPU per view: serve's CPU time over `--idle` seconds with
every view open and nothing moving (heartbeats only), over the views; and serve's CPU
per move during the moves (its painting, for four views).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.procs import TOKEN, Procs, machine, procs, settle, start_servers, start_sink
from engine.registry import find_game
from service.infra.redis_server import RedisServer, connect
from service.infra.store import Store
from service.infra.view_links import ViewAccess
from service.settings import Settings
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings

SECRET = "bench view link secret, 32 bytes or more"
PEOPLE = 3  # seats per table; and one onlooker
SERVE = "ours0"  # the serve process's name among bench.procs
MISSED = 5.0  # seconds after which a move's update counts as missed


class Reader:
    """One open view: its stream's picture events, stamped as they arrive."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self.host, self.port, self.token = host, port, token
        self.stamps: list[float] = []
        self.event = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def run(self, ready: asyncio.Event) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        writer.write(
            f"GET /view/events?lang=en HTTP/1.1\r\nHost: {self.host}\r\n"
            f"Authorization: Bearer {self.token}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        tail = b""
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                return
            now = time.perf_counter()
            seen = tail + chunk
            count = seen.count(b"event: picture")
            if count:
                self.stamps.extend([now] * count)
                self.event.set()
                ready.set()
            tail = seen[-20:]


def deal(store: Store, tables: int) -> list[Room]:
    rooms = []
    for index in range(tables):
        first = 10_000 + index * PEOPLE
        actors = [Actor(first + i, f"P{i}", "en") for i in range(PEOPLE)]
        now = time.time()
        room = lobby.create_room(
            -1_000_000 - index, None, actors[0], now, settings=RoomSettings(preset="spanish")
        )
        for actor in actors[1:]:
            lobby.join(room, actor)
        assert store.create(room, lobby.start(room, actors[0], now, 0.0), None)
        rooms.append(room)
    return rooms


def move(store: Store, room_id: str, pick: random.Random) -> bool:
    """The player to move at the table plays a legal move; False if it is over."""
    room = store.load(room_id)
    if room is None or room.status != "playing":
        return False
    game = find_game(room.settings.preset)[0]
    movers = [s for s in range(len(room.seats)) if game.legal_actions(room.game, s)]
    if not movers:
        return False
    seat = pick.choice(movers)
    user = room.seats[seat].user_id
    assert user is not None
    action = pick.choice(game.legal_actions(room.game, seat))
    change = play.press(room, room.phase_version, user, action, time.time(), 0.0)
    if isinstance(change, Outcome):
        return False
    return store.update(room.id, change) is not None


async def open_views(target: str, access: ViewAccess, rooms: list[Room]) -> dict[str, list[Reader]]:
    host, port = target.split(":")
    readers: dict[str, list[Reader]] = {}
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=f"http://{target}", limits=limits) as http:
        for room in rooms:
            people = [seat.user_id for seat in room.seats] + [9_000_000 + len(readers)]
            for person in people:
                assert person is not None
                link = access.link(person, room.id)
                answer = await http.post("/view/open", json={"link": link})
                answer.raise_for_status()
                readers.setdefault(room.id, []).append(
                    Reader(host, int(port), answer.json()["token"])
                )
    for views in readers.values():
        for view in views:
            ready = asyncio.Event()
            view.task = asyncio.create_task(view.run(ready))
            await asyncio.wait_for(ready.wait(), 30)  # its first picture came
    return readers


async def moves_timed(
    store: Store, readers: dict[str, list[Reader]], moves: int, rate: float
) -> tuple[list[float], int]:
    """Each move's time to its table's last view updated (ms); the moves missed."""
    pick = random.Random(39)
    playing = list(readers)
    times: list[float] = []
    missed = 0
    waits: list[asyncio.Task[float | None]] = []
    for _ in range(moves):
        room_id = pick.choice(playing)
        views = readers[room_id]
        before = [len(v.stamps) for v in views]
        started = time.perf_counter()
        if not move(store, room_id, pick):
            playing.remove(room_id)
            continue
        waits.append(asyncio.create_task(updated(views, before, started)))
        await asyncio.sleep(1 / rate)
    for found in await asyncio.gather(*waits):
        if found is None:
            missed += 1
        else:
            times.append(found)
    return times, missed


async def updated(views: list[Reader], before: list[int], started: float) -> float | None:
    """When the last of the views got a picture after `started` (ms), None if not soon."""
    deadline = started + MISSED
    last = started
    for view, count in zip(views, before, strict=True):
        while len(view.stamps) <= count:
            view.event.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            try:
                await asyncio.wait_for(view.event.wait(), left)
            except TimeoutError:
                return None
        last = max(last, view.stamps[count])
    return (last - started) * 1000


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def rss(running: Procs, name: str) -> int:
    """A process's resident memory in bytes (Linux)."""
    for line in Path(f"/proc/{running.pid(name)}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


async def measure(
    target: str, running: Procs, store: Store, access: ViewAccess, args: Any
) -> dict[str, Any]:
    rooms = deal(store, args.tables)
    settle(1.0)
    rss_before = rss(running, SERVE)
    readers = await open_views(target, access, rooms)
    views = sum(len(v) for v in readers.values())
    await asyncio.sleep(2.0)  # the opening's garbage collected, its buffers settled
    rss_after = rss(running, SERVE)
    cpu = running.cpu_seconds(SERVE)
    await asyncio.sleep(args.idle)
    idle = running.cpu_seconds(SERVE)
    idle_cpu = idle - cpu
    times, missed = await moves_timed(store, readers, args.moves, args.rate)
    move_cpu = running.cpu_seconds(SERVE) - idle
    for room_views in readers.values():
        for view in room_views:
            assert view.task is not None
            view.task.cancel()
    return {
        "views": views,
        "tables": len(rooms),
        "moves": len(times) + missed,
        "missed": missed,
        "update_ms": {
            "p50": round(percentile(times, 0.5), 1),
            "p90": round(percentile(times, 0.9), 1),
            "p99": round(percentile(times, 0.99), 1),
            "max": round(max(times), 1) if times else None,
            "mean": round(statistics.fmean(times), 1) if times else None,
        },
        "memory_per_view_kb": round((rss_after - rss_before) / views / 1024, 1),
        "serve_rss_mb": {"before": rss_before >> 20, "with_views": rss_after >> 20},
        "idle_cpu_per_view_ms_per_s": round(idle_cpu / args.idle / views * 1e6) / 1000,
        "idle_cpu_percent": round(idle_cpu / args.idle * 100, 2),
        "cpu_per_move_ms": round(move_cpu / max(1, len(times) + missed) * 1000, 2),
    }


def run(args: Any, folder: Path) -> dict[str, Any]:
    with RedisServer(folder / "redis", persist=False) as redis, procs(folder) as running:
        api_url = start_sink(running)
        extra = {"BURRO_VIEW_LINK_SECRET": SECRET, "BURRO_LOG_LEVEL": "WARNING"}
        target = start_servers(running, "ours", 1, redis.url, api_url, None, (), **extra)[0]
        client = connect(redis.url)
        settings = Settings(redis_url=redis.url, view_link_secret=SECRET)  # type: ignore[arg-type]
        store = Store.of(client, settings)
        access = ViewAccess.of(client, settings, TOKEN)
        result = asyncio.run(measure(target, running, store, access, args))
    return {"machine": machine(), **vars(args), **result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=250)
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--rate", type=float, default=10.0, help="moves a second")
    parser.add_argument("--idle", type=float, default=20.0, help="seconds of idle CPU measured")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="burro-bench-") as folder:
        report = run(args, Path(folder))
    text = json.dumps(report, indent=2, default=str)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
