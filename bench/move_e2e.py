"""A move end to end: from a tap's webhook POST to the last Bot API call it causes,
against a floor measured in the same run (issue #40).

    python -m bench.move_e2e [--seconds 15] [--warmup 3] [--games 0,5,20]
        [--kinds solo,group] [--workers-scale 1,2,3,4] [--saturate-games 20]
        [--also 'worker --bots'] [--json out.json]

Real processes on this machine, as deployed: Redis (no persistence), one `burro serve`,
two `burro worker`s (and any other `burro` process `--also` names), and a fake Bot API
on loopback (bench.sink, its call log streamed to this process), Telegram's rate limits
off (BURRO_RATE_LIMITS=0), bots at delay 0.
This process plays the humans: each game taps a legal card of the human to move (a
callback query POSTed to the webhook) and waits until the tap has been carried out: its
press applied, the bots' answers played, no chat message of the room waiting for the
outbox, and a human to move again (or the game over). A tap not carried out within
`STALL` seconds (a chat's sync left for the sweeper's next pass) is counted apart as
stalled, out of the percentiles, and its game left for a new one with new players.
The tap's time is from just before its POST to the sink's arrival time of the last call
to one of the game's chats meanwhile (same clock: CLOCK_MONOTONIC). Then its next tap,
at once ("flat out").

The floor, measured right after each tap by this process: as many sequential round
trips to the same sink as the tap caused calls (the workers' own Bot API client,
`botapi.BotApi`), each followed by one Redis round trip (a GET). Ratio: p50 over the floor's p50.

Kinds of game: `solo`, one human against three bots (spanish, a private chat); `group`,
three humans in a group (spanish; each taps in their private chat). Each cell plays
`n` games at once (0: idle, one game) for `--seconds` after `--warmup`; a game that ends
is replaced by a new one of the same players (so only the first is a newcomer's).

Then moves per second at saturation: `--saturate-games` group games flat out against
1, 2, 3 and 4 worker processes (human taps carried out per second; one `serve`).

Run it from the source tree to measure (`cd <worktree> && python -m bench.move_e2e`):
every process imports from the current directory.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
import redis.asyncio as aredis
from rq import Worker

from bench.loadgen import Conn
from bench.procs import (
    SECRET,
    TOKEN,
    Procs,
    cpu_seconds_of,
    machine,
    procs,
    serve_env,
    start_servers,
    start_sink,
)
from bench.seen import Seen
from engine.follow_suit.game import GameState, legal_actions, to_move
from service.infra.keys import PENDING_PRESSES, PENDING_SYNC, chat_key, index_key
from service.infra.redis_server import RedisServer
from service.infra.store import room_key
from service.platforms.telegram import callbacks
from service.platforms.telegram.botapi import BotApi
from service.table.room import Room

PRESET = "spanish"
USER0 = 400_000_000  # humans: USER0 + 10 * slot + seat
GROUP0 = -1_004_000_000_000  # a group slot's chat: GROUP0 - slot
KINDS = ("solo", "group")
STALLED_SLOTS = 10_000  # a slot whose game stalled plays on as slot + this
BOTS = 3  # the solo game's bots
HUMANS = 3  # the group game's humans
QUIET = 0.0015  # seconds: after a call, look at Redis once no other came for this long
FIRST = 0.25  # seconds: while a tap has caused no call yet, the wait between looks
WAIT = 0.04  # seconds: the longest wait between looks at Redis while no call arrives
STALL = 5.0  # seconds: a tap not carried out by then is counted apart, its game left


@dataclass
class Tap:
    """One tap carried out: its time to the last call, the calls, and their floor."""

    latency: float
    calls: int
    floor: float
    stalled: str = ""  # not carried out within STALL seconds: "end" if the game ended


@dataclass
class Cell:
    kind: str
    games: int
    floor: bool = True  # measure each tap's floor (not at saturation: it takes CPU)
    taps: list[Tap] = field(default_factory=list)
    seconds: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)  # seconds, by process, timed

    def report(self) -> dict[str, Any]:
        timed = [t for t in self.taps if t.calls and not t.stalled]
        lat = sorted(t.latency * 1000 for t in timed)
        flo = sorted(t.floor * 1000 for t in timed)
        return {
            "kind": self.kind,
            "games": self.games,
            "taps": len(self.taps),
            "stalled": len([t for t in self.taps if t.stalled]),
            "stalled_at_the_end": len([t for t in self.taps if t.stalled == "end"]),
            "taps_per_second": len(self.taps) / self.seconds if self.seconds else 0.0,
            "calls_per_tap": statistics.fmean(t.calls for t in self.taps) if self.taps else 0,
            "p50_ms": percentile(lat, 50),
            "p99_ms": percentile(lat, 99),
            "floor_p50_ms": percentile(flo, 50),
            "floor_p99_ms": percentile(flo, 99),
            "ratio_p50": ratio(percentile(lat, 50), percentile(flo, 50)),
            "ratio_p99": ratio(percentile(lat, 99), percentile(flo, 99)),
            "cpu_ms_per_tap": {
                name: 1000 * spent / max(1, len(self.taps)) for name, spent in self.cpu.items()
            },
        }


def percentile(values: list[float], pct: float) -> float:
    """The nearest-rank percentile of sorted values (nan for none)."""
    if not values:
        return float("nan")
    rank = max(1, round(pct / 100 * len(values) + 0.5 - 1e-9))
    return values[min(len(values), rank) - 1]


def ratio(value: float, floor: float) -> float:
    return value / floor if floor > 0 else float("nan")


# ----- what the tap caused ------------------------------------------------------------


View = Room | Seen  # a room, as a whole or as seen by a look


def humans_turn(room: View) -> bool:
    """A human is to move, or nobody will be (the game is over)."""
    if room.status != "playing" or not isinstance(room.game, GameState):
        return True
    seat = to_move(room.game)
    return seat is None or room.seats[seat].user_id is not None


def carried_out(room: View | None, version: int, pending: list[bytes]) -> bool:
    """The tap made at `version` is carried out: applied (the room moved on), nothing of
    the room queued for a worker or waiting for the outbox, a human to move again."""
    if room is None or room.version <= version:
        return False
    mine = f"{room.id}|".encode()
    return not any(member.startswith(mine) for member in pending) and humans_turn(room)


def a_tap(room: View, update_id: int) -> tuple[bytes, int]:
    """A legal card tap of the human to move, as Telegram POSTs it; and its chat."""
    assert isinstance(room.game, GameState)
    seat = to_move(room.game)
    assert seat is not None
    user = room.seats[seat].user_id
    assert user is not None
    action = legal_actions(room.game, seat)[0]
    data = callbacks.encode(room.id, room.version, callbacks.game_token(action))
    return update(update_id, press_of(user, data, user)), user


def person(user: int) -> dict[str, Any]:
    return {"id": user, "is_bot": False, "first_name": f"P{user % 10}", "language_code": "en"}


def update(update_id: int, body: dict[str, Any]) -> bytes:
    return json.dumps({"update_id": update_id, **body}).encode()


def press_of(user: int, data: str, chat: int) -> dict[str, Any]:
    kind = "private" if chat > 0 else "supergroup"
    message = {"message_id": 1, "date": int(time.time()), "chat": {"id": chat, "type": kind}}
    query = {"id": f"{user}{time.monotonic_ns()}", "from": person(user), "chat_instance": "1"}
    return {"callback_query": {**query, "data": data, "message": message}}


def command_of(user: int, text: str, chat: int) -> dict[str, Any]:
    kind = "private" if chat > 0 else "supergroup"
    entity = {"type": "bot_command", "offset": 0, "length": len(text.split()[0])}
    message = {"message_id": 1, "date": int(time.time()), "from": person(user), "text": text}
    chat_of = {"id": chat, "type": kind, "title": "Family"}
    return {"message": {**message, "chat": chat_of, "entities": [entity]}}


# ----- the driver ---------------------------------------------------------------------


class Calls(asyncio.Protocol):
    """The sink's call log, streamed: each call's time routed to the game whose chat it
    went to (`route`), and marks (`mark`) to know every earlier call was read. A protocol,
    not a stream reader: a call's line costs this process no task's wake-up."""

    def __init__(self) -> None:
        self.route: dict[int, Game] = {}
        self.marks: dict[int, asyncio.Future[None]] = {}
        self.open = asyncio.Event()  # the sink streams to us: no call goes unread
        self.next_mark: asyncio.Future[None] | None = None  # not sent yet: to share
        self.names = itertools.count()
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    async def read(self, api_url: str) -> None:
        """Stream the sink's calls until cancelled."""
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_connection(lambda: self, *address(api_url))
        try:
            await asyncio.Future()  # the protocol's callbacks do the reading
        finally:
            transport.close()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(b"GET /_sink/stream HTTP/1.1\r\nhost: sink\r\n\r\n")

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.open.is_set():  # the head comes once the sink holds the stream
            head, found, self.buffer = self.buffer.partition(b"\r\n\r\n")
            if not found:
                self.buffer = head
                return
            self.open.set()
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            self.take(line.split())

    def take(self, words: list[bytes]) -> None:
        if words[0] == b"mark":
            future = self.marks.pop(int(words[1]), None)
            if future is not None and not future.done():
                future.set_result(None)
            return
        game = self.route.get(int(words[1]))
        if game is not None:
            game.calls.append(float(words[0]))
            game.woken.set()

    async def mark(self) -> None:
        """Wait until every call the sink received so far has been read from its log:
        a mark sent on the stream comes back after them. The games asking in the same
        turn of the event loop share one (one asking later needs its own)."""
        if self.next_mark is None:
            self.next_mark = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_soon(self.send_mark)
        await asyncio.wait_for(asyncio.shield(self.next_mark), timeout=30)

    def send_mark(self) -> None:
        assert self.next_mark is not None and self.transport is not None
        name = next(self.names)
        self.marks[name], self.next_mark = self.next_mark, None
        self.transport.write(b"mark %d\n" % name)


