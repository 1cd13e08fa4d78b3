"""Prometheus metrics of one process, for `/metrics`.

Each `serve` and `worker` process counts for itself and serves its own numbers
(`serve` on its web port, a worker on `BURRO_WORKER_METRICS_PORT`); Prometheus scrapes
every process and adds them up. Counters live in this module's own registry, so the
numbers are the same however many apps a test builds in one process. What is shared by
all processes (games in play, the job queue) is read from Redis at scrape time.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ParamSpec

import redis
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from service.infra import logs

P = ParamSpec("P")
REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)  # process_cpu_seconds_total, resident memory, open fds
LATENCY = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

UPDATES = Counter(
    "burro_updates",
    "Webhook updates, by kind (command, callback_query, …) and outcome (ok, duplicate, "
    "retry: answered 503 so Telegram delivers again, failed: a permanent error, invalid).",
    ["kind", "outcome"],
    registry=REGISTRY,
)
UPDATE_SECONDS = Histogram(
    "burro_update_seconds",
    "Time from a webhook update's arrival to the answer, by kind.",
    ["kind"],
    buckets=LATENCY,
    registry=REGISTRY,
)
UPDATES_IN_PROGRESS = Gauge(
    "burro_updates_in_progress", "Webhook updates being handled now.", registry=REGISTRY
)
REDIS_CONFLICTS = Counter(
    "burro_redis_conflicts",
    "Compare-and-set transactions that lost to a concurrent writer (WatchError), by "
    "operation (create, update).",
    ["op"],
    registry=REGISTRY,
)
REDIS_RETRIES = Counter(
    "burro_redis_retries",
    "Transactions run again from a fresh read after a conflict, by operation.",
    ["op"],
    registry=REGISTRY,
)
JOBS = Counter(
    "burro_jobs",
    "Jobs run by this worker, by kind (sync, bot_move, …) and outcome (ok, failed).",
    ["kind", "outcome"],
    registry=REGISTRY,
)
JOB_SECONDS = Histogram(
    "burro_job_seconds", "Job run time, by kind.", ["kind"], buckets=LATENCY, registry=REGISTRY
)
JOBS_IN_PROGRESS = Gauge("burro_jobs_in_progress", "Jobs running now.", registry=REGISTRY)
BOT_API_CALLS = Counter(
    "burro_bot_api_calls",
    "Bot API calls, by method and outcome (ok, 429: Telegram's flood limit, error: "
    "another refusal, network: no answer, webhook_answer: sent in a webhook's answer, "
    "whose outcome nobody hears).",
    ["method", "outcome"],
    registry=REGISTRY,
)


def update_kind(update: Any) -> str:
    """A short, bounded label for a Telegram update."""
    for kind in ("callback_query", "inline_query", "chosen_inline_result", "my_chat_member"):
        if getattr(update, kind, None) is not None:
            return kind
    message = getattr(update, "effective_message", None)
    if message is None:
        return "other"
    text = getattr(message, "text", None) or ""
    return "command" if text.startswith("/") else "message"


def observe_update(kind: str, outcome: str, seconds: float) -> None:
    _update_count(kind, outcome).inc()
    _update_time(kind).observe(seconds)


# A metric's child for some label values, found once: `labels` builds and checks its key
# and takes a lock each time (3% of `serve`'s instructions for a tap). The values are a
# few (update kinds, outcomes, Bot API methods), and no child is ever removed.
@functools.cache
def _update_count(kind: str, outcome: str) -> Counter:
    return UPDATES.labels(kind, outcome)


@functools.cache
def _update_time(kind: str) -> Histogram:
    return UPDATE_SECONDS.labels(kind)


@functools.cache
def _bot_api_count(method: str, outcome: str) -> Counter:
    return BOT_API_CALLS.labels(method, outcome)


def conflict(op: str, retried: bool) -> None:
    """A WatchError was caught: count it, and the retry when there is one."""
    REDIS_CONFLICTS.labels(op).inc()
    if retried:
        REDIS_RETRIES.labels(op).inc()


def bot_api_call(
    method: str, error_code: int | None = None, network: bool = False, in_answer: bool = False
) -> None:
    if in_answer:
        outcome = "webhook_answer"
    elif network:
        outcome = "network"
    elif error_code is None:
        outcome = "ok"
    else:
        outcome = "429" if error_code == 429 else "error"
    _bot_api_count(method, outcome).inc()


def job(kind: str, about_game: bool = True) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Decorate an RQ job: count it by kind and outcome, time it, and name its game (the
    first argument) on every log line it writes."""
    log = logs.get("burro.worker")

    def wrap(func: Callable[P, None]) -> Callable[P, None]:
        @functools.wraps(func)
        def run(*args: P.args, **kwargs: P.kwargs) -> None:
            game = str(args[0]) if about_game and args else None
            logs.new_context(game_id=game, job=kind)
            outcome = "failed"
            started = time.perf_counter()
            JOBS_IN_PROGRESS.inc()
            try:
                func(*args, **kwargs)
                outcome = "ok"
            except Exception:
                log.warning("job failed", kind=kind, exc_info=True)
                raise
            finally:
                seconds = time.perf_counter() - started
                JOBS_IN_PROGRESS.dec()
                JOBS.labels(kind, outcome).inc()
                JOB_SECONDS.labels(kind).observe(seconds)
                log.info("job", kind=kind, outcome=outcome, seconds=round(seconds, 4))
                logs.clear()

        return run

    return wrap


