"""Counting what a process asks of Redis: round trips and bytes sent, per client label.

A round trip is one `send_packed_command` of redis-py: one command, or one whole
pipeline (MULTI … EXEC goes out in one write and its answers come back together).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import redis
import redis.asyncio

from service.infra.redis_server import connect

COUNTS: dict[str, Counter[str]] = {}


class CountingConnection(redis.Connection):
    label = "unlabelled"

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        count(self.label, command)
        super().send_packed_command(command, check_health)  # type: ignore[no-untyped-call]


class CountingAsyncConnection(redis.asyncio.Connection):
    label = "unlabelled"

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        count(self.label, command)
        await super().send_packed_command(command, check_health)


def count(label: str, command: Any) -> None:
    stats = COUNTS.setdefault(label, Counter())
    stats["round_trips"] += 1
    if isinstance(command, bytes | str):
        stats["bytes_sent"] += len(command)
    else:
        stats["bytes_sent"] += sum(len(part) for part in command)


def counting_client(url: str, label: str) -> redis.Redis:
    """A client like `service.infra.redis_server.connect` makes, counted under `label`."""
    connection_class = type(f"Counting_{label}", (CountingConnection,), {"label": label})
    return connect(url, connection_class=connection_class)


def counting_aclient(url: str, label: str) -> redis.asyncio.Redis:
    """An asyncio client like `service.infra.redis_server.aconnect` makes, counted under
    `label` (with the synchronous client's counts of that label)."""
    name = f"CountingAsync_{label}"
    connection_class = type(name, (CountingAsyncConnection,), {"label": label})
    return redis.asyncio.Redis.from_url(
        url, health_check_interval=30, connection_class=connection_class
    )


def snapshot() -> dict[str, Counter[str]]:
    return {label: Counter(stats) for label, stats in COUNTS.items()}


def since(before: dict[str, Counter[str]], label: str) -> Counter[str]:
    now = COUNTS.get(label, Counter())
    return now - before.get(label, Counter())
