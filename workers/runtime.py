"""What a worker process's jobs share: settings, Redis, the store and a Bot API client,
made once per process from the environment (jobs get only primitive arguments)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import redis

from service.infra.redis_server import connect
from service.infra.store import Store, text
from service.platforms.telegram import limits
from service.platforms.telegram.botapi import BotApi
from service.services import Services
from service.settings import Settings


@dataclass
class Runtime:
    svc: Services
    redis: redis.Redis
    api: BotApi


@lru_cache(maxsize=1)
def runtime() -> Runtime:
    settings = Settings()
    assert settings.redis_url, "the worker needs BURRO_REDIS_URL"
    assert settings.telegram_token, "the worker needs BURRO_TELEGRAM_TOKEN"
    client = connect(settings.redis_url)
    limits.ENABLED = settings.rate_limits
    svc = Services(settings, Store.of(client, settings))
    name = client.get("bot:username")
    if name:
        svc.bot_username = text(name)
    api = BotApi(settings.telegram_token.get_secret_value(), settings.telegram_api_url)
    return Runtime(svc, client, api)
