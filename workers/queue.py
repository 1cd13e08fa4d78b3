"""Putting jobs on the RQ queue inside the caller's transaction.

Job ids are deterministic, so a job scheduled twice is one job: `sync-<room>-<target>`
for bringing a chat up to date, `<kind>-<room>-<version>` for timers and bot moves.
Every job is enqueued with `Retry`, so a worker killed mid-job does not lose it.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import redis
from rq import Queue, Retry

from service.outcome import Job

QUEUE = "burro"
RETRY = Retry(max=5, interval=[1, 2, 5, 10, 30])


def job_id(job: Job) -> str:
    arg = job.arg.replace(":", "_")
    tag = f"-{job.tag}" if job.tag else ""
    return f"{job.kind}-{job.room}-{arg}{tag}"


def queue_for(connection: redis.Redis) -> Queue:
    return Queue(QUEUE, connection=connection)


def schedule(client: redis.Redis, pipe: redis.client.Pipeline, job: Job) -> None:
    """Enqueue `job` (now, or at `job.at`) as part of the pipeline's MULTI."""
    queue = Queue(QUEUE, connection=client)
    options: dict[str, Any] = {
        "job_id": job_id(job),
        "retry": RETRY,
        "pipeline": pipe,
        "result_ttl": 600,
        "failure_ttl": 7 * 24 * 3600,
    }
    func = f"workers.jobs.{job.kind}"
    if job.at > time.time():  # due now (a bot without delay): straight to the queue
        when = datetime.fromtimestamp(job.at, UTC)
        queue.enqueue_at(when, func, job.room, job.arg, **options)
    else:
        queue.enqueue_call(func, args=(job.room, job.arg), **options)
