"""The two shapes of rate limit both platforms use: a token bucket (bursts, then a
steady rate) and a sliding window (at most so many in any so many seconds). Each
asks how long until one more may go; the caller refuses then, or counts it."""

from __future__ import annotations

import math
from collections import deque


class TokenBucket:
    """Tokens up to `burst`, refilled at `per_second`; the rate is given on each look,
    so a limit changed while running applies at once."""

    def __init__(self, burst: float, now: float) -> None:
        self.tokens = float(burst)
        self.at = now

    def wait(self, now: float, burst: float, per_second: float) -> float:
        """Seconds until a token is there (0: now); the refill so far is kept."""
        elapsed = max(0.0, now - self.at)
        self.tokens = min(float(burst), self.tokens + elapsed * per_second)
        self.at = now
        return 0.0 if self.tokens >= 1.0 else (1.0 - self.tokens) / per_second

    def take(self) -> None:
        self.tokens -= 1.0


class SlidingWindow:
    """The times of what went, for a limit of so many in any so many seconds."""

    def __init__(self) -> None:
        self.sent: deque[float] = deque()

    def wait(self, now: float, count: int, seconds: float) -> float:
        """Seconds until one more may go (0: now)."""
        while self.sent and self.sent[0] <= now - seconds:
            self.sent.popleft()
        if len(self.sent) < count:
            return 0.0
        return self.sent[0] + seconds - now if self.sent else math.inf

    def take(self, now: float) -> None:
        self.sent.append(now)
