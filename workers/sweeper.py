"""The sweeper: finds playing rooms whose timer or bot move is overdue with nothing
pending (a lost job, a Redis restored from a backup, workers stopped for a while) and
schedules what is missing; and chat messages whose sync job was lost, and presses
answered whose job was lost (a worker killed mid-job). It runs every `sweep_every`
seconds as a self-rescheduling job whose id names its time slot, so any number of
workers keep one chain going."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

import redis
from rq import Queue

from service.infra import indexes
from service.infra.keys import DUE_KEY, PENDING_PRESSES, PENDING_SYNC, Index, index_key
from service.infra.queue import QUEUE, RETRY, job_id, schedule_alone
from service.infra.store import Store
from service.table.outcome import Job, JobKind, QueuedPress
from service.table.play import missing_job

log = logging.getLogger("burro.sweeper")


def sweep_once(store: Store, now: float, grace: float) -> int:
    """Schedule the missing jobs of overdue rooms, lost syncs and lost presses; how many."""
    count = requeue(store, PENDING_SYNC, JobKind.SYNC, now - grace, now)
    count += requeue(store, PENDING_PRESSES, JobKind.PRESS, now - grace, now, is_press)
    for room_id in store.overdue(now - grace):
        room = store.load(room_id)
        job = missing_job(room, now) if room is not None else None
        if job is None:
            store.redis.zrem(index_key(DUE_KEY, room_id), room_id)
            continue
        store.redis.zadd(index_key(DUE_KEY, room_id), {room_id: now})  # look again after a grace
        schedule_alone(store.jobs, Job(job.kind, job.room, job.arg, 0.0, tag="sweep"))
        count += 1
    return count


def requeue(
    store: Store,
    key: Index,
    kind: JobKind,
    before: float,
    now: float,
    valid: Callable[[str, str], bool] = lambda _room, _arg: True,
) -> int:
    """Queue again the job of each mark in the index `key` (`<room>|<arg>`, scored since
    when it waits) older than `before`, and look again after a grace; a mark no job could
    ever settle (not `valid`) goes. How many were queued."""
    count = 0
    for member, _at in indexes.due(store.redis, key, before, 1000):
        room_id, arg = member.split("|", 1)
        bucket = index_key(key, room_id)
        if not valid(room_id, arg):
            store.redis.zrem(bucket, member)
            continue
        # XX: a mark its job cleared meanwhile stays cleared.
        store.redis.zadd(bucket, {member: now}, xx=True)
        schedule_alone(store.jobs, Job(kind, room_id, arg, 0.0, tag="sweep"))
        count += 1
    return count


def is_press(room_id: str, arg: str) -> bool:
    return QueuedPress.parse(room_id, arg) is not None


def ensure_chain(connection: redis.Redis, every: int, now: float) -> None:
    """Schedule the next sweep (idempotent: the slot's job id is fixed)."""
    slot = (int(now) // every + 1) * every
    queue = Queue(QUEUE, connection=connection)
    queue.enqueue_at(
        datetime.fromtimestamp(slot, UTC),
        f"workers.jobs.{JobKind.SWEEP}",
        str(int(slot)),
        job_id=job_id(Job(JobKind.SWEEP, "all", str(int(slot)), 0.0)),
        retry=RETRY,
    )
