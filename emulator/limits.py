"""Flood limits, as Telegram applies them to a bot's outgoing messages.

Telegram asks bots to stay near one message a second in any chat (short bursts pass),
at most 20 messages a minute in a group, and about 30 a second in all. Past that it
answers 429 with `retry_after`. Each limit here is a token bucket: `burst` tokens,
refilled at `per_second`. Sends and edits count; answers, chat actions and deletions
do not. Switch them off (`FloodLimits(enabled=False)`) for fast tests.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from emulator.errors import too_many_requests


@dataclass(frozen=True)
class Rate:
    per_second: float
    burst: int


@dataclass(frozen=True)
class FloodLimits:
    enabled: bool = True
    per_chat: Rate = field(default_factory=lambda: Rate(per_second=1.0, burst=3))
    per_group: Rate = field(default_factory=lambda: Rate(per_second=20 / 60, burst=20))
    per_bot: Rate = field(default_factory=lambda: Rate(per_second=30.0, burst=30))


class _Bucket:
    def __init__(self, rate: Rate, now: float) -> None:
        self.rate = rate
        self.tokens = float(rate.burst)
        self.at = now

    def refill(self, now: float) -> None:
        self.tokens = min(
            float(self.rate.burst), self.tokens + (now - self.at) * self.rate.per_second
        )
        self.at = now

    def wait(self) -> float:
        """Seconds until one token is there (0 if one is there now)."""
        if self.tokens >= 1.0:
            return 0.0
        return (1.0 - self.tokens) / self.rate.per_second


class FloodControl:
    def __init__(self, limits: FloodLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._buckets: dict[tuple[str, int, int], _Bucket] = {}

    def _bucket(self, kind: str, bot_id: int, key: int, rate: Rate, now: float) -> _Bucket:
        bucket = self._buckets.get((kind, bot_id, key))
        if bucket is None:
            bucket = self._buckets[(kind, bot_id, key)] = _Bucket(rate, now)
        bucket.refill(now)
        return bucket

    def take(self, bot_id: int, chat_id: int, is_group: bool) -> None:
        """Count one outgoing message, or raise 429 if a limit is reached."""
        if not self.limits.enabled:
            return
        now = self._clock()
        buckets = [
            self._bucket("bot", bot_id, 0, self.limits.per_bot, now),
            self._bucket("chat", bot_id, chat_id, self.limits.per_chat, now),
        ]
        if is_group:
            buckets.append(self._bucket("group", bot_id, chat_id, self.limits.per_group, now))
        wait = max(bucket.wait() for bucket in buckets)
        if wait > 0:
            raise too_many_requests(max(1, math.ceil(wait)))
        for bucket in buckets:
            bucket.tokens -= 1.0