class Driver:
    """Plays the humans of many games at once over the webhook, each game on its own
    kept-alive connections (bench.loadgen's client: little CPU of this process's)."""

    def __init__(self, serve_url: str, api_url: str, redis_url: str) -> None:
        self.serve, self.api_url = address(serve_url), api_url
        self.redis = aredis.Redis.from_url(redis_url)
        self.sync_redis = redis.Redis.from_url(redis_url)
        self.floor_api = BotApi(TOKEN, api_url, timeout=30)  # the workers' own client
        self.calls = Calls()
        self.ids = iter(range(5_000_000_000, 10**12))
        self.head = (
            b"POST /telegram/webhook HTTP/1.1\r\nhost: 127.0.0.1\r\n"
            b"content-type: application/json\r\n"
            b"x-telegram-bot-api-secret-token: " + SECRET.encode() + b"\r\ncontent-length: "
        )

    def conn(self) -> Conn:
        return Conn(*self.serve)

    async def post(self, conn: Conn, body: dict[str, Any] | bytes) -> None:
        raw = body if isinstance(body, bytes) else update(next(self.ids), body)
        status = await conn.request(self.head, raw)
        if status != 200:
            raise RuntimeError(f"the webhook answered {status}")

    async def room_in(self, chat: int) -> Seen | None:
        room_id = await self.redis.get(chat_key(chat, None))
        raw = (
            await self.redis.get(room_key(room_id.decode())) if isinstance(room_id, bytes) else None
        )
        return Seen.of(raw) if raw else None

    async def until(self, chat: int, ready: Callable[[Seen], bool], what: str) -> Seen:
        """Poll the chat's room until `ready` (setting a game up: not timed)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            room = await self.room_in(chat)
            if room is not None and ready(room):
                return room
            await asyncio.sleep(0.01)
        raise RuntimeError(f"timed out waiting for {what} in chat {chat}")

    async def look(self, room_id: str) -> tuple[bytes | None, list[bytes]]:
        """The room's stored bytes (None while work of it is pending: not worth parsing)
        and what of it is pending, in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(room_key(room_id))
        pipe.zrange(index_key(PENDING_PRESSES, room_id), 0, -1)
        pipe.zrange(index_key(PENDING_SYNC, room_id), 0, -1)
        raw, presses, syncs = await pipe.execute()
        pending = [*presses, *syncs]
        mine = f"{room_id}|".encode()
        if any(member.startswith(mine) for member in pending):
            return None, pending
        return raw, pending

    async def mark(self) -> None:
        """Wait until every call the sink received so far has been read from its log."""
        await self.calls.mark()

    def floor(self, calls: int, room_id: str) -> float:
        """`calls` sequential round trips to the sink, each and a Redis GET: seconds."""
        key = room_key(room_id)
        start = time.monotonic()
        for _ in range(calls):
            self.floor_api.call("floor", chat_id=0, text="floor")
            self.sync_redis.get(key)
        return time.monotonic() - start

    async def close(self) -> None:
        await self.redis.aclose()
        self.floor_api.close()
        self.sync_redis.close()


