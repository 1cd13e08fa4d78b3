"""Putting jobs on the RQ queue inside the caller's transaction.

Job ids are deterministic, so a job scheduled twice is one job:
`sync-<room>-<targets>-v<version>` for bringing a change's chat messages up to date (one
job for all its targets, joined by `-`), `<kind>-<room>-<version>` for timers and bot
moves.
Every job is enqueued with `Retry`, so a worker killed mid-job does not lose it.

Two queues: `burro` for every job but a thinking bot's, `burro-bots` for those
(`bot_think`), served by workers of their own (`burro worker --bots`): a strong bot
searching for 200 ms a decision holds up only its own table, never the presses and
chats of the others waiting on `burro`.
"""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime
from typing import Any

import redis
from redis.typing import EncodableT
from rq import Queue, Retry, get_current_job
from rq.job import Job as RQJob
from rq.job import JobStatus
from rq.serializers import DefaultSerializer
from rq.utils import get_call_string, now, utcformat

from service.table.outcome import Job, JobKind

Command = tuple[EncodableT, ...]

QUEUE = "burro"  # presses, chats, timers, cheap bots: everything quick
BOT_QUEUE = "burro-bots"  # the thinking bots' decisions (JobKind.BOT_THINK)
QUEUES = (QUEUE, BOT_QUEUE)
RESULT_TTL = 0  # no record of a finished job is kept
FAILURE_TTL = 7 * 24 * 3600
RETRY = Retry(max=5, interval=[1, 2, 5, 10, 30])
_NOT_IN_IDS = re.compile(r"[^A-Za-z0-9_-]")


def job_id(job: Job) -> str:
    arg = _NOT_IN_IDS.sub("_", job.arg.replace(",", "-"))  # RQ takes [A-Za-z0-9_-] only
    tag = f"-{job.tag}" if job.tag else ""
    return f"{job.kind}-{job.room}-{arg}{tag}"


def queue_for(connection: redis.Redis) -> Queue:
    return Queue(QUEUE, connection=connection)


def queue_of(kind: JobKind) -> str:
    """The queue a job of this kind waits on."""
    return BOT_QUEUE if kind is JobKind.BOT_THINK else QUEUE


def schedule(client: redis.Redis, pipe: redis.client.Pipeline, job: Job) -> None:
    """Enqueue `job` (now, or at `job.at`) as part of the pipeline's MULTI."""
    if job.at <= time.time():  # due now (a bot without delay): straight to the queue
        enqueue_now(pipe, job)
        return
    options: dict[str, Any] = {
        "job_id": job_id(job),
        "retry": RETRY,
        "pipeline": pipe,
        # Results are never read: no record of a finished job is kept (its hash and a
        # result stream, ~7 KB, were kept ten minutes: 600 KB a game). Deleting them costs
        # RQ seven more round trips a job; a second's TTL would cost none, but a fast
        # game then still holds 100+ KB of records. A finished job's hash goes with it,
        # which would lose a same-id job enqueued while it ran: ids that repeat name the
        # change (a sync, `v<version>`) or the retry (`later`, `again`).
        "result_ttl": RESULT_TTL,
        "failure_ttl": FAILURE_TTL,
    }
    when = datetime.fromtimestamp(job.at, UTC)
    queue = Queue(queue_of(job.kind), connection=client)
    queue.enqueue_at(when, f"workers.jobs.{job.kind}", job.room, job.arg, **options)


def enqueue_now(pipe: redis.client.Pipeline, job: Job) -> None:
    """Queue `job` to run now, onto the pipeline, with the very writes `schedule` has RQ
    make for it (the job's hash, its id pushed on the queue, the queue in the set of
    queues; tests/service/test_queue.py holds them to RQ's), without building RQ's Queue
    and Job objects: a few percent of a tap's CPU in `serve`. The job's data is not
    deflated (RQ's Job.restore reads it as it is when it is not): deflate's set-up for
    its 150 bytes was a ninth of a tap's instructions."""
    onto(pipe, job_writes(job))


def job_writes(job: Job) -> list[Command]:
    """`enqueue_now`'s writes, as commands (a claim's script runs them)."""
    args = (job.room, job.arg)
    return packed_writes(queue_of(job.kind), f"workers.jobs.{job.kind}", args, job_id(job))


def enqueue_packed(
    pipe: redis.client.Pipeline, name: str, func: str, args: tuple[str, ...], id_: str
) -> None:
    """`enqueue_now`'s writes for any function and id (bench.rq_trips queues its own)."""
    onto(pipe, packed_writes(name, func, args, id_))


def onto(pipe: redis.client.Pipeline, commands: list[Command]) -> None:
    for command in commands:
        pipe.execute_command(*command)  # type: ignore[no-untyped-call]


def packed_writes(name: str, func: str, args: tuple[str, ...], id_: str) -> list[Command]:
    stamp = utcformat(now())
    fields: list[EncodableT] = [
        "status", JobStatus.QUEUED.value,
        "created_at", stamp,
        "data", DefaultSerializer.dumps((func, None, args, {})),
        *_EMPTY_FIELDS,
        "retries_left", RETRY.max,
        "retry_intervals", _RETRY_INTERVALS,
        "origin", name,
        "description", get_call_string(func, args, {}, max_length=75) or "",
        "enqueued_at", stamp,
        "timeout", Queue.DEFAULT_TIMEOUT,
        "result_ttl", RESULT_TTL,
        "failure_ttl", FAILURE_TTL,
    ]  # fmt: skip
    queue = f"{Queue.redis_queue_namespace_prefix}{name}"
    return [
        ("SADD", Queue.redis_queues_keys, queue),
        ("HSET", f"{RQJob.redis_job_namespace_prefix}{id_}", *fields),
        ("RPUSH", queue, id_),
    ]


_RETRY_INTERVALS = json.dumps(RETRY.intervals)  # the same for every job: made once
_EMPTY_FIELDS: list[EncodableT] = [
    part
    for field in ("success_callback_name", "failure_callback_name", "stopped_callback_name",
                  "started_at", "ended_at", "last_heartbeat", "worker_name", "group_id")
    for part in (field, "")
]  # fmt: skip


def schedule_alone(client: redis.Redis, job: Job) -> None:
    """Schedule one job by itself (a retry, the sweeper's), not within a move's MULTI."""
    with client.pipeline() as pipe:
        pipe.multi()
        schedule(client, pipe, job)
        pipe.execute()


def later(client: redis.Redis, kind: JobKind, room_id: str, arg: str, at: float | None) -> None:
    """Run a job again at `at`, under an id that names the second it is due: retries
    asked for the same second are one job, and a job running now, in this worker or
    another, is never the one rescheduled. RQ deletes a finished job's hash (no result
    kept), which lost a same-id job queued while it ran: a press's sync, standing aside
    for a target another worker's retry held, waited for the sweeper."""
    due = at or time.time() + 1
    job = Job(kind, room_id, arg, due, tag=f"later{int(due)}")
    running = get_current_job()
    if running is not None and running.id == job_id(job):  # retried within its second
        job = Job(kind, room_id, arg, due, tag=f"again{int(due)}")
    schedule_alone(client, job)
