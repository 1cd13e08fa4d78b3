"""The embedded Redis: the default when no BURRO_REDIS_URL is set."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import redis

from service.infra.redis_server import RedisServer, embedded_url


def test_embedded_redis_starts_once_and_is_shared(tmp_path: Path) -> None:
    url = embedded_url(tmp_path)
    try:
        redis.Redis.from_url(url).set("game", "kept")
        assert embedded_url(tmp_path) == url  # a second process finds the same server
        assert redis.Redis.from_url(url).get("game") == b"kept"
        assert (tmp_path / "redis" / "appendonly.aof").exists() or any(
            (tmp_path / "redis").glob("appendonlydir/*")
        )
    finally:
        pid = int((tmp_path / "redis" / "redis.pid").read_text())
        os.kill(pid, signal.SIGTERM)


def test_throwaway_server_keeps_data_across_a_restart(tmp_path: Path) -> None:
    server = RedisServer(tmp_path).start()
    try:
        redis.Redis(port=server.port).set("move", "17")
    finally:
        server.stop()
    server.start()
    try:
        assert redis.Redis(port=server.port).get("move") == b"17"
    finally:
        server.stop()