class Game:
    """One slot's games, one after another: the same players each time."""

    def __init__(self, driver: Driver, kind: str, slot: int) -> None:
        self.driver, self.kind, self.slot = driver, kind, slot
        self.calls: list[float] = []
        self.woken = asyncio.Event()
        self.webhook = driver.conn()
        self.parsed: tuple[bytes, Seen] | None = None  # the room last read, its bytes
        self.meet()

    def meet(self) -> None:
        """The slot's players and chat; new ones to /start."""
        slot, humans = self.slot, 1 if self.kind == "solo" else HUMANS
        self.users = [USER0 + 10 * slot + seat for seat in range(humans)]
        self.chat = self.users[0] if self.kind == "solo" else GROUP0 - slot
        self.started = False
        for chat in {*self.users, self.chat}:
            self.driver.calls.route[chat] = self

    async def new(self) -> Seen:
        """A new game started, its first screens sent (setting up: not timed)."""
        until = self.driver.until

        async def post(body: dict[str, Any]) -> None:
            await self.driver.post(self.webhook, body)

        if not self.started:
            for user in self.users:
                await post(command_of(user, "/start", user))
            self.started = True
        owner = self.users[0]
        if self.kind == "solo":
            await post(command_of(owner, f"/play {PRESET}", owner))
            lobby = await until(self.chat, lambda r: r.status == "lobby", "a lobby")
            while sum(seat.user_id is None for seat in lobby.seats) < BOTS:  # one to begin
                await post(press_of(owner, lobby_press(lobby, "add_bot"), owner))
                lobby = await until(self.chat, past(lobby.version), "a bot")
        else:
            await post(command_of(owner, f"/burro {PRESET}", self.chat))
            lobby = await until(self.chat, lambda r: r.status == "lobby", "a lobby")
            for user in self.users[1:]:
                await post(press_of(user, lobby_press(lobby, "join"), self.chat))
                lobby = await until(self.chat, past(lobby.version), "a join")
        await post(press_of(owner, lobby_press(lobby, "start"), self.chat))
        room = await until(self.chat, lambda r: r.status == "playing", "the game to start")
        return await self.settled(room.version - 1, room.id)

    async def settled(self, version: int, room_id: str) -> Seen:
        """Wait until the tap made at `version` is carried out: look at Redis once the
        calls to the game's chats pause (the outbox marks a chat done after its call),
        and again after twice as long each time none comes (up to `WAIT`); before the
        tap's first call only every `FIRST` seconds (a tap changes screens: until one
        is sent there is nothing to look for). Every look is a round trip of this
        process's, CPU taken from the machine measured."""
        called, wait = False, FIRST
        while True:
            try:
                await asyncio.wait_for(self.woken.wait(), timeout=wait)
                while self.woken.is_set():  # more calls coming: look once they pause
                    self.woken.clear()
                    await asyncio.sleep(QUIET)
                called, wait = True, QUIET
            except TimeoutError:
                wait = min(2 * wait, WAIT) if called else FIRST
            room, pending = await self.look(room_id)
            if carried_out(room, version, pending):
                assert room is not None
                return room

    async def look(self, room_id: str) -> tuple[Seen | None, list[bytes]]:
        """The room (None while work of it is pending) and what of it is pending; read
        only when its bytes changed since the last look that read it."""
        raw, pending = await self.driver.look(room_id)
        if raw is None:
            return None, pending
        if self.parsed is None or self.parsed[0] != raw:
            self.parsed = raw, Seen.of(raw)
        return self.parsed[1], pending

    async def tap(self, room: Seen, floor: bool = True) -> tuple[Tap, Seen | None]:
        """Tap, wait until it is carried out, then measure its floor (None: the tap
        stalled, its game left)."""
        raw, _chat = a_tap(room, next(self.driver.ids))
        self.calls = []
        start = time.monotonic()
        await self.driver.post(self.webhook, raw)
        try:
            after: Seen | None = await asyncio.wait_for(self.settled(room.version, room.id), STALL)
        except TimeoutError:  # e.g. a chat's sync left to the sweeper (30 s and more)
            after = None
        await self.driver.mark()
        made = [t for t in self.calls if t >= start]
        latency = max(made) - start if made else 0.0
        if after is None:
            return Tap(latency, len(made), 0.0, await self.stalled(room.id)), None
        spent = self.driver.floor(len(made), room.id) if floor else 0.0
        return Tap(latency, len(made), spent), after

    async def stalled(self, room_id: str) -> str:
        """Why a tap stalled ("end": its game is over, the last screens wait); the game
        is left as it is, and this slot plays on with new players and chats."""
        raw = await self.driver.redis.get(room_key(room_id))
        over = raw is None or Seen.of(raw).status != "playing"
        self.slot += STALLED_SLOTS
        self.meet()
        return "end" if over else "move"

    async def play(self, until: float, timed_from: float, cell: Cell) -> None:
        room = await self.new()
        while time.monotonic() < until:
            if not humans_turn(room) or room.status != "playing":
                room = await self.new()
                continue
            done, after = await self.tap(room, cell.floor)
            if time.monotonic() >= timed_from:
                cell.taps.append(done)
            room = after if after is not None else await self.new()


