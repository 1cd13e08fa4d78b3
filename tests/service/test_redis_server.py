"""The embedded Redis: the default when no BURRO_REDIS_URL is set."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
import redis
from redis._parsers.encoders import Encoder
from redis.connection import HiredisRespSerializer
from redis.typing import EncodableT

from service.infra.redis_server import CPacker, RedisServer, connect, embedded_url


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


# What the workers send: text, bytes, numbers, a memoryview of a room's bytes, a command
# of two words; redis-py's own packer is the reference.
_ARGUMENTS: list[tuple[EncodableT, ...]] = [
    ("SET", "room:1", '{"v": 1}', "EX", 86400),
    ("HSET", b"live:1", "top:-100123", 45, "ñandú", "🂡"),
    ("ZADD", "due", 1765120000.123456, "room:1|hand:2", 0.1 + 0.2, "x"),
    ("SET", "k", memoryview(b"deflated\x00bytes"), "KEEPTTL"),
    ("SET", "k", bytearray(b"ab")),
    ("SCRIPT LOAD", "return 1"),
]


@pytest.mark.parametrize("args", _ARGUMENTS, ids=lambda args: str(args[0]))
def test_commands_pack_as_redis_py_packs_them(args: tuple[EncodableT, ...]) -> None:
    encoder: Any = Encoder("utf-8", "strict", False)  # type: ignore[no-untyped-call]
    reference: Any = HiredisRespSerializer(encode=encoder.encode)  # type: ignore[no-untyped-call]
    assert b"".join(CPacker().pack(*args)) == b"".join(reference.pack(*args))


@pytest.mark.parametrize("value", [True, None, 1j])
def test_a_value_redis_cannot_hold_is_refused_before_sending(value: Any) -> None:
    with pytest.raises(redis.DataError):
        CPacker().pack("SET", "k", value)


def test_the_workers_client_sends_through_the_c_packer(tmp_path: Path) -> None:
    server = RedisServer(tmp_path).start()
    try:
        client = connect(f"redis://127.0.0.1:{server.port}")
        with client.pipeline(transaction=True) as pipe:
            pipe.hset("h", mapping={"a": 1, "b": "ñ"})
            pipe.expire("h", 60)
            pipe.hgetall("h")
            assert pipe.execute() == [2, True, {b"a": b"1", b"b": "ñ".encode()}]
        connection = client.connection_pool.get_connection()
        assert isinstance(connection._command_packer, CPacker)
    finally:
        server.stop()
