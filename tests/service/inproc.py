"""`burro serve` in this process (the real Starlette app and python-telegram-bot on a
thread), real Redis and the emulator as the Bot API; updates are posted to the webhook
as Telegram would, with update ids the test chooses (so a redelivery is easy to make).
Jobs are queued, not run: a test runs the ones it wants (`run_jobs`) with a clock it
chooses.

`running_service` is the whole product in this process instead: the same, with the
emulator delivering its users' updates to the webhook (setWebhook, as `burro local`
does) and an RQ worker (the real `BurroWorker`) on a thread that runs queued jobs as
soon as they come and moves scheduled ones to the queue once they are due by the
test's `Clock` (which the webhook's handlers share), so a deadline comes when the test
moves the clock on, not after real seconds."""

from __future__ import annotations

import itertools
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import httpx
import pytest
import redis
from pydantic import SecretStr
from rq import Queue
from rq.job import Job
from rq.timeouts import TimerDeathPenalty

from cli import stack
from cli.stack import LOCAL_BOT, SECRET, TOKEN, WHATSAPP
from emulator import RunningEmulator, ServerThread
from emulator.app import Emulator
from emulator.app import create_app as emulator_app
from emulator.config import EmulatorConfig, fast_config
from emulator.telegram.control import callback_query_view, inline_query_view
from emulator.telegram.driver import ChatMessage, EmulatorError, Ref
from emulator.telegram.world import World
from service import web
from service.infra import timers, tls
from service.infra.queue import QUEUES
from service.infra.redis_server import RedisServer, connect
from service.infra.store import Store, text
from service.services import Services
from service.settings import Settings
from service.table.outcome import PHASE_TIMERS, JobKind
from service.table.room import Room
from service.web import create_app
from tests.conftest import WAIT_AT_MOST, fail_if_ignored
from workers import jobs
from workers.runtime import Runtime
from workers.worker import BurroWorker

T = TypeVar("T")


class LocalEmulator(RunningEmulator):
    """A driver for an emulator in this process. `wait_for` evaluates its condition again
    as soon as the emulator has logged a call or an update since the last look (woken by
    it, not polling; and at least every 0.1 s, for conditions on Redis or the clock
    alone). What a test reads most (a chat's messages, its last one, the answer to a
    query) is read on the emulator's own loop, where its world changes, instead of over
    HTTP: the same views, as JSON brings them, without the HTTP round trip (a long game's
    chat, every message with its edits, was read whole for its last message)."""

    def __init__(self, server: ServerThread, emulator: Emulator) -> None:
        super().__init__(server, emulator)
        # a wait ends when its condition holds: this only bounds the slow ones, on a
        # machine the whole suite keeps busy (the driver's own default is 5 s)
        self.timeout = WAIT_AT_MOST
        self._changed = threading.Condition()
        world = emulator.world
        record = world.record

        def recorded(kind: str, **fields: Any) -> dict[str, Any]:
            entry = record(kind, **fields)
            with self._changed:
                self._changed.notify_all()
            return entry

        world.record = recorded  # type: ignore[method-assign]

    def wait_for(
        self,
        check: Callable[[], T | None],
        *,
        timeout: float | None = None,
        what: str = "condition",
    ) -> T:
        world = self.emulator.world
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            stamp = world.changes
            value = check()
            if value:
                return value
            now = time.monotonic()
            if now >= deadline:
                raise TimeoutError(f"timed out waiting for {what}")
            with self._changed:
                if world.changes == stamp:  # nothing new since the look: wait for it
                    self._changed.wait(min(0.1, deadline - now))

    # ----- reading on the emulator's loop -----------------------------------------------

    def _on_loop(self, read: Callable[[World], Any]) -> Any:
        """`read(world)` run on the emulator's loop, its result as JSON would bring it;
        a lookup that fails is an EmulatorError, as the control API answers it."""
        loop = self.server._loop
        assert loop is not None, "the emulator is not running"
        done: Future[str] = Future()

        def run() -> None:
            try:
                done.set_result(json.dumps(read(self.emulator.world)))
            except (LookupError, ValueError, TypeError) as error:
                found = error.args[0] if isinstance(error, KeyError) and error.args else error
                done.set_exception(EmulatorError(str(found)))

        loop.call_soon_threadsafe(run)
        return json.loads(done.result(timeout=30))

    def _get(self, path: str, **params: Any) -> Any:
        kind, _, query_id = path.strip("/").partition("/")
        if path == "/messages" and params.get("user") is None:  # as one user sees it: HTTP
            chat, bot = params["chat"], params.get("bot")
            deleted = params.get("include_deleted") is not None
            return self._on_loop(lambda world: _views(world, chat, bot, deleted))
        if kind in ("callback_queries", "inline_queries") and query_id:
            return self._on_loop(lambda world: _query_state(world, kind, query_id))
        return super()._get(path, **params)

    def last_message(self, chat: Ref, *, bot: Ref | None = None) -> ChatMessage | None:
        view = self._on_loop(lambda world: _last_view(world, chat, bot))
        return ChatMessage.from_view(view) if view is not None else None

    def message(self, chat: Ref, message_id: int, *, bot: Ref | None = None) -> ChatMessage:
        view = self._on_loop(lambda world: _one_view(world, chat, bot, message_id))
        if view is None:
            raise KeyError(f"no message {message_id} in {chat!r}")
        return ChatMessage.from_view(view)


