"""`burro worker`: an RQ worker with the scheduler (timers, bot moves, the outbox)."""

from __future__ import annotations

import argparse
import logging
import os
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "worker",
        help="run a worker (timeouts, reminders, bot moves, sending)",
        description="An RQ worker with the scheduler. Run any number of them.",
    )
    parser.add_argument("--burst", action="store_true", help="stop when the queue is empty")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rq import SimpleWorker

    from service.redis_server import connect, embedded_url
    from service.settings import Settings
    from workers.queue import QUEUE
    from workers.sweeper import ensure_chain

    settings = Settings()
    if settings.redis_url is None:  # the embedded default, shared through a unix socket
        settings.redis_url = embedded_url(settings.data_dir)
        os.environ["BURRO_REDIS_URL"] = settings.redis_url  # for the jobs' runtime
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    # SimpleWorker runs jobs in this process (no fork per job): jobs are short, and the
    # Redis and Bot API clients are reused. A killed worker's job is retried (Retry).
    connection = connect(settings.redis_url)
    ensure_chain(connection, settings.sweep_every)  # one sweeper chain, however many workers
    worker = SimpleWorker([QUEUE], connection=connection)
    worker.work(with_scheduler=True, burst=args.burst, logging_level="WARNING")
    return 0
