"""`burro worker`: an RQ worker with the scheduler (timers, bot moves, the outbox);
`burro worker --bots`: one for the thinking bots' decisions alone (their own queue, so a
strong bot's search never holds up a move or a chat at another table)."""

from __future__ import annotations

import argparse
import os
import time
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "worker",
        help="run a worker (timeouts, reminders, bot moves, sending)",
        description="An RQ worker with the scheduler. Run any number of them.",
    )
    parser.add_argument("--burst", action="store_true", help="stop when the queue is empty")
    parser.add_argument(
        "--bots",
        action="store_true",
        help="serve the thinking bots' queue (burro-bots) instead; run at least one",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.infra import heap, logs, metrics
    from service.infra.queue import BOT_QUEUE, QUEUE
    from service.infra.redis_server import connect_jobs, connect_state, embedded_url
    from service.settings import Settings
    from workers.worker import BurroWorker

    settings = Settings()
    if settings.redis_url is None:  # the embedded default, shared through a unix socket
        settings.redis_url = embedded_url(settings.data_dir)
        os.environ["BURRO_REDIS_URL"] = settings.redis_url  # for the jobs' runtime
    secrets = logs.secret_values(settings.telegram_token, settings.webhook_secret)
    logs.setup("worker", settings.log_format, settings.log_level, secrets=secrets)
    # RQ's Redis: the state's own unless that is a cluster (BURRO_JOBS_REDIS_URL)
    state, jobs = connect_state(settings), connect_jobs(settings)
    connection = jobs if jobs is not None else state
    metrics.watch_redis(state, connection)
    if settings.worker_metrics_port is not None:
        metrics.serve_http(settings.host, settings.worker_metrics_port, lambda: _pings(connection))
    # RQ restarts a scheduler that died (e.g. across a Redis restart) only at its
    # maintenance, so that runs often: timers must not wait ten minutes. (A dead worker's
    # scheduler lock is released there too: see workers.worker.) A bots' worker's
    # scheduler moves the thinking bots' delayed turns; the sweeper, the rooms' timers
    # and their clock are the other workers'.
    worker = BurroWorker(
        [BOT_QUEUE if args.bots else QUEUE],
        connection=connection,
        maintenance_interval=settings.worker_maintenance,
        sweep_every=None if args.bots else settings.sweep_every,
    )
    if not args.bots:
        _main_duties(args, settings, state, connection)
    heap.freeze_startup()
    # SIGTERM is RQ's warm shutdown: the job in hand finishes, then the worker exits (a
    # second SIGTERM or SIGINT stops it at once; the job is then retried, see Retry).
    worker.work(with_scheduler=True, burst=args.burst, logging_level="WARNING")
    return 0


def _main_duties(args: argparse.Namespace, settings: Any, state: Any, connection: Any) -> None:
    """What the main workers do beside their jobs, the bots' workers not: the sweeper's
    chain, and the rooms' timers (they wait in Redis, not as RQ jobs: a clock queues
    those come due)."""
    from service.infra import indexes
    from service.infra.redis_server import connect_jobs, connect_state
    from service.infra.timers import fire_due
    from workers.sweeper import ensure_chain
    from workers.timer_clock import TimerClock

    indexes.move_unbucketed(state)  # a Redis from before the buckets
    # one sweeper chain, however many workers
    ensure_chain(connection, settings.sweep_every, time.time())
    if args.burst:
        fire_due(state, time.time(), connection)
    else:
        # its own client: RQ forks the scheduler process from this one, and a fork must
        # not copy a connection pool whose lock this thread holds at that moment
        TimerClock(connect_state(settings), time.time, jobs=connect_jobs(settings)).start()


def _pings(connection: Any) -> bool:
    try:
        return bool(connection.ping())
    except Exception:  # any failure to reach Redis makes the worker unhealthy
        return False