def _views(world: World, chat: Ref, bot: Ref | None, deleted: bool) -> list[dict[str, Any]]:
    """What the control API's /messages answers."""
    conv = world.find_conversation(chat, bot)
    return [world.message_view(m) for m in conv.messages.values() if deleted or not m.deleted]


def _last_view(world: World, chat: Ref, bot: Ref | None) -> dict[str, Any] | None:
    conv = world.find_conversation(chat, bot)
    shown = (m for m in reversed(conv.messages.values()) if not m.deleted)
    last = next(shown, None)
    return world.message_view(last) if last is not None else None


def _one_view(world: World, chat: Ref, bot: Ref | None, message_id: int) -> dict[str, Any] | None:
    found = world.find_conversation(chat, bot).messages.get(message_id)
    return world.message_view(found) if found is not None else None


def _query_state(world: World, kind: str, query_id: str) -> dict[str, Any]:
    """What the control API's /callback_queries/<id> or /inline_queries/<id> answers."""
    view = callback_query_view if kind == "callback_queries" else inline_query_view
    return view(world, query_id)


@contextmanager
def local_emulator(config: EmulatorConfig | None = None) -> Iterator[LocalEmulator]:
    """`emulator.server.running_emulator`, with the driver above."""
    emulator = Emulator(config or fast_config())
    app = emulator_app(emulator)
    with ServerThread(app, on_stop=emulator.close_streams) as server:
        driver = LocalEmulator(server, emulator)
        try:
            yield driver
        finally:
            driver.close()


GROUP = -1001000000001  # the emulator's "Family"
BOT: dict[str, Any] = {"id": int(TOKEN.split(":")[0]), "is_bot": True, "first_name": "Burro"}
_ids = itertools.count(3_000_000_000)
SWITCH_INTERVAL = float(os.environ.get("BURRO_TEST_SWITCH", "0.0005"))  # seconds


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


TIMER_LOOK = 0.25  # seconds between the in-process worker's looks at the rooms' timers


