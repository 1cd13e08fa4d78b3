"""Round trips to Redis written once, run by the synchronous client or the asyncio one.

The store's reads and writes of an update (its claim, the compare-and-set loop of a
change, its dedupe mark) are generators that yield each round trip they need, a batch
of commands or a Lua script, and are sent its answer back. `run` drives one with the
synchronous client (the workers, the CLI), `arun` with the asyncio client (`serve`: its
event loop must never wait on Redis while other updates could be handled).
"""

from __future__ import annotations

import hashlib
from collections.abc import Generator
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

import redis
import redis.asyncio
from redis.exceptions import NoScriptError
from redis.typing import EncodableT

T = TypeVar("T")


@dataclass(frozen=True)
class Commands:
    """Commands sent in one write (one pipeline); the answer is the list of replies.
    `transaction`: wrapped in MULTI/EXEC."""

    commands: list[tuple[EncodableT, ...]]
    transaction: bool = False


@dataclass(frozen=True)
class Script:
    """One Lua script call (EVALSHA, loaded on first use); the answer is its reply."""

    source: str
    keys: list[str]
    args: list[EncodableT] = field(default_factory=list)


Trip = Commands | Script
Steps = Generator[Trip, Any, T]


def run(client: redis.Redis, steps: Steps[T]) -> T:
    """Drive `steps` with the synchronous client; what they return."""
    answer: Any = None
    while True:
        try:
            trip = steps.send(answer)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        answer = _send(client, trip)


async def arun(client: redis.asyncio.Redis, steps: Steps[T]) -> T:
    """Drive `steps` with the asyncio client; what they return."""
    answer: Any = None
    while True:
        try:
            trip = steps.send(answer)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        answer = await _asend(client, trip)


@cache
def sha_of(source: str) -> str:
    """A script's SHA1, as EVALSHA names it (redis-py's Script objects compute it again
    each time one is made)."""
    return hashlib.sha1(source.encode()).hexdigest()


def _send(client: redis.Redis, trip: Trip) -> Any:
    if isinstance(trip, Script):
        sha, given = sha_of(trip.source), [*trip.keys, *trip.args]
        try:
            return client.evalsha(sha, len(trip.keys), *given)
        except NoScriptError:  # Redis restarted, or a new one: load it, once
            client.script_load(trip.source)
            return client.evalsha(sha, len(trip.keys), *given)
    with client.pipeline(transaction=trip.transaction) as pipe:
        for command in trip.commands:
            pipe.execute_command(*command)  # type: ignore[no-untyped-call]
        return pipe.execute()


async def _asend(client: redis.asyncio.Redis, trip: Trip) -> Any:
    if isinstance(trip, Script):
        sha, given = sha_of(trip.source), [*trip.keys, *trip.args]
        try:
            return await client.evalsha(sha, len(trip.keys), *given)
        except NoScriptError:
            await client.script_load(trip.source)
            return await client.evalsha(sha, len(trip.keys), *given)
    async with client.pipeline(transaction=trip.transaction) as pipe:
        for command in trip.commands:
            pipe.execute_command(*command)
        return await pipe.execute()
