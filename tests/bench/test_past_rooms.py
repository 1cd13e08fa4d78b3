"""bench/past_rooms.py measures a hand's screen against the games its reader played
before: the commands a screen sends do not grow with them."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from pydantic import SecretStr

from bench import past_rooms
from bench.keys import NullApi
from service.infra.redis_server import RedisServer, connect
from service.infra.store import Store
from service.platforms.telegram import limits
from service.services import Services
from service.settings import Settings
from workers.runtime import Runtime


def test_a_screen_costs_the_same_after_a_few_games_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "ENABLED", False)  # as the bench runs
    with tempfile.TemporaryDirectory() as folder, RedisServer(Path(folder), persist=False) as srv:
        client = connect(srv.url)
        settings = Settings(telegram_token=SecretStr("t"))
        rt = Runtime(
            Services(settings, Store.of(client, settings)), client, {"telegram": NullApi()}
        )
        fresh = past_rooms.measure(rt, client, past=0, screens=3)
        later = past_rooms.measure(rt, client, past=4, screens=3)
    assert fresh["commands"] > 0 and fresh["cpu_ms"] > 0
    assert later["commands"] == fresh["commands"]
