"""What every part of the store shares: its clients, the lifetimes of what it keeps."""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from typing import Any, Self, TypeVar

import redis
import redis.asyncio

from service.infra import trips
from service.settings import Settings
from service.table.games import DEFAULT_DELAY
from service.table.room import LIVE, Room

T = TypeVar("T")

# What names an inbound update once, for its dedupe mark: Telegram's update_id, or a
# platform's own message id as text (WhatsApp's wamid, prefixed with its platform), which
# that platform may redeliver for longer (`Store.text_mark_ttl`).
UpdateId = int | str

MISSING: Any = object()  # not read ahead: read it from Redis


def text(value: object) -> str:
    """A Redis reply as text (the client answers bytes)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def encode_room(room: Room) -> bytes:
    """A room as stored: its JSON, deflated (a third of the size: its keys repeat); an
    ended room's game as its packed moves (Room.stored_json)."""
    return zlib.compress(room.stored_json())


def room_json(data: bytes | str) -> bytes:
    """A stored room's JSON: deflated, or plain as older releases saved it."""
    raw = data.encode() if isinstance(data, str) else data
    return raw if raw[:1] == b"{" else zlib.decompress(raw)


def decode_room(data: bytes | str) -> Room:
    """A room as stored; one saved as plain JSON (by older releases) too."""
    return Room.model_validate_json(room_json(data))


class Conflict(Exception):
    """The room kept changing under us: give up (Telegram will deliver again)."""


class StoreBase:
    def __init__(
        self,
        client: redis.Redis | redis.RedisCluster,
        retention: int,
        dedupe_ttl: int,
        *,
        live_ttl: int = 16 * 24 * 3600,
        people_ttl: int = 365 * 24 * 3600,
        idle: tuple[int, int] = (2 * 24 * 3600, 14 * 24 * 3600),
        clock: Callable[[], float] = time.time,
        text_mark_ttl: int = 7 * 24 * 3600,
        aclient: redis.asyncio.Redis | redis.asyncio.RedisCluster | None = None,
        bot_delay: float = DEFAULT_DELAY,
        jobs: redis.Redis | None = None,
        ajobs: redis.asyncio.Redis | None = None,
        durable: trips.Durable | None = None,
    ) -> None:
        self.redis: Any = client  # Any: redis-py types a cluster's client apart
        # RQ's Redis: the state's own unless that is a cluster (RQ runs on one node).
        if jobs is None and isinstance(client, redis.RedisCluster):
            raise ValueError("a cluster holds no RQ queue: give RQ's Redis (jobs)")
        self.jobs: redis.Redis = jobs if jobs is not None else client  # type: ignore[assignment]
        self.ajobs = ajobs
        self.one_node = not isinstance(client, redis.RedisCluster)
        self.jobs_inside = self.one_node and (jobs is None or jobs is client)
        self.durable = durable  # WAIT for replicas before a move is answered
        self.bot_delay = bot_delay  # for the moves of the presses queued (_apply_queued)
        # The asyncio client of `serve`'s event loop, for the `a…` methods (without it
        # they use the synchronous one).
        self.aredis = aclient
        self.retention = retention
        self.dedupe_ttl = dedupe_ttl
        self.live_ttl = live_ttl  # an open room's keys outlive its last change by this
        self.people_ttl = people_ttl
        self.idle = idle  # (lobby, game): seconds an open room waits for a person
        self.clock = clock
        self.text_mark_ttl = text_mark_ttl  # WhatsApp redelivers a message for up to 7 days
        # What one request's view (`session`) holds: the values read with its claim, by
        # key, and the update whose dedupe mark its change committed with. The store
        # itself (workers, timers, the sweeper) keeps neither: `ahead` is None.
        self.ahead: dict[str, Any] | None = None
        self.committed: UpdateId | None = None
        # The newcomer's hints each person met, and the phase each was met in, as this
        # process learned them (service.infra.hints), with when that knowledge ends.
        self.hints_met: dict[int, tuple[float, dict[str, str]]] = {}

    def session(self) -> Self:
        """The store as one request sees it: the same clients and settings, with its
        own values read ahead and committed mark, so its claim, update and finish share
        them (the desk makes one per update)."""
        view = object.__new__(type(self))  # copy.copy, without its reduce protocol
        view.__dict__.update(self.__dict__)
        view.ahead, view.committed = {}, None
        return view

    def _keep(self, values: dict[str, Any]) -> None:
        """The values read with this request's claim, by key (replacing any before)."""
        if self.ahead is not None:
            self.ahead = values

    def _take(self, key: str) -> Any:
        """The value read ahead for `key`, once; MISSING if there is none. Each key is
        taken once, so nothing read later is older than a write."""
        return MISSING if self.ahead is None else self.ahead.pop(key, MISSING)

    def _forget(self, key: str) -> None:
        """`key` was written: what was read ahead of it is out of date."""
        if self.ahead is not None:
            self.ahead.pop(key, None)

    def _committed_with(self, update_id: UpdateId | None) -> None:
        """A change committed with the update's mark: this request's finish need not
        write it again."""
        if self.ahead is not None:
            self.committed = update_id

    @classmethod
    def of(
        cls,
        client: redis.Redis | redis.RedisCluster,
        settings: Settings,
        aclient: redis.asyncio.Redis | redis.asyncio.RedisCluster | None = None,
        jobs: redis.Redis | None = None,
        ajobs: redis.asyncio.Redis | None = None,
    ) -> Self:
        """The store with the lifetimes the settings give."""
        idle = max(settings.game_idle, settings.lobby_idle)
        replicas = settings.durable_replicas
        durable = trips.Durable(replicas, settings.durable_wait_ms) if replicas else None
        return cls(
            client,
            settings.retention,
            settings.dedupe_ttl,
            live_ttl=idle + settings.retention,
            people_ttl=settings.people_retention,
            idle=(settings.lobby_idle, settings.game_idle),
            aclient=aclient,
            bot_delay=settings.bot_delay,
            jobs=jobs,
            ajobs=ajobs,
            durable=durable,
        )

    def _run(self, steps: trips.Steps[T]) -> T:
        """Run `steps` on the synchronous clients."""
        return trips.run(self.redis, steps, None if self.jobs_inside else self.jobs)

    async def _arun(self, steps: trips.Steps[T]) -> T:
        """Run `steps` on the asyncio clients (the synchronous ones if there are none)."""
        if self.aredis is None:
            return self._run(steps)
        return await trips.arun(self.aredis, steps, None if self.jobs_inside else self.ajobs)

    def ttl_of(self, room: Room) -> int:
        """Seconds a room's keys outlive their last write: `retention` once it ended."""
        return self.live_ttl if room.status in LIVE else self.retention

    def mark_ttl(self, update_id: UpdateId) -> int:
        """How long an update's dedupe mark is kept."""
        return self.text_mark_ttl if isinstance(update_id, str) else self.dedupe_ttl
