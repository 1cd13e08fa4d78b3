"""The whole product on one machine: Redis (embedded), the local Telegram emulator,
`burro serve` and `burro worker`, each its own process, wired together.

`burro local` runs it until Ctrl-C (Redis keeps its files in the data folder, so games
survive a restart); tests run it with a throwaway folder.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx
import redis
from rq import Worker

from service.infra import tls
from service.infra.redis_server import RedisServer, connect, free_port

TOKEN = "100000001:local-burro-token"
SECRET = "local-webhook-secret"
# The local WhatsApp's business (emulator/whatsapp/config.py) and our side of its webhook.
WHATSAPP = {
    "BURRO_WHATSAPP_TOKEN": "local-whatsapp-token",
    "BURRO_WHATSAPP_PHONE_ID": "100000000000001",
    "BURRO_WHATSAPP_APP_SECRET": "local-app-secret",
    "BURRO_WHATSAPP_VERIFY_TOKEN": "local-verify-token",
    "BURRO_WHATSAPP_NUMBER": "15550009999",
    "BURRO_WHATSAPP_WABA_ID": "200000000000001",
}
# BotFather's settings of the local bot (the emulator starts with Telegram's defaults):
# "🃏 My cards" needs inline mode (/setinline), and a card chosen from the list is played
# at once only with inline feedback (/setinlinefeedback 100%).
LOCAL_BOT: dict[str, bool | int | str] = {"inline_mode": True, "inline_feedback": 100}
# The table's view (`view=True`, as `burro local` runs): serve's own address is the public
# one, the bot's Mini App `table` opens it (the local Telegram takes a page on this
# machine over plain HTTP, as Telegram's test server does), and WhatsApp's links to it
# are signed with this local secret.
VIEW_APP = "table"
LOCAL_VIEW_SECRET = "local-view-link-secret-0123456789abcdef"


BOTS = "bots"  # the name of a bots' worker process, before its number
METRICS = "BURRO_WORKER_METRICS_PORT"


def is_worker(name: str) -> bool:
    """Whether the stack's process so named is a worker (of either queue)."""
    return name.startswith(("worker", BOTS))


