"""The load generator: a separate process that plays many games at once over the webhook.

    python -m bench.loadgen --targets 127.0.0.1:8080[,127.0.0.1:8081] --redis URL \
        --games games.json --mode saturate --concurrency 40 --seconds 10
    python -m bench.loadgen ... --mode rate --rate 200 --seconds 10

It reads the games (room ids in a JSON file) from Redis, mirrors them (bench.games), and
sends each game's next legal move as soon as the previous one was answered 200, never
two moves of one game at once. Requests go round-robin over the targets (a load
balancer in front of several `serve` processes). A plain asyncio HTTP/1.1 keep-alive
client with prepared bytes keeps the generator's own cost small.

- `saturate`: `concurrency` connections, each sending its next request as soon as the
  last one is answered (closed loop): the updates/s the server sustains.
- `rate`: requests start on a fixed schedule (open loop, `rate` per second) on as many
  connections as needed; latency is measured from the scheduled start, so a server
  that falls behind shows it (no coordinated omission).

Prints one JSON object: counts, updates/s, latency percentiles (ms), answers by status,
and `mismatched`: games whose Redis version differs from the mirror at the end (each
answered 200 must be an applied move; check with `--verify`). With `--cluster`, `--redis`
is a node of the cluster that holds the game state.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import random
import time
from collections import Counter, deque
from typing import Any

import redis

from bench.games import Mirror, load_mirrors
from service.infra import indexes
from service.infra.keys import PENDING_PRESSES
from service.infra.redis_server import connect
from service.infra.store import decode_room, room_key


class Conn:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, head: bytes, body: bytes) -> int:
        """Send one request; its status (0: the connection failed). A kept-alive
        connection the server closed while idle (uvicorn's keep-alive timeout, 5 s) is
        opened again and the request sent once more, as HTTP clients do (the server
        never read it; a webhook update is idempotent all the same)."""
        reused = self.writer is not None
        raw = await self.exchange(head, body)
        if raw is None and reused:
            raw = await self.exchange(head, body)
        if raw is None or self.reader is None:
            return 0
        lines = raw.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        length = 0
        close = chunked = False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value.strip())
            elif name == b"connection" and value.strip().lower() == b"close":
                close = True
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
        if length:
            await self.reader.readexactly(length)
        while chunked:
            size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
            await self.reader.readexactly(size + 2)
            chunked = size > 0
        if close:
            self.close()
        return status

    async def exchange(self, head: bytes, body: bytes) -> bytes | None:
        """The request sent, its response's head read (None: the connection failed)."""
        try:
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            assert self.reader is not None
            self.writer.write(head + str(len(body)).encode() + b"\r\n\r\n" + body)
            await self.writer.drain()
            return await self.reader.readuntil(b"\r\n\r\n")
        except (ConnectionError, asyncio.IncompleteReadError):
            self.close()
            return None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)

    return {"p50": at(0.50), "p90": at(0.90), "p95": at(0.95), "p99": at(0.99),
            "max": round(ordered[-1] * 1000, 2)}  # fmt: skip


