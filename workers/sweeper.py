"""The sweeper: finds playing rooms whose timer or bot move is overdue with nothing
pending (a lost job, a Redis restored from a backup, workers stopped for a while) and
schedules what is missing; and chat messages whose sync job was lost (a worker killed
mid-job). It runs every `sweep_every` seconds as a self-rescheduling job whose id names
its time slot, so any number of workers keep one chain going."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

import redis
from rq import Queue

from engine.cuartetos import GameState as PassingGame
from engine.follow_suit.game import to_move
from service.infra.queue import QUEUE, RETRY, job_id, schedule_alone
from service.infra.store import DUE_KEY, PENDING_SYNC, Store, text
from service.table.cuartetos import moves as passing
from service.table.outcome import BOT_MOVE, REMIND, TURN_TIMEOUT, Job
from service.table.room import Room

log = logging.getLogger("burro.sweeper")


def missing_job(room: Room, now: float) -> Job | None:
    """The job a room needs now, judged from the room alone (jobs are idempotent, so
    scheduling one that is merely late does no harm)."""
    if room.status != "playing" or room.game is None:
        return None
    if isinstance(room.game, PassingGame):
        return passing.missing_job(room, now)
    seat = to_move(room.game)
    if seat is None:
        return None
    version = str(room.version)
    if room.is_bot_seat(seat):
        return Job(BOT_MOVE, room.id, version, 0.0)
    if room.deadline is not None and now >= room.deadline:
        return Job(TURN_TIMEOUT, room.id, version, 0.0)
    return Job(REMIND, room.id, version, 0.0)


def sweep_once(store: Store, now: float, grace: float) -> int:
    """Schedule the missing jobs of overdue rooms and lost syncs; how many."""
    count = 0
    for member in store.redis.zrangebyscore(PENDING_SYNC, "-inf", now - grace, 0, 1000):
        room_id, target = text(member).split("|", 1)
        # Look again after a grace; XX: a sync that finished meanwhile stays done.
        store.redis.zadd(PENDING_SYNC, {text(member): now}, xx=True)
        schedule_alone(store.redis, Job("sync", room_id, target, 0.0, tag="sweep"))
        count += 1
    for room_id in store.overdue(now - grace):
        room = store.load(room_id)
        job = missing_job(room, now) if room is not None else None
        if job is None:
            store.redis.zrem(DUE_KEY, room_id)
            continue
        store.redis.zadd(DUE_KEY, {room_id: now})  # look again after a grace
        schedule_alone(store.redis, Job(job.kind, job.room, job.arg, 0.0, tag="sweep"))
        count += 1
    return count


def ensure_chain(connection: redis.Redis, every: int, now: float | None = None) -> None:
    """Schedule the next sweep (idempotent: the slot's job id is fixed)."""
    slot = (int(now or time.time()) // every + 1) * every
    queue = Queue(QUEUE, connection=connection)
    queue.enqueue_at(
        datetime.fromtimestamp(slot, UTC),
        "workers.jobs.sweep",
        str(int(slot)),
        job_id=job_id(Job("sweep", "all", str(int(slot)), 0.0)),
        retry=RETRY,
    )
