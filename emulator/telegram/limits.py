"""Flood limits, as Telegram applies them to a bot's outgoing messages.

Telegram asks bots to stay near one message a second in any chat (short bursts pass),
at most 20 messages a minute in a group, and about 30 a second in all. Past that it
answers 429 with `retry_after`. Here the per-chat limit is a token bucket (`burst`
tokens refilled at `per_second`), the group and bot limits are sliding windows (at most
`count` in any `seconds`). Sends and edits count; answers, chat actions and deletions do
not. Switch them off (`FloodLimits(enabled=False)`) for fast tests.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from emulator.common.limits import SlidingWindow, TokenBucket
from emulator.telegram.errors import too_many_requests


@dataclass(frozen=True)
class Rate:
    """A token bucket: bursts of `burst`, then `per_second`."""

    per_second: float
    burst: int


@dataclass(frozen=True)
class Window:
    """At most `count` in any `seconds`."""

    count: int
    seconds: float


@dataclass(frozen=True)
class FloodLimits:
    enabled: bool = True
    per_chat: Rate = field(default_factory=lambda: Rate(per_second=1.0, burst=3))
    per_group: Window = field(default_factory=lambda: Window(count=20, seconds=60.0))
    per_bot: Window = field(default_factory=lambda: Window(count=30, seconds=1.0))


class _Bucket:
    """A chat's token bucket at its rate."""

    def __init__(self, rate: Rate, now: float) -> None:
        self.rate = rate
        self.bucket = TokenBucket(rate.burst, now)

    def wait(self, now: float) -> float:
        return self.bucket.wait(now, self.rate.burst, self.rate.per_second)

    def take(self, now: float) -> None:
        self.bucket.take()


class _Window:
    """A group's or a bot's sliding window at its limit."""

    def __init__(self, window: Window, now: float) -> None:
        self.window = window
        self.sent = SlidingWindow()

    def wait(self, now: float) -> float:
        return self.sent.wait(now, self.window.count, self.window.seconds)

    def take(self, now: float) -> None:
        self.sent.take(now)


class FloodControl:
    def __init__(self, limits: FloodLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._limits: dict[tuple[str, int, int], _Bucket | _Window] = {}

    def _limit(self, kind: str, bot_id: int, key: int, now: float) -> _Bucket | _Window:
        found = self._limits.get((kind, bot_id, key))
        if found is None:
            if kind == "chat":
                found = _Bucket(self.limits.per_chat, now)
            else:
                found = _Window(
                    self.limits.per_group if kind == "group" else self.limits.per_bot, now
                )
            self._limits[(kind, bot_id, key)] = found
        return found

    def take(self, bot_id: int, chat_id: int, is_group: bool) -> None:
        """Count one outgoing message, or raise 429 if a limit is reached."""
        if not self.limits.enabled:
            return
        now = self._clock()
        limits = [self._limit("bot", bot_id, 0, now), self._limit("chat", bot_id, chat_id, now)]
        if is_group:
            limits.append(self._limit("group", bot_id, chat_id, now))
        wait = max(limit.wait(now) for limit in limits)
        if wait > 0:
            raise too_many_requests(max(1, math.ceil(wait)))
        for limit in limits:
            limit.take(now)