class Load:
    def __init__(
        self, targets: list[tuple[str, int]], mirrors: list[Mirror], secret: str, queued: bool
    ) -> None:
        self.targets = itertools.cycle(targets)
        # `serve` queues a move for a worker and none runs here: a 200 leaves the game
        # where it was, and each game gets one move (Mirror.queued)
        self.queued = queued
        self.starved = 0  # times a connection found no game ready
        self.ready: deque[Mirror] = deque(m for m in mirrors if not m.over)
        self.head = (
            b"POST /telegram/webhook HTTP/1.1\r\nhost: 127.0.0.1\r\n"
            b"content-type: application/json\r\n"
            b"x-telegram-bot-api-secret-token: " + secret.encode() + b"\r\ncontent-length: "
        )
        self.update_ids = itertools.count(random.randrange(1 << 40, 1 << 41))
        self.statuses: Counter[int] = Counter()
        self.latencies: list[float] = []
        self.done = 0
        self.measure_from = 0.0
        self.measure_to = float("inf")

    def new_conn(self) -> Conn:
        host, port = next(self.targets)
        return Conn(host, port)

    async def one(self, conn: Conn, started: float) -> bool:
        """Send the next move of a ready game; False when no game is ready."""
        if not self.ready:
            self.starved += 1
            return False
        mirror = self.ready.popleft()
        body = mirror.next_update(next(self.update_ids), next(self.update_ids))
        status = await conn.request(self.head, body)
        finished = time.perf_counter()
        if status == 200 and self.queued:
            mirror.queued()
        elif status == 200:
            mirror.applied()
        else:
            mirror.pending = None
        if not mirror.over and not (self.queued and mirror.moves):
            self.ready.append(mirror)
        if self.measure_from <= started and finished <= self.measure_to:
            self.statuses[status] += 1
            self.latencies.append(finished - started)
            self.done += 1
        return True

    async def saturate(self, concurrency: int, warmup: float, seconds: float) -> None:
        now = time.perf_counter()
        self.measure_from, self.measure_to = now + warmup, now + warmup + seconds

        async def worker() -> None:
            conn = self.new_conn()
            while time.perf_counter() < self.measure_to:
                if not await self.one(conn, time.perf_counter()):
                    await asyncio.sleep(0.001)
            conn.close()

        await asyncio.gather(*(worker() for _ in range(concurrency)))

    async def at_rate(self, rate: float, warmup: float, seconds: float) -> None:
        start = time.perf_counter()
        self.measure_from, self.measure_to = start + warmup, start + warmup + seconds
        free: list[Conn] = []
        tasks: set[asyncio.Task[None]] = set()

        async def fire(scheduled: float) -> None:
            conn = free.pop() if free else self.new_conn()
            try:
                await self.one(conn, scheduled)
            finally:
                free.append(conn)

        for n in itertools.count():
            scheduled = start + n / rate
            if scheduled > self.measure_to:
                break
            delay = scheduled - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            task = asyncio.create_task(fire(scheduled))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.wait(tasks, timeout=30)
        for conn in free:
            conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--targets", required=True)
    parser.add_argument("--redis", required=True)
    parser.add_argument("--games", required=True, help="a JSON file: a list of room ids")
    parser.add_argument("--secret", default="bench-secret")
    parser.add_argument("--mode", choices=("saturate", "rate"), default="saturate")
    parser.add_argument("--concurrency", type=int, default=40)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--verify", action="store_true", help="compare versions with Redis")
    parser.add_argument("--cluster", action="store_true", help="--redis is a cluster's node")
    parser.add_argument(
        "--queued", action="store_true", help="the server queues moves: one move a game"
    )
    args = parser.parse_args()
    targets = [(t.split(":")[0], int(t.split(":")[1])) for t in args.targets.split(",")]
    client = redis.RedisCluster.from_url(args.redis) if args.cluster else connect(args.redis)
    with open(args.games) as file:
        room_ids: list[str] = json.load(file)
    mirrors = load_mirrors(client, room_ids)
    # Tens of thousands of mirrored games are hundreds of MB of objects: a full garbage
    # collection of them would stall this process, and the latencies it measures.
    gc.collect()
    gc.freeze()
    load = Load(targets, mirrors, args.secret, args.queued)
    if args.mode == "saturate":
        asyncio.run(load.saturate(args.concurrency, args.warmup, args.seconds))
    else:
        asyncio.run(load.at_rate(args.rate, args.warmup, args.seconds))
    result: dict[str, Any] = {
        "mode": args.mode,
        "games": len(mirrors),
        "done": load.done,
        "per_second": round(load.done / args.seconds, 1),
        "latency_ms": percentiles(load.latencies),
        "statuses": {str(k): v for k, v in load.statuses.items()},
        "moves_sent": sum(m.moves for m in mirrors),
        "starved": load.starved,
    }
    if args.verify:
        result["mismatched"] = mismatched(client, mirrors, args.queued)
    print(json.dumps(result))


def mismatched(client: Any, mirrors: list[Mirror], queued: bool) -> int:
    """Games whose Redis differs from what the answers said: each 200 an applied move
    (the room's version moved on as the mirror's), or with `queued` a queued one (the
    room as it was, its press waiting in presses:pending)."""
    waiting = {m.split("|", 1)[0] for m in indexes.members(client, PENDING_PRESSES)}
    moved = [mirror for mirror in mirrors if mirror.moves]
    with client.pipeline(transaction=False) as pipe:
        for mirror in moved:
            pipe.get(room_key(mirror.room_id))
        stored = pipe.execute()
    count = 0
    for mirror, data in zip(moved, stored, strict=True):
        version = decode_room(data).version if data else -1
        count += version != mirror.version or (queued and mirror.room_id not in waiting)
    return count


if __name__ == "__main__":
    main()
