"""What Redis raises when it cannot answer now: redis-py's errors, and its cluster
client's own (no node reachable, a slot without a primary during a fail-over), which
are not RedisErrors. Each is met the same way: the work is tried again later (an
update answered 503 and delivered again, a job retried)."""

from __future__ import annotations

import redis
from redis.exceptions import RedisClusterException

UNAVAILABLE: tuple[type[Exception], ...] = (redis.RedisError, RedisClusterException)