class RedisCollector(Collector):
    """What every process shares, read from Redis when Prometheus scrapes: games in
    play, chats waiting for the outbox, and the job queue."""

    def __init__(self, client: redis.Redis | redis.RedisCluster, jobs: redis.Redis) -> None:
        self.client, self.jobs = client, jobs

    def collect(self) -> Iterator[Metric]:
        from rq import Queue

        from service.infra import indexes
        from service.infra.keys import DUE_KEY, PENDING_SYNC
        from service.infra.queue import QUEUES

        queues = [Queue(name, connection=self.jobs) for name in QUEUES]
        up = GaugeMetricFamily("burro_redis_up", "1 when Redis answered this scrape.")
        try:
            active = indexes.count(self.client, DUE_KEY)
            pending = indexes.count(self.client, PENDING_SYNC)
            with self.jobs.pipeline(transaction=False) as pipe:
                for queue in queues:
                    pipe.llen(queue.key)
                    pipe.zcard(queue.scheduled_job_registry.key)
                    pipe.zcard(queue.started_job_registry.key)
                    pipe.zcard(queue.failed_job_registry.key)
                counts = pipe.execute()
        except redis.RedisError:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield GaugeMetricFamily(
            "burro_active_games", "Games in play (the rooms:due index).", value=active
        )
        yield GaugeMetricFamily(
            "burro_sync_pending", "Chat messages waiting for the outbox.", value=pending
        )
        jobs = GaugeMetricFamily(
            "burro_queue_jobs",
            "Jobs in the RQ queues (burro; burro-bots, the thinking bots'), by state.",
            labels=["queue", "state"],
        )
        states = ("queued", "scheduled", "started", "failed")
        for number, name in enumerate(QUEUES):
            for state, count in zip(states, counts[4 * number :], strict=False):
                jobs.add_metric([name, state], count)
        yield jobs


_watched: list[RedisCollector] = []
_watch_lock = threading.Lock()


def watch_redis(client: redis.Redis | redis.RedisCluster, jobs: redis.Redis | None = None) -> None:
    """Report the shared figures from this Redis (and RQ's, if apart; the last given, in
    tests)."""
    with _watch_lock:
        for old in _watched:
            REGISTRY.unregister(old)
        _watched[:] = [RedisCollector(client, jobs if jobs is not None else client)]  # type: ignore[arg-type]
        REGISTRY.register(_watched[0])


def render() -> tuple[bytes, str]:
    """The text exposition of this process's metrics, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def serve_http(host: str, port: int, healthy: Callable[[], bool]) -> ThreadingHTTPServer:
    """A small HTTP server in a background thread for a process that has no web server
    of its own (a worker): `/metrics`, and `/healthz` for liveness probes."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                body, kind, status = *render(), 200
            elif path == "/healthz":
                ok = healthy()
                body, kind = (b'{"ok": true}' if ok else b'{"ok": false}'), "application/json"
                status = 200 if ok else 503
            else:
                body, kind, status = b"not found", "text/plain", 404
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return  # scrapes every few seconds would drown the logs

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="metrics", daemon=True)
    thread.start()
    return server
