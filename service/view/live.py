"""The views' live updates (#39): one Redis subscription per `serve` process, however many
views it holds open.

Every committed change of a room publishes the room's id on `CHANNEL` (the store's
write, service.infra.store.writes: a PUBLISH nobody listens to costs Redis next to
nothing). `Live` listens once per process; on a room's id it reads the room once, paints
one picture per (seat, language) among the views open on it, and hands each view its own
(`Watcher.latest`), skipping a view whose picture did not change. A room that changes
again while it is being painted is painted once more afterwards, never in parallel.

The subscription comes back by itself after Redis or the network goes away, and every
watched room is painted again then (a change may have come while nobody listened). A
view's page reconnects by itself too (service/view/page.js), and is given the whole
picture first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import redis
import redis.asyncio
from redis.exceptions import RedisClusterException

from service.infra.keys import VIEW_CHANNEL
from service.table.room import Room

log = logging.getLogger("burro.view")

CHANNEL = VIEW_CHANNEL  # a room's id, published with each committed change of it
WAKE = 1.0  # seconds a wait for a message lasts at most (then `stopping` is looked at)
RETRY_WAITS = (0.2, 0.5, 1.0, 2.0, 5.0)  # seconds between attempts to subscribe again

# A room read by its id (None: gone), and a reader's picture of it as the page's JSON:
# (room, seat or None for the public table, language) -> text.
Load = Callable[[str], Awaitable[Room | None]]
Paint = Callable[[Room, int | None, str], str]


@dataclass(eq=False)
class Watcher:
    """One open view: whose it is, of which room, in which language when the person has
    no seat there (a seat's own language wins). `latest` is the last picture painted for
    it, or None once the room is gone; `fresh` is set when it changes."""

    person: int
    room_id: str
    lang: str
    latest: str | None = None
    gone: bool = False
    fresh: asyncio.Event = field(default_factory=asyncio.Event)

    def offer(self, picture: str | None) -> None:
        """A picture painted after a change (None: the room is gone)."""
        if picture is None:
            self.gone = True
            self.fresh.set()
        elif picture != self.latest:
            self.latest = picture
            self.fresh.set()

    async def next(self, timeout: float) -> bool:
        """Wait for a new picture (True), or `timeout` seconds (False)."""
        try:
            await asyncio.wait_for(self.fresh.wait(), timeout)
        except TimeoutError:
            return False
        self.fresh.clear()
        return True


def reader_of(room: Room, person: int, lang: str) -> tuple[int | None, str]:
    """What a person's picture depends on: their seat (None: they have none) and the
    language it is painted in (their seat's, else the one their view asked)."""
    seat = room.seat_of(person)
    return seat, (room.seats[seat].lang if seat is not None else lang)


def paint_for(room: Room, people: list[Watcher], paint: Paint) -> dict[Watcher, str]:
    """Each view's picture, painted once per (seat, language) among them."""
    painted: dict[tuple[int | None, str], str] = {}
    pictures: dict[Watcher, str] = {}
    for watcher in people:
        reader = reader_of(room, watcher.person, watcher.lang)
        if reader not in painted:
            painted[reader] = paint(room, *reader)
        pictures[watcher] = painted[reader]
    return pictures


class Live:
    """The views open in this process, by room, kept up to date from `CHANNEL`."""

    def __init__(
        self, aclient: redis.asyncio.Redis | redis.asyncio.RedisCluster, load: Load, paint: Paint
    ) -> None:
        self.aclient, self.load, self.paint = aclient, load, paint
        self.rooms: dict[str, set[Watcher]] = {}
        self.painting: dict[str, asyncio.Task[None]] = {}
        self.again: set[str] = set()  # rooms changed while being painted
        self.listening = asyncio.Event()  # subscribed now (the tests wait on it)
        self.task: asyncio.Task[None] | None = None
        self.stopping = False

    # ----- the process's subscription ---------------------------------------------------

    async def start(self) -> None:
        self.task = asyncio.create_task(self.listen(), name="view-live")

    async def stop(self) -> None:
        self.stopping = True  # a cancellation a client swallows still ends `follow`
        tasks = [t for t in (self.task, *self.painting.values()) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def listen(self) -> None:
        """Subscribe, and follow the channel; subscribe again whenever it breaks."""
        failures = 0
        while not self.stopping:
            try:
                async with self.subscriber() as client, client.pubsub() as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    failures = 0
                    self.listening.set()
                    self.changed_all()  # whatever changed while nobody listened
                    await self.follow(pubsub)
            except (redis.RedisError, RedisClusterException, OSError) as error:
                self.listening.clear()
                wait = RETRY_WAITS[min(failures, len(RETRY_WAITS) - 1)]
                failures += 1
                log.warning("view updates: subscription lost (%r), again in %ss", error, wait)
                await asyncio.sleep(wait)

    @contextlib.asynccontextmanager
    async def subscriber(self) -> AsyncIterator[redis.asyncio.Redis]:
        """Whom to subscribe through: the client, or on a cluster one of its primaries,
        picked anew at each subscription (a PUBLISH reaches every node of a cluster)."""
        if not isinstance(self.aclient, redis.asyncio.RedisCluster):
            yield self.aclient
            return
        await self.aclient.initialize()
        node = random.choice(self.aclient.get_primaries())
        plain = redis.asyncio.Redis(host=node.host, port=int(node.port))
        try:
            yield plain
        finally:
            await plain.aclose()

    async def follow(self, pubsub: redis.asyncio.client.PubSub) -> None:
        while not self.stopping:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=WAKE)
            data = message.get("data") if message else None
            if message and message.get("type") == "message" and isinstance(data, bytes | str):
                self.changed(data.decode() if isinstance(data, bytes) else data)

    # ----- views ------------------------------------------------------------------------

    def watch(self, person: int, room_id: str, lang: str) -> Watcher:
        watcher = Watcher(person, room_id, lang)
        self.rooms.setdefault(room_id, set()).add(watcher)
        return watcher

    def unwatch(self, watcher: Watcher) -> None:
        people = self.rooms.get(watcher.room_id)
        if people is not None:
            people.discard(watcher)
            if not people:
                del self.rooms[watcher.room_id]

    @property
    def views(self) -> int:
        return sum(len(people) for people in self.rooms.values())

    # ----- changes ----------------------------------------------------------------------

    def changed(self, room_id: str) -> None:
        """A room changed: paint it for its views, once more if it is being painted."""
        if room_id not in self.rooms:
            return
        if room_id in self.painting:
            self.again.add(room_id)
            return
        self.painting[room_id] = asyncio.create_task(self.repaint(room_id))

    def changed_all(self) -> None:
        for room_id in list(self.rooms):
            self.changed(room_id)

    async def repaint(self, room_id: str) -> None:
        try:
            while True:
                self.again.discard(room_id)
                await self.paint_room(room_id)
                if room_id not in self.again:
                    return
        except (
            redis.RedisError,
            RedisClusterException,
            OSError,
        ) as error:  # painted again once subscribed again
            log.warning("view updates: room %s not read: %r", room_id, error)
        except Exception:
            log.exception("view updates: room %s not painted", room_id)
        finally:
            del self.painting[room_id]

    async def paint_room(self, room_id: str) -> None:
        room = await self.load(room_id)
        people = list(self.rooms.get(room_id, ()))
        if room is None:
            for watcher in people:
                watcher.offer(None)
            return
        for watcher, picture in paint_for(room, people, self.paint).items():
            watcher.offer(picture)
