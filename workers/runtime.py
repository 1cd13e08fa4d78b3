"""What a worker process's jobs share: settings, Redis and the store, made once per
process from the environment (jobs get only primitive arguments). The chat platforms
are made from it by service.platforms.registry, each with its API client.

The bot's @name (in the links the screens carry) is not kept for the process: `serve`
writes it at its start (getMe), so a renamed bot's links are right without a worker
restart. The outbox reads it with each room it brings up to date (`rename_bot`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import redis
from redis import Redis

from service.infra.redis_server import connect_jobs, connect_state
from service.infra.store import Store, text
from service.platforms import registry
from service.services import Services
from service.settings import Settings


@dataclass
class Runtime:
    svc: Services
    redis: redis.Redis
    # API clients by platform name, in place of those the platforms make (tests)
    clients: dict[str, object] = field(default_factory=dict)

    @property
    def jobs(self) -> Redis:
        """RQ's Redis (the state's own, unless that is a cluster)."""
        return self.svc.store.jobs

    def rename_bot(self, name: bytes | str | None) -> None:
        """The bot's @name as read from Redis (service.infra.keys.BOT_USERNAME); None: as it was."""
        if name:
            self.svc.bot_username = text(name)


@lru_cache(maxsize=1)
def runtime() -> Runtime:
    settings = Settings()
    assert settings.redis_url, "the worker needs BURRO_REDIS_URL"
    client, jobs = connect_state(settings), connect_jobs(settings)
    registry.configure(settings)
    return Runtime(Services(settings, Store.of(client, settings, jobs=jobs)), client)