LOBBY = {"add_bot": "B", "join": "J", "start": "S"}  # the lobby buttons' tokens (ui.tokens)


def past(version: int) -> Callable[[Seen], bool]:
    return lambda room: room.version > version


def address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def lobby_press(lobby: Seen, action: str) -> str:
    return callbacks.encode(lobby.id, lobby.version, LOBBY[action])


async def run_cell(driver: Driver, found: Stack, cell: Cell, seconds: float, warmup: float,
                   first_slot: int) -> Cell:  # fmt: skip
    """`cell.games` games of a kind at once (0: one, idle) for `seconds` after `warmup`;
    the CPU each process spent meanwhile."""
    start = time.monotonic()
    timed_from, until = start + warmup, start + warmup + seconds
    slots = [Game(driver, cell.kind, first_slot + n) for n in range(max(1, cell.games))]
    playing = asyncio.gather(*(game.play(until, timed_from, cell) for game in slots))
    await asyncio.sleep(max(0.0, timed_from - time.monotonic()))
    before = found.cpu()
    found.timed(True)
    await playing
    found.timed(False)
    cell.cpu = {name: spent - before.get(name, 0.0) for name, spent in found.cpu().items()}
    cell.seconds = time.monotonic() - timed_from
    return cell


# ----- the processes ------------------------------------------------------------------


