"""bench/clients.py compares like with like: each pair of calls sends the same request
and gets the same answer."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import redis

from bench import clients
from bench.procs import procs, start_sink
from service.infra.json_client import Answer
from service.infra.redis_server import RedisServer


def test_each_pair_does_the_same_work() -> None:
    with tempfile.TemporaryDirectory() as folder, procs(Path(folder)) as running:
        plain, ours = clients.bot_api_calls(start_sink(running)).values()
        raw, answer = plain(), ours()
        assert isinstance(raw, bytes) and isinstance(answer, Answer) and answer.status == 200
        theirs = json.loads(raw)
        mine = json.loads(answer.body)
        assert mine["result"].pop("message_id") == theirs["result"].pop("message_id") + 1
        assert mine == theirs
        with RedisServer(Path(folder) / "redis", persist=False) as server:
            plain, ours = clients.redis_calls(server.url).values()
            first = plain()
            redis.Redis.from_url(server.url).delete("bench:marks")
            assert ours() == first == [2] + [1] * 9 + [None]  # new marks, no room
    figures = clients.measure({"a": lambda: None}, count=10, rounds=2)
    assert set(figures) == {"a"} and figures["a"] >= 0