class Clock:
    """The time as the service sees it: real time plus however far the test moved it on
    (never back). Shared by the webhook's handlers, the store and the in-process worker,
    so a deadline one of them sets is due for the others when the test says."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += max(0.0, seconds)

    def reach(self, moment: float) -> None:
        """On to `moment` (a deadline), if it is not past already."""
        self.advance(moment - self())


@dataclass
class Hook:
    url: str
    emu: RunningEmulator
    redis: redis.Redis
    settings: Settings
    http: httpx.Client
    clock: Clock | None = None  # the service's, when the test chose one
    worker: InprocWorker | None = None  # running_service's worker thread

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
        return Runtime(svc, self.redis)  # its platforms make their clients from the settings

    def fresh_budget(self) -> None:
        """The whole flood budget again (the limits' keys are dropped)."""
        keys = list(self.redis.scan_iter("limit:*"))
        if keys:
            self.redis.delete(*keys)

    def run_jobs(self, rt: Runtime, kinds: tuple[str, ...]) -> int:
        """Run the queued and scheduled jobs of these kinds now, as a worker would, with
        `rt`; how many ran."""
        queues = [Queue(name, connection=self.redis) for name in QUEUES]  # the bots' too
        kinds = with_timer(kinds, self.redis, rt)
        ids = [
            i for q in queues for i in (*q.get_job_ids(), *q.scheduled_job_registry.get_job_ids())
        ]
        ran = 0
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(jobs, "runtime", lambda: rt)
            for job in Job.fetch_many(ids, connection=self.redis):
                if job is not None and str(job.func_name).rsplit(".", 1)[-1] in kinds:
                    job.delete()  # first: a job may schedule its own retry under its id
                    job.func(*job.args)
                    ran += 1
        return ran


def with_timer(kinds: tuple[str, ...], client: redis.Redis, rt: Runtime) -> tuple[str, ...]:
    """The job kinds to run, with the rooms' `timer` jobs if a phase timer is among them
    (queued first for the timers due by `rt`'s clock, as a worker's TimerClock would)."""
    if not set(kinds) & set(PHASE_TIMERS):
        return kinds
    timers.fire_due(client, rt.svc.now())
    return (*kinds, JobKind.TIMER)


def clocked(clock: Callable[[], float]) -> Callable[[Settings, Store], Services]:
    """What `create_app` builds its services with, on the test's clock."""

    def services(settings: Settings, store: Store) -> Services:
        store.clock = clock
        return Services(settings, store, clock=clock)

    return services


def configure_bot(emu: RunningEmulator, bot_settings: dict[str, bool | int | str]) -> None:
    """The bot set up as BotFather would (as cli.stack does), before serve starts."""
    base = f"{emu.api_url}/bot{TOKEN}"
    httpx.post(f"{base}/getMe", timeout=10, verify=tls.context()).raise_for_status()
    bot = {"bot": TOKEN.partition(":")[0], **bot_settings}
    httpx.post(
        f"{emu.api_url}/_emulator/bot_settings", json=bot, timeout=10, verify=tls.context()
    ).raise_for_status()


def set_webhook(hook: Hook) -> None:
    """The emulator delivers its users' updates to the hook, as to `burro serve`; its
    local WhatsApp too."""
    stack.set_webhook(hook.emu.api_url, hook.url)
    stack.set_whatsapp_webhook(hook.emu.url, hook.url)
    stack.submit_templates(hook.emu.url)


def whatsapp_settings(emulator_url: str) -> dict[str, Any]:
    """The settings that point the service at the emulator's local WhatsApp."""
    names = {key.removeprefix("BURRO_").lower(): value for key, value in WHATSAPP.items()}
    secrets = ("whatsapp_token", "whatsapp_app_secret", "whatsapp_verify_token")
    found: dict[str, Any] = {k: SecretStr(v) if k in secrets else v for k, v in names.items()}
    return found | {"whatsapp_api_url": emulator_url}


@contextmanager
def running_hook(
    folder: Path,
    *,
    clock: Clock | None = None,
    emulator: EmulatorConfig | None = None,
    bot_settings: dict[str, bool | int | str] | None = None,
    **options: Any,
) -> Iterator[Hook]:
    """The webhook app on a thread, its Redis and an emulator; `options` are settings.
    With a `clock`, the app's services keep that time; with `bot_settings`, the bot is
    set up so before the app starts; `emulator`: the emulator's config."""
    with RedisServer(folder / "redis", persist=False) as server, local_emulator(emulator) as emu:
        choices: dict[str, Any] = {"bot_delay": 3600, "rate_limits": True}
        settings = Settings(
            telegram_token=SecretStr(TOKEN),
            webhook_secret=SecretStr(SECRET),
            telegram_api_url=emu.api_url,
            redis_url=server.url,
            **whatsapp_settings(emu.url),
            **(choices | options),
        )
        if bot_settings is not None:
            configure_bot(emu, bot_settings)
        client = connect(server.url)
        with pytest.MonkeyPatch.context() as patch:
            if clock is not None:
                patch.setattr(web, "Services", clocked(clock))
            app = create_app(settings, client)
        with ServerThread(app) as thread, httpx.Client(timeout=30, verify=tls.context()) as http:
            yield Hook(thread.url, emu, client, settings, http, clock)
        fail_if_ignored(emu.emulator)  # what came after the last test that used it


# ----- the whole product in this process -------------------------------------------------


class ThreadWorker(BurroWorker):
    """The worker `burro worker` runs, on a thread of the test: no signal handlers (only
    the main thread may set them), job timeouts by timer instead of SIGALRM, and a
    short wait for a job (so it sees a request to stop within a second)."""

    death_penalty_class = TimerDeathPenalty

    taken = 0  # jobs taken off the queue so far
    busy = False  # running one now

    @property
    def dequeue_timeout(self) -> int:
        return 1

    def _install_signal_handlers(self) -> None:
        pass

    def dequeue_job_and_maintain_ttl(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        found = super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
        if found is not None:
            self.taken += 1
            self.busy = True
        return found

    def execute_job(self, job: Job, queue: Queue) -> None:
        try:
            super().execute_job(job, queue)
        finally:
            self.busy = False


class InprocWorker:
    """A worker on a thread for each queue (`BurroWorker`, waiting on it as `burro
    worker` and `burro worker --bots` do), and a scheduler on another that moves the
    scheduled jobs due by `clock` to their queue, as RQ's scheduler does by real time.
    Jobs get `rt` (the service's runtime on the same clock). A job that raised is kept in
    `failures`: a bug, whatever RQ would retry."""

    def __init__(self, hook: Hook, rt: Runtime, clock: Callable[[], float]) -> None:
        self.hook, self.rt, self.clock = hook, rt, clock
        self.queues = [Queue(name, connection=hook.redis) for name in QUEUES]
        self.queue = self.queues[0]  # the main one (presses, chats, timers)
        self.failures: list[str] = []
        self.errors: list[BaseException] = []
        self._taken = -1  # the workers' count of jobs taken at the last look (`quiet`)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self.workers = [self._worker(name) for name in QUEUES]
        self.worker = self.workers[0]
        self._threads = [
            *(
                threading.Thread(target=self._work, args=(w,), name=f"inproc-{q}", daemon=True)
                for w, q in zip(self.workers, QUEUES, strict=True)
            ),
            threading.Thread(target=self._schedule, name="inproc-scheduler", daemon=True),
        ]

    def _worker(self, queue: str) -> ThreadWorker:
        url = self.hook.settings.redis_url or ""
        return ThreadWorker(
            [Queue(queue, connection=connect(url))],
            connection=connect(url),
            exception_handlers=[self._failed],
            disable_default_exception_handler=True,
        )

    def _failed(self, job: Job, kind: type[BaseException], value: BaseException, tb: Any) -> bool:
        self.failures.append(f"{job.func_name}{job.args}: {kind.__name__}: {value}")
        return True  # RQ goes on as in production (retry, or the failed registry)

    def enqueue_due(self, timers_too: bool = True) -> int:
        """Move the scheduled jobs due by the clock to the queue (RQScheduler's way), and
        queue the rooms' timers due by it (the worker's TimerClock; with `timers_too`)."""
        fired = timers.fire_due(self.hook.redis, self.clock()) if timers_too else 0
        return fired + sum(self._enqueue_due(queue) for queue in self.queues)

    def _enqueue_due(self, queue: Queue) -> int:
        registry = queue.scheduled_job_registry
        ids = registry.get_jobs_to_schedule(int(self.clock()))
        if not ids:
            return 0
        found = Job.fetch_many(ids, connection=self.hook.redis)
        with self.hook.redis.pipeline() as pipe:
            for ident, job in zip(ids, found, strict=True):
                if job is not None:
                    queue._enqueue_job(job, pipeline=pipe)
                registry.remove(ident, pipeline=pipe)
            pipe.execute()
        return len(ids)

    def _work(self, worker: ThreadWorker) -> None:
        try:
            worker.work(logging_level="WARNING")
        except BaseException as raised:  # told by `check`
            self.errors.append(raised)

    def _schedule(self) -> None:
        # RQ's scheduled jobs every 20 ms; the rooms' timers (a look reads every bucket)
        # when the clock is moved on, else every TIMER_LOOK seconds of real time.
        looked = 0.0
        try:
            while not self._stop.is_set():
                now = time.monotonic()
                kicked = self._wake.is_set()
                self._wake.clear()
                look = kicked or now - looked >= TIMER_LOOK
                self.enqueue_due(timers_too=look)
                looked = now if look else looked
                self._wake.wait(0.02)  # or at once when the clock is moved on
        except BaseException as raised:
            self.errors.append(raised)

    def kick(self) -> None:
        """Look for due jobs now (the clock was moved on)."""
        self._wake.set()

    def quiet(self) -> bool:
        """Nothing to run till the clock moves on: no job queued, none running, and none
        taken since the last look (so the first look never says so)."""
        taken = sum(worker.taken for worker in self.workers)
        was, self._taken = self._taken, taken
        busy = any(worker.busy for worker in self.workers)
        if busy or any(queue.count for queue in self.queues) or was != taken:
            return False
        timer = timers.next_due(self.hook.redis)
        if timer is not None and timer <= self.clock():
            return False
        now = int(self.clock())
        return not any(q.scheduled_job_registry.get_jobs_to_schedule(now) for q in self.queues)

    def skip_ahead(self, at_most: float = 60.0) -> bool:
        """When nothing is left to run and the local WhatsApp delivers nothing either, move
        the clock on to the next scheduled job (a call's window, a bot's delay) rather
        than wait for it in real time, if it is due within `at_most` seconds (a turn's
        timer, hours away, is the test's to reach); whether it moved."""
        if not self.quiet():
            return False
        hook = self.hook.emu.whatsapp.webhook()
        if hook["waiting_events"] or hook["waiting_posts"] or hook["in_flight"]:
            return False
        due = []
        for queue in self.queues:
            key = queue.scheduled_job_registry.key
            scores = self.hook.redis.zrange(key, 0, 0, withscores=True)
            due += [float(scores[0][1])] if scores else []
        timer = timers.next_due(self.hook.redis)
        due += [] if timer is None else [timer]
        if not due or min(due) > self.clock() + at_most:
            return False
        self.reach(min(due))
        return True

    def settle(self) -> None:
        """Wait until nothing is left to run before the clock moves on."""
        self._taken = -1
        self.hook.emu.wait_for(self.quiet, what="the jobs to settle")

    def reach(self, moment: float) -> None:
        """Move the clock on to `moment` (a deadline: a window's end, a turn's time) and
        wake the scheduler for what is due then."""
        assert self.hook.clock is not None
        self.hook.clock.reach(moment)
        self.kick()

    def check(self) -> None:
        """Fail if a thread died or a job raised."""
        assert not self.errors, f"the worker's threads died: {self.errors!r}"
        running = not self._stop.is_set()
        assert not running or all(t.is_alive() for t in self._threads), "a worker thread ended"
        assert not self.failures, "jobs raised:\n  " + "\n  ".join(self.failures)

    def __enter__(self) -> InprocWorker:
        self._patch = pytest.MonkeyPatch()
        self._patch.setattr(jobs, "runtime", lambda: self.rt)
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._wake.set()
        for worker, queue in zip(self.workers, self.queues, strict=True):
            worker._stop_requested = True  # seen after its next job:
            queue.enqueue("time.sleep", 0)  # one that does nothing
        for thread in self._threads:
            thread.join(30)
        self._patch.undo()


@contextmanager
def running_service(
    folder: Path,
    *,
    emulator: EmulatorConfig | None = None,
    bot_settings: dict[str, bool | int | str] | None = None,
    **options: Any,
) -> Iterator[Hook]:
    """The product in this process, as `make_stack` runs it in processes: the webhook
    app on a thread (the emulator delivers to it), a worker thread, Redis and the
    emulator; no flood limits and bots at once unless `options` (settings) say
    otherwise. The hook's `clock` is the service's: move it on for a deadline."""
    clock = Clock()
    choices: dict[str, Any] = {"bot_delay": 0.0, "rate_limits": False}
    setup = LOCAL_BOT if bot_settings is None else bot_settings
    with running_hook(
        folder, clock=clock, emulator=emulator, bot_settings=setup, **(choices | options)
    ) as hook:
        rt = hook.runtime(clock)
        name = hook.redis.get("bot:username")
        if name:
            rt.svc.bot_username = text(name)
        switch = sys.getswitchinterval()
        # Threads waiting on Redis or HTTP get the GIL back sooner (5 ms by default: a
        # job's many round trips would each wait that long behind the busy threads).
        sys.setswitchinterval(SWITCH_INTERVAL)
        try:
            with InprocWorker(hook, rt, clock) as worker:
                hook.worker = worker
                set_webhook(hook)
                yield hook
        finally:
            sys.setswitchinterval(switch)
        worker.check()