@dataclass
class Stack:
    running: Procs
    redis_url: str
    api_url: str
    serve_url: str
    workers: int = 0
    first_worker: list[str] = field(default_factory=list)
    redis_pid: int | None = None  # Redis's own CPU is the move's too
    timed: Callable[[bool], None] = lambda _on: None  # told when a timed window opens, ends

    def env(self) -> dict[str, str]:
        return serve_env(self.redis_url, self.api_url, BURRO_RATE_LIMITS="0")

    def cpu(self) -> dict[str, float]:
        """CPU seconds used so far: each process's, workers summed, and this one's."""
        spent = {"driver": time.process_time()}
        for name in self.running.running:
            key = "workers" if name.startswith("worker") else name
            spent[key] = spent.get(key, 0.0) + self.running.cpu_seconds(name)
        if self.redis_pid is not None:
            spent["redis"] = cpu_seconds_of(self.redis_pid)
        return spent

    def scale(self, count: int) -> None:
        """Run `count` workers (the first with `first_worker`'s command, if any)."""
        while self.workers > count:
            self.workers -= 1
            self.running.stop(f"worker{self.workers}")
        while self.workers < count:
            args = ["-m", "cli.main", "worker"]
            if self.first_worker and self.workers == 0:  # e.g. bench.profile_worker's
                args = [*self.first_worker, "worker"]
            self.running.spawn(f"worker{self.workers}", args, self.env())
            self.workers += 1
        wait_workers(self.redis_url, count)