class Stack:
    def __init__(
        self,
        data_dir: Path,
        emulator_port: int = 8081,
        flood_limits: bool = True,
        bot_delay: float = 1.5,
        workers: int = 1,
        bot_workers: int = 1,
        persist: bool = True,
        emulator_url: str | None = None,
        env: dict[str, str] | None = None,
        bot_settings: dict[str, bool | int | str] | None = None,
        view: bool = False,
        cluster_url: str | None = None,
    ) -> None:
        self.extra_env = env or {}
        # The game state on a Redis Cluster (a node's URL), the own Redis then RQ's alone
        self.cluster_url = cluster_url
        self.view = view  # the table's view opened from the chats (VIEW_APP)
        self.bot_settings = LOCAL_BOT if bot_settings is None else bot_settings
        self.data_dir = Path(data_dir)
        self.redis = RedisServer(self.data_dir / "redis", persist=persist)
        self.persist = persist
        self.emulator_port = emulator_port
        self.external_emulator = emulator_url
        self.flood_limits = flood_limits
        self.bot_delay = bot_delay
        self.worker_count = workers
        self.bot_worker_count = bot_workers  # `burro worker --bots`: the thinking bots'
        self.serve_port = free_port()
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    @property
    def emulator_url(self) -> str:
        return self.external_emulator or f"http://127.0.0.1:{self.emulator_port}"

    @property
    def serve_url(self) -> str:
        return f"http://127.0.0.1:{self.serve_port}"

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "BURRO_TELEGRAM_TOKEN": TOKEN,
            "BURRO_WEBHOOK_SECRET": SECRET,
            "BURRO_TELEGRAM_API_URL": self.emulator_url,
            **self.redis_env(),
            "BURRO_BOT_DELAY": str(self.bot_delay),
            "BURRO_RATE_LIMITS": "1" if self.flood_limits else "0",
            **WHATSAPP,
            "BURRO_WHATSAPP_API_URL": self.emulator_url,
            "PYTHONUNBUFFERED": "1",
            **(self.view_env() if self.view else {}),
            **self.extra_env,
        }

    def redis_env(self) -> dict[str, str]:
        if self.cluster_url is None:
            return {"BURRO_REDIS_URL": self.redis.url}
        return {
            "BURRO_REDIS_URL": self.cluster_url,
            "BURRO_REDIS_CLUSTER": "1",
            "BURRO_JOBS_REDIS_URL": self.redis.url,
        }

    def state(self) -> redis.Redis:
        """A client of the game state's Redis (a cluster's, typed as one Redis's)."""
        if self.cluster_url is None:
            return connect(self.redis.url)
        return redis.RedisCluster.from_url(self.cluster_url)  # type: ignore[return-value]

    def view_env(self) -> dict[str, str]:
        """The settings that put the view's buttons and links in the chats."""
        return {
            "BURRO_PUBLIC_URL": self.serve_url,
            "BURRO_TELEGRAM_MINI_APP": VIEW_APP,
            "BURRO_VIEW_LINK_SECRET": LOCAL_VIEW_SECRET,
        }

    def start(self) -> Stack:
        self.redis.start()
        if self.external_emulator is None:
            flags = [] if self.flood_limits else ["--no-flood-limits", "--no-whatsapp-limits"]
            if self.persist:  # the web chat keeps its history too
                flags += ["--state", str(self.data_dir / "emulator.json")]
            self.spawn("emulator", "emulator", "--port", str(self.emulator_port), *flags)
            wait_http(f"{self.emulator_url}/bot{TOKEN}/getMe")
        self.configure_bot()
        self.start_serve()
        for index in range(self.worker_count):
            self.start_worker(index)
        for index in range(self.bot_worker_count):
            self.start_bot_worker(index)
        self.set_webhook()
        self.wait_workers()
        return self

    def configure_bot(self) -> None:
        """Set the bot up as BotFather would (its first call creates it in the emulator)."""
        httpx.post(
            f"{self.emulator_url}/bot{TOKEN}/getMe", timeout=10, verify=tls.context()
        ).raise_for_status()
        response = httpx.post(
            f"{self.emulator_url}/_emulator/bot_settings",
            json={"bot": TOKEN.partition(":")[0], **self.bot_settings},
            timeout=10,
            verify=tls.context(),
        )
        response.raise_for_status()
        if self.view:  # BotFather's /newapp: the view as the bot's Mini App
            response = httpx.post(
                f"{self.emulator_url}/_emulator/mini_apps",
                json={"bot": TOKEN.partition(":")[0], "name": VIEW_APP, "url": self.view_url},
                timeout=10,
                verify=tls.context(),
            )
            response.raise_for_status()

    @property
    def view_url(self) -> str:
        """The table's view, where serve draws it (service.view)."""
        return f"{self.serve_url}/view"

    def spawn(self, name: str, *args: str, env: dict[str, str] | None = None) -> None:
        log = (self.data_dir / f"{name}.log").open("ab")
        self.processes[name] = subprocess.Popen(
            [sys.executable, "-m", "cli.main", *args],
            env={**self.env(), **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start_serve(self) -> None:
        self.spawn("serve", "serve", "--port", str(self.serve_port))
        wait_http(f"{self.serve_url}/healthz")

    def start_worker(self, index: int = 0) -> None:
        self.spawn(f"worker{index}", "worker")

    def start_bot_worker(self, index: int = 0) -> None:
        """A worker of the thinking bots' own queue (`burro worker --bots`)."""
        env = self.env()
        # its own metrics port, if the workers serve theirs (the worker's is taken)
        port = {"BURRO_WORKER_METRICS_PORT": str(free_port())}
        self.spawn(f"{BOTS}{index}", "worker", "--bots", env=port if env.get(METRICS) else {})

    def wait_workers(self, timeout: float = 60.0) -> None:
        """Wait until every worker started here has registered with RQ: until then the
        stack answers updates but sends nothing (a loaded machine takes seconds to start
        one)."""
        workers = {name: p for name, p in self.processes.items() if is_worker(name)}
        connection = connect(self.redis.url)
        deadline = time.monotonic() + timeout
        while not {p.pid for p in workers.values()} <= {
            worker.pid for worker in Worker.all(connection=connection)
        }:
            for name, process in workers.items():
                if process.poll() is not None:
                    log = self.data_dir / f"{name}.log"
                    raise RuntimeError(f"{name} exited with {process.returncode}: see {log}")
            if time.monotonic() >= deadline:
                raise RuntimeError(f"the workers did not start within {timeout}s")
            time.sleep(0.05)  # still importing: poll again

    def set_webhook(self) -> None:
        set_webhook(self.emulator_url, self.serve_url)
        set_whatsapp_webhook(self.emulator_url, self.serve_url)
        submit_templates(self.emulator_url)

    def kill(self, name: str) -> None:
        """SIGKILL one process and its children (chaos and restart tests), as when its
        container dies: a worker's scheduler process goes with it."""
        process = self.processes.pop(name)
        with contextlib.suppress(ProcessLookupError):  # already gone
            os.killpg(process.pid, signal.SIGKILL)  # spawned in its own session: pgid = pid
        process.wait(timeout=10)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        self.processes.clear()
        self.redis.stop()

    def __enter__(self) -> Stack:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def wait_http(url: str, timeout: float = 30.0) -> None:
    """Poll `url` until it answers 200 (a process is starting)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1.0, verify=tls.context()).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)  # still starting: poll again
    raise RuntimeError(f"{url} did not answer within {timeout}s")


def set_webhook(emulator_url: str, serve_url: str) -> None:
    """The local Telegram delivers its users' updates to `serve_url`, as Telegram would
    after `burro set-webhook`."""
    response = httpx.post(
        f"{emulator_url}/bot{TOKEN}/setWebhook",
        json={
            "url": f"{serve_url}/telegram/webhook",
            "secret_token": SECRET,
            "allowed_updates": [
                "message",
                "callback_query",
                "inline_query",
                "chosen_inline_result",
                "my_chat_member",
                "widget_query",
            ],
        },
        timeout=10,
        verify=tls.context(),
    )
    response.raise_for_status()


def set_whatsapp_webhook(emulator_url: str, serve_url: str) -> None:
    """The local WhatsApp verifies `serve_url`'s webhook (Meta's GET handshake) and
    delivers its users' messages there, as Meta does once the app's webhook is set."""
    response = httpx.post(
        f"{emulator_url}/_emulator/whatsapp/webhook",
        json={
            "url": f"{serve_url}/whatsapp/webhook",
            "verify_token": WHATSAPP["BURRO_WHATSAPP_VERIFY_TOKEN"],
            "fields": ["messages"],
        },
        timeout=10,
        verify=tls.context(),
    )
    response.raise_for_status()


def submit_templates(emulator_url: str) -> None:
    """Burro's WhatsApp templates in the local WhatsApp's account (approved there at once),
    as `burro whatsapp templates --submit` puts them in Meta's."""
    from cli import whatsapp
    from service.platforms.whatsapp import templates
    from service.platforms.whatsapp.graph import Graph

    with httpx.Client(timeout=10, trust_env=False, verify=tls.context()) as http:
        api = Graph(
            emulator_url,
            "v21.0",
            WHATSAPP["BURRO_WHATSAPP_PHONE_ID"],
            WHATSAPP["BURRO_WHATSAPP_TOKEN"],
            http,
        )
        whatsapp.submit(
            api, WHATSAPP["BURRO_WHATSAPP_WABA_ID"], templates.definitions(), say=lambda _line: None
        )
