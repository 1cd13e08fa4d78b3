"""A dead worker's scheduler lock is released once nobody has refreshed it for a while,
and only then (workers.worker)."""

from __future__ import annotations

import fakeredis

from workers.worker import LOCK_TTL, STALE_AFTER, release_stale_lock

KEY = "rq:scheduler-lock:burro"


def test_a_lock_refreshed_lately_stays() -> None:
    client = fakeredis.FakeRedis()
    client.set(KEY, "alive", ex=LOCK_TTL)
    assert not release_stale_lock(client, "burro")
    client.set(KEY, "alive", ex=LOCK_TTL - STALE_AFTER + 2)  # refreshed 3 s ago
    assert not release_stale_lock(client, "burro")
    assert client.get(KEY) == b"alive"


def test_a_lock_nobody_refreshed_for_a_while_goes() -> None:
    client = fakeredis.FakeRedis()
    client.set(KEY, "dead", ex=LOCK_TTL - STALE_AFTER - 1)
    assert release_stale_lock(client, "burro")
    assert client.get(KEY) is None
    assert not release_stale_lock(client, "burro")  # nothing left to release


def test_no_lock_nothing_to_do() -> None:
    assert not release_stale_lock(fakeredis.FakeRedis(), "burro")