def wait_workers(redis_url: str, count: int, timeout: float = 60) -> None:
    client = redis.Redis.from_url(redis_url)
    deadline = time.monotonic() + timeout
    while len(Worker.all(connection=client)) < count:  # `--also` processes may be workers
        if time.monotonic() > deadline:
            raise RuntimeError(f"{count} workers did not register within {timeout} s")
        time.sleep(0.05)


@contextmanager
def stack(
    folder: Path,
    workers: int = 2,
    first_worker: list[str] | None = None,
    also: tuple[str, ...] = (),
) -> Iterator[Stack]:
    with RedisServer(folder / "redis", persist=False) as server, procs(folder) as running:
        api_url = start_sink(running)
        [target] = start_servers(running, "ours", 1, server.url, api_url, BURRO_RATE_LIMITS="0")
        found = Stack(running, server.url, api_url, f"http://{target}", 0, first_worker or [])
        found.redis_pid = server.process.pid if server.process is not None else None
        for index, command in enumerate(also):  # e.g. "worker --bots", as deployed
            running.spawn(f"also{index}", ["-m", "cli.main", *command.split()], found.env())
        found.scale(workers)
        yield found


async def measure(found: Stack, cells: list[tuple[str, int]], seconds: float, warmup: float,
                  saturate: list[int], saturate_games: int) -> dict[str, Any]:  # fmt: skip
    driver = Driver(found.serve_url, found.api_url, found.redis_url)
    reading = asyncio.create_task(driver.calls.read(found.api_url))
    await asyncio.wait_for(driver.calls.open.wait(), timeout=30)
    slot = 0
    results: dict[str, Any] = {"cells": [], "saturation": []}
    try:
        for kind, games in cells:
            cell = await run_cell(driver, found, Cell(kind, games), seconds, warmup, slot)
            slot += max(1, games)
            results["cells"].append(cell.report())
        for workers in saturate:
            found.scale(workers)
            flat_out = Cell("group", saturate_games, floor=False)
            cell = await run_cell(driver, found, flat_out, seconds, warmup, slot)
            slot += saturate_games
            results["saturation"].append({"workers": workers, **cell.report()})
    finally:
        reading.cancel()
        await driver.close()
    return results


