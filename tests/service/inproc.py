"""`burro serve` in this process (the real Starlette app and python-telegram-bot on a
thread), real Redis and the emulator as the Bot API; updates are posted to the webhook
as Telegram would, with update ids the test chooses (so a redelivery is easy to make).
Jobs are queued, not run: a test runs the ones it wants (`run_jobs`) with a clock it
chooses."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from pydantic import SecretStr
from rq import Queue

from cli.stack import SECRET, TOKEN
from emulator.server import RunningEmulator, ServerThread, running_emulator
from service.infra.queue import QUEUE
from service.infra.redis_server import RedisServer, connect
from service.infra.settings import Settings
from service.infra.store import Store
from service.platforms.telegram.botapi import BotApi
from service.table.room import Room
from service.table.services import Services
from service.web import create_app
from tests.conftest import fail_if_ignored
from workers import jobs
from workers.runtime import Runtime

GROUP = -1001000000001  # the emulator's "Family"
BOT: dict[str, Any] = {"id": int(TOKEN.split(":")[0]), "is_bot": True, "first_name": "Burro"}
_ids = itertools.count(3_000_000_000)


def person(
    user_id: int, name: str, lang: str = "en", username: str | None = None
) -> dict[str, Any]:
    found = {"id": user_id, "is_bot": False, "first_name": name, "language_code": lang}
    return found | ({"username": username} if username else {})


ANA = person(100001, "Ana")
BEN = person(100002, "Ben")
CARLA = person(100003, "Carla", username="carla_q")


def command(
    text: str, user: dict[str, Any], chat: int | None = None, update_id: int | None = None
) -> dict[str, Any]:
    chat_id = chat if chat is not None else user["id"]
    kind = "private" if chat_id > 0 else "supergroup"
    return {
        "update_id": update_id or next(_ids),
        "message": {
            "message_id": next(_ids) % 1_000_000,
            "date": 1_700_000_000,
            "chat": {"id": chat_id, "type": kind, "title": "Family"},
            "from": user,
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}],
        },
    }


def press(
    user: dict[str, Any], data: str, chat: int | None = None, update_id: int | None = None
) -> dict[str, Any]:
    chat_id = chat if chat is not None else user["id"]
    return {
        "update_id": update_id or next(_ids),
        "callback_query": {
            "id": str(next(_ids)),
            "from": user,
            "chat_instance": "1",
            "data": data,
            "message": {
                "message_id": 1,
                "date": 1_700_000_000,
                "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup"},
                "from": BOT,
                "text": "…",
            },
        },
    }


@dataclass
class Hook:
    url: str
    emu: RunningEmulator
    redis: redis.Redis
    settings: Settings
    http: httpx.Client

    def send(self, update: dict[str, Any]) -> httpx.Response:
        headers = {"content-type": "application/json", "X-Telegram-Bot-Api-Secret-Token": SECRET}
        body = json.dumps(update).encode()
        return self.http.post(f"{self.url}/telegram/webhook", content=body, headers=headers)

    def store(self, clock: Callable[[], float] | None = None) -> Store:
        store = Store.of(self.redis, self.settings)
        if clock is not None:
            store.clock = clock
        return store

    def room(self, chat: int) -> Room:
        room = self.store().room_in_chat(chat, None)
        assert room is not None
        return room

    def runtime(self, clock: Callable[[], float] | None = None) -> Runtime:
        """What a worker's jobs get, with the clock of the test's choosing."""
        svc = Services(self.settings, self.store(clock))
        if clock is not None:
            svc.clock = clock
        token = self.settings.telegram_token
        assert token is not None
        api = BotApi(token.get_secret_value(), self.settings.telegram_api_url)
        return Runtime(svc, self.redis, api)

    def fresh_budget(self) -> None:
        """The whole flood budget again (the limits' keys are dropped)."""
        keys = list(self.redis.scan_iter("limit:*"))
        if keys:
            self.redis.delete(*keys)

    def run_jobs(self, rt: Runtime, kinds: tuple[str, ...]) -> int:
        """Run the queued and scheduled jobs of these kinds now, as a worker would, with
        `rt`; how many ran."""
        queue = Queue(QUEUE, connection=self.redis)
        ids = [*queue.get_job_ids(), *queue.scheduled_job_registry.get_job_ids()]
        ran = 0
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(jobs, "runtime", lambda: rt)
            for job in queue.job_class.fetch_many(ids, connection=self.redis):
                if job is not None and str(job.func_name).rsplit(".", 1)[-1] in kinds:
                    job.delete()  # first: a job may schedule its own retry under its id
                    job.func(*job.args)
                    ran += 1
        return ran


@contextmanager
def running_hook(folder: Path, **options: Any) -> Iterator[Hook]:
    """The webhook app on a thread, its Redis and an emulator; `options` are settings."""
    with RedisServer(folder / "redis", persist=False) as server, running_emulator() as emu:
        choices: dict[str, Any] = {"bot_delay": 3600, "rate_limits": True}
        settings = Settings(
            telegram_token=SecretStr(TOKEN),
            webhook_secret=SecretStr(SECRET),
            telegram_api_url=emu.api_url,
            redis_url=server.url,
            **(choices | options),
        )
        client = connect(server.url)
        app = create_app(settings, client)
        with ServerThread(app) as thread, httpx.Client(timeout=30) as http:
            yield Hook(thread.url, emu, client, settings, http)
        fail_if_ignored(emu.emulator)  # what came after the last test that used it