# ----- the report ---------------------------------------------------------------------

NAMES = {"solo": "one-to-one against three bots", "group": "a group of three"}


def taps_text(cell: dict[str, Any]) -> str:
    """The taps timed, and those that stalled (left out of the percentiles)."""
    if not cell["stalled"]:
        return str(cell["taps"])
    return (
        f"{cell['taps']} ({cell['stalled']} stalled, {cell['stalled_at_the_end']} at a game's end)"
    )


CPU_OF = ("workers", "ours0", "redis", "sink", "driver")  # as the tables name them:
CPU_HEAD = "CPU a tap, ms: workers / serve / Redis / sink / bench = all"


def cpu_text(cell: dict[str, Any]) -> str:
    """CPU a tap, ms: the workers' / serve's / Redis's / the sink's / this driver's, and
    all of them (two cores hold 2,000 ms a second: 300 taps a second allow 6.7 ms)."""
    cpu = cell["cpu_ms_per_tap"]
    parts = [cpu.get(name, 0.0) for name in CPU_OF]
    return " / ".join(f"{part:.1f}" for part in parts) + f" = {sum(parts):.1f}"


def table(results: dict[str, Any]) -> str:
    lines = [
        f"| | p50 | p99 | floor p50 / p99 | ratio p50 / p99 | calls a tap | taps | {CPU_HEAD} |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for c in results["cells"]:
        load = "idle" if c["games"] == 0 else f"{c['games']} games at once"
        lines.append(
            f"| {NAMES[c['kind']]}, {load} | {c['p50_ms']:.1f} ms | {c['p99_ms']:.1f} ms "
            f"| {c['floor_p50_ms']:.2f} / {c['floor_p99_ms']:.2f} ms "
            f"| {c['ratio_p50']:.1f}× / {c['ratio_p99']:.1f}× | {c['calls_per_tap']:.2f} "
            f"| {taps_text(c)} | {cpu_text(c)} |"
        )
    if results["saturation"]:
        lines += [
            "",
            f"| worker processes | human moves/s | p50 | p99 | {CPU_HEAD} |",
            "| ---: | ---: | ---: | ---: | ---: |",
        ]
        for s in results["saturation"]:
            lines.append(
                f"| {s['workers']} | {s['taps_per_second']:.0f} | {s['p50_ms']:.0f} ms "
                f"| {s['p99_ms']:.0f} ms | {cpu_text(s)} |"
            )
    return "\n".join(lines)


def numbers(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def parser() -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    found.add_argument("--seconds", type=float, default=15.0, help="timed, per cell")
    found.add_argument("--warmup", type=float, default=3.0, help="untimed, per cell")
    found.add_argument("--games", type=numbers, default=[0, 5, 20], help="games at once")
    found.add_argument("--kinds", default=",".join(KINDS), help="solo, group or both")
    found.add_argument("--workers-scale", type=numbers, default=[1, 2, 3, 4],
                       help="worker processes for moves/s at saturation ('' skips it)")  # fmt: skip
    found.add_argument("--saturate-games", type=int, default=20)
    found.add_argument("--also", action="append", default=[], metavar="ARGS",
                       help="run `burro ARGS` too, e.g. 'worker --bots' (repeatable)")  # fmt: skip
    found.add_argument("--json", type=Path, default=None)
    return found


def main() -> None:
    args = parser().parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    cells = [(kind, games) for games in args.games for kind in kinds]
    header = machine()
    also = tuple(args.also)
    with (
        tempfile.TemporaryDirectory(prefix="burro-e2e-") as tmp,
        stack(Path(tmp), also=also) as found,
    ):
        results = asyncio.run(measure(found, cells, args.seconds, args.warmup,
                                      args.workers_scale, args.saturate_games))  # fmt: skip
    results["machine"] = header
    print(header)
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
