"""The RQ worker class `burro worker` runs: RQ's SimpleWorker, plus a quicker takeover
of the scheduler when the worker running it dies.

One worker's scheduler process moves due jobs (delayed bot moves, retries, the sweeper;
the rooms' timers have a clock in every worker, workers.timer_clock) to the queue,
holding a lock in Redis that it refreshes every second with a TTL of 61 s. A worker
killed with SIGKILL (an OOM kill, a lost node) leaves that lock behind: RQ's other
workers can take over only once it expires, so every delayed job waits about a minute
(bench.scheduler_stall measures it). At each of its maintenances a
worker without a running scheduler deletes a lock nobody has refreshed for
`STALE_AFTER` seconds (its TTL tells), and RQ's own maintenance then takes it. An idle
worker wakes up for its maintenance on time (RQ's would sleep in its wait for a job).

A worker also rides out a Redis that refuses it for a while (full at `maxmemory` with
`noeviction`, a replica not yet promoted, a restart): RQ's loop quits on any error but a
lost connection, and a worker gone leaves every press accepted afterwards unapplied. It
takes no job while Redis refuses its heartbeat (a job taken then could not be recorded
as started), waits longer each time (up to `MAX_WAIT`), says so once and again when
Redis takes writes, and goes on by itself. A job that fails on Redis midway is retried
by the sweeper, as a killed worker's is.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import time
from typing import Any

import redis
from rq import Queue, SimpleWorker
from rq.executions import Execution
from rq.intermediate_queue import IntermediateQueue
from rq.job import Job, JobStatus
from rq.results import Result
from rq.scheduler import RQScheduler
from rq.utils import get_version, now
from rq.worker import WorkerStatus

from service.infra import trips
from service.infra.store import text
from workers.sweeper import ensure_chain

LOCK_TTL = 61  # seconds: what RQ's scheduler sets at each refresh (its interval + 60)
STALE_AFTER = 5  # seconds without a refresh: the holder is gone (it refreshes every 1 s)
PUBSUB_WAKE = 1.0  # seconds: how long a stopping worker may wait for its pubsub thread
SCHEDULER_STOP = 5.0  # seconds a stopping worker waits for its scheduler process
FIRST_WAIT = 0.5  # seconds before asking a refusing Redis again ...
MAX_WAIT = 10.0  # ... doubling up to this
# RQ's own round trips a job, cut from 30 to a few (issue #40; bench.rq_trips measures):
BEAT_EVERY = 1.0  # seconds: at most one worker heartbeat (and suspension check) this often

# Delete the lock only if it is still the one found stale (same holder, still stale).
_RELEASE_STALE = """
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


# A job off the queue onto RQ's intermediate queue (as RQ's LMOVE) with its hash, in one
# round trip. The hash's key is made from the id taken: RQ's Redis is never a cluster.
_TAKE = """
local id = redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')
if not id then return false end
return {id, redis.call('HGETALL', ARGV[1] .. id)}
"""


_TAKE_SHA = hashlib.sha1(_TAKE.encode()).hexdigest()


def take(connection: redis.Redis, key: str, middle: str) -> Any:
    """_TAKE, by its digest (sent whole once, when Redis does not know it yet)."""
    args = (2, key, middle, Job.redis_job_namespace_prefix)
    try:
        return connection.evalsha(_TAKE_SHA, *args)
    except redis.exceptions.NoScriptError:
        return connection.eval(_TAKE, *args)


class BurroQueue(Queue):
    """RQ's Queue, with a lighter dequeue for a worker's one queue."""

    @classmethod
    def dequeue_any(  # type: ignore[override]  # RQ's is untyped past its first arguments
        cls, queues: Any, timeout: int | None, connection: redis.Redis, **options: Any
    ) -> tuple[Job, Queue] | None:
        """RQ's, but a job already waiting is taken and read in one round trip, not two
        (LMOVE, then HGETALL). An empty queue is waited on as RQ does (BLMOVE cannot
        wait inside a script): a round trip more for an idle worker, none on a job's
        way."""
        queues = list(queues)
        while len(queues) == 1 and get_version(connection) >= (6, 2, 0):
            key = queues[0].key
            middle = IntermediateQueue.get_intermediate_queue_key(key)
            taken = take(connection, key, middle)
            if not taken:
                break  # nothing waiting: RQ's own wait
            job_id, fields = taken
            if not fields:
                continue  # its hash is gone: RQ skips it too
            job_class = options.get("job_class") or Job
            job = job_class(
                text(job_id), connection=connection, serializer=options.get("serializer")
            )
            job.restore(dict(zip(fields[::2], fields[1::2], strict=True)))
            return job, queues[0]
        return super().dequeue_any(queues, timeout, connection, **options)


def release_stale_lock(client: redis.Redis, queue: str, stale_after: float = STALE_AFTER) -> bool:
    """Delete the queue's scheduler lock if its holder has not refreshed it for
    `stale_after` seconds. Returns whether it did."""
    key = RQScheduler.get_locking_key(queue)
    holder = client.get(key)
    if holder is None:
        return False
    threshold_ms = int((LOCK_TTL - stale_after) * 1000)
    return bool(trips.evaluate(client, _RELEASE_STALE, [key], holder, threshold_ms))


def scheduler_pid(client: redis.Redis, queue: str) -> int | None:
    """The pid of the scheduler process holding the queue's lock (a child process of
    its worker), or None while no scheduler holds it."""
    name = client.get(RQScheduler.get_locking_key(queue))
    pid = client.hget(f"rq:scheduler:{text(name)}", "pid") if name else None
    return int(pid) if pid and int(pid) else None


class BurroWorker(SimpleWorker):
    """SimpleWorker runs jobs in its own process (no fork per job): jobs are short, and
    the Redis and Bot API clients are reused. A killed worker's job is retried (Retry)."""

    first_wait, max_wait = FIRST_WAIT, MAX_WAIT  # seconds between asks of a refusing Redis
    queue_class = BurroQueue

    def __init__(self, *args: Any, sweep_every: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sweep_every = sweep_every  # the sweeper's chain, kept alive at each upkeep
        self.refused_since: float | None = None  # when Redis began refusing us
        self.wait = self.first_wait  # before asking it again
        self.beat_at = -BEAT_EVERY  # monotonic time of the last heartbeat Redis took
        self.checked_at = -BEAT_EVERY  # ... and of the last check for `rq suspend`
        self.prepared: Any = None  # a job's start, written with its execution's (pipeline)

    def validate_queues(self) -> None:
        """RQ's asks for queues of `queue_class`; BurroQueue's dequeue takes any (the
        tests' in-process workers are given RQ's own)."""
        for queue in self.queues:
            if not isinstance(queue, Queue):
                raise TypeError(f"{queue} is not an RQ queue")

    @property
    def dequeue_timeout(self) -> int:
        # An idle RQ worker waits for a job up to its TTL (405 s) before its maintenance
        # runs; a dead scheduler means no scheduled job arrives to wake it, so it must
        # wake up by itself as often as its maintenance is due.
        return max(1, min(int(self.maintenance_interval), self.worker_ttl - 15))

    def subscribe(self) -> None:
        """RQ's, with its listening thread waking every second instead of every 60 s.
        On shutdown RQ unsubscribes, then stops that thread; redis-py 8.2's stop waits
        for the thread, which once unsubscribed sleeps its whole `sleep_time` first: a
        worker took up to a minute to exit on SIGTERM."""
        # redis-py 8.1 (the lock's) leaves `pubsub` untyped, 8.2 types it
        self.pubsub = self.connection.pubsub()  # type: ignore[no-untyped-call,unused-ignore]
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        thread: Any = self.pubsub.run_in_thread(  # RQ types its attribute as None
            sleep_time=PUBSUB_WAKE, daemon=True, exception_handler=self._pubsub_exception_handler
        )
        self.pubsub_thread = thread

    def stop_scheduler(self) -> None:
        """RQ's, with a deadline: SIGTERM, then SIGKILL if the scheduler process has not
        ended within `SCHEDULER_STOP` seconds. RQ waits without one, so a scheduler that
        hangs (one forked while another thread held a lock it then needs, say) would
        keep the worker from ever exiting. Its lock in Redis is taken over as a dead
        worker's is."""
        process = getattr(self.scheduler, "_process", None)
        if process is None or not process.pid:
            return
        with contextlib.suppress(OSError):  # already gone
            os.kill(process.pid, signal.SIGTERM)
        process.join(SCHEDULER_STOP)
        if process.is_alive():
            self.log.warning("the scheduler process did not stop; killing it")
            process.kill()
            process.join()

    # ----- riding out a Redis that refuses us ------------------------------------------
    def bootstrap(self, *args: Any, **kwargs: Any) -> None:
        """RQ's start (the worker's record in Redis), tried again while Redis refuses
        it; a half-made record of ours goes first (RQ refuses a name still alive)."""
        while True:
            try:
                super().bootstrap(*args, **kwargs)
            except redis.RedisError as error:
                self.refused(error)
                with contextlib.suppress(redis.RedisError):
                    self.connection.delete(self.key)
                self.wait_a_while()
            else:
                self.recovered()
                return

    def _start_scheduler(self, *args: Any, **kwargs: Any) -> None:
        """RQ's; refused, the scheduler is started at an upkeep instead (RQ's own, as
        for a scheduler that died)."""
        try:
            super()._start_scheduler(*args, **kwargs)
        except redis.RedisError as error:
            self.refused(error)

    def wait_a_while(self) -> None:
        time.sleep(self.wait)
        self.wait = min(self.wait * 2, self.max_wait)

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        """RQ's, but a refusal is noted rather than raised (RQ's loop would quit); its
        three commands in one round trip, and at most one a `BEAT_EVERY`: RQ beats four
        times a job (12 round trips) to keep alive a key that lives `worker_ttl` + 60 s
        (480). Nothing reads the beat but that TTL (a job's own liveness is its entry in
        RQ's StartedJobRegistry, written as it starts); a refusing Redis is asked each
        time, so no job is taken while it refuses."""
        if pipeline is not None:  # part of RQ's own transaction: its caller handles it
            super().heartbeat(timeout, pipeline)
            return
        if timeout is None and not self.refusing and time.monotonic() - self.beat_at < BEAT_EVERY:
            return
        try:
            with self.connection.pipeline(transaction=False) as pipe:
                super().heartbeat(timeout, pipe)
                pipe.execute()
        except redis.RedisError as error:
            self.refused(error)
        else:
            self.beat_at = time.monotonic()
            self.recovered()

    def dequeue_job_and_maintain_ttl(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        """RQ's, while Redis takes writes: a job is taken only when its start can be
        recorded, and a refusal while waiting for one (full memory refuses even the
        move of a job id to RQ's list of jobs in hand) is waited out."""
        while not self._stop_requested:
            self.heartbeat()
            if self.refusing:
                self.wait_a_while()
                continue
            try:
                return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
            except redis.RedisError as error:
                self.refused(error)
        return None

    def execute_job(self, job: Any, queue: Any) -> None:
        try:
            super().execute_job(job, queue)
        except redis.RedisError as error:  # its state could not be kept: the sweeper retries
            self.refused(error)
            self.log.warning("job %s not finished: Redis refused (%s)", job.id, error)
        finally:
            self.prepared = None

    def check_for_suspension(self, burst: bool) -> None:
        """RQ's (`rq suspend`), asked at most once a `BEAT_EVERY` rather than a job."""
        if not self.refusing and time.monotonic() - self.checked_at < BEAT_EVERY:
            return
        try:
            super().check_for_suspension(burst)
        except redis.RedisError as error:
            self.refused(error)
        else:
            self.checked_at = time.monotonic()

    def set_state(self, state: str, pipeline: Any = None) -> None:
        """RQ's, not written again when unchanged: it sets IDLE twice a job."""
        if pipeline is None and state == self._state and not self.refusing:
            return
        super().set_state(state, pipeline)

    # ----- a job's start and end in a round trip each ----------------------------------
    def prepare_execution(self, job: Job) -> Execution:
        """RQ's record of the execution (StartedJobRegistry, the worker's BUSY), kept in a
        transaction `prepare_job_execution` adds its own writes to and sends: RQ sends
        the two one after the other, and nothing runs between them but Python."""
        pipe = self.connection.pipeline()
        execution = Execution.create(job, self.get_heartbeat_ttl(job), pipe, self.name)
        self.executions[execution.id] = execution
        self.set_state(WorkerStatus.BUSY, pipeline=pipe)
        self.prepared = pipe
        return execution

    def prepare_job_execution(self, job: Job, remove_from_intermediate_queue: bool = False) -> None:
        """RQ's writes (the job STARTED, our beat, its id off the intermediate queue),
        sent with the execution's; RQ's own when there is none pending."""
        pipe, self.prepared = self.prepared, None
        if pipe is None:
            super().prepare_job_execution(job, remove_from_intermediate_queue)
            return
        with pipe:
            ttl = self.get_heartbeat_ttl(job)
            self.heartbeat(ttl, pipeline=pipe)
            job.heartbeat(now(), ttl, pipeline=pipe)
            job.prepare_for_execution(self.name, pipeline=pipe)
            pipe.persist(job.key)
            if remove_from_intermediate_queue:
                pipe.lrem(
                    Queue(job.origin, connection=self.connection).intermediate_queue_key, 1, job.id
                )
            pipe.execute()

    def handle_execution_ended(self, job: Job, queue: Queue, heartbeat_ttl: int) -> None:
        """RQ's, without its beat on the job's hash when no success callback is to run
        (a job of ours has none): the hash is deleted in the very next round trip."""
        if job.get_status(refresh=False) == JobStatus.FAILED or job.success_callback:
            super().handle_execution_ended(job, queue, heartbeat_ttl)
        else:
            job.ended_at = now()

    def handle_job_success(
        self, job: Job, queue: Queue, started_job_registry: Any, execution: Execution
    ) -> None:
        """RQ's end of a job, in one transaction for a job like ours (result not kept, no
        repeat, group or rate limit): RQ WATCHes for dependents and reads its status and
        executions back first (nine round trips). Burro enqueues no job that depends on
        another (`depends_on`), so there is nothing to move. The worker goes IDLE here
        too (RQ writes it apart after)."""
        plain = not (job.repeats_left or job.group_id or job.has_rate_limit)
        if not plain or job.get_result_ttl(self.default_result_ttl) != 0:
            super().handle_job_success(job, queue, started_job_registry, execution)
            return
        assert job.started_at and job.ended_at  # set by RQ's perform_job
        with self.connection.pipeline() as pipe:
            self.increment_successful_job_count(pipeline=pipe)
            self.increment_total_working_time(job.ended_at - job.started_at, pipe)
            self.cleanup_execution(job, pipeline=pipe, execution=execution)
            keys = (job.dependents_key, job.dependencies_key, job.execution_registry.key)
            pipe.delete(job.key, *keys, Result.get_key(job.id))  # type: ignore[no-untyped-call]
            self.set_state(WorkerStatus.IDLE, pipeline=pipe)
            pipe.execute()

    @property
    def refusing(self) -> bool:
        return self.refused_since is not None

    def refused(self, error: redis.RedisError) -> None:
        if self.refused_since is None:
            self.log.warning("Redis refuses the worker (%s); it waits and tries again", error)
            self.refused_since = time.monotonic()

    def recovered(self) -> None:
        if self.refused_since is not None:
            since = time.monotonic() - self.refused_since
            self.log.warning("Redis takes the worker's writes again after %.1f s", since)
        self.refused_since, self.wait = None, self.first_wait

    def run_maintenance_tasks(self) -> Any:
        try:
            return self.maintain()
        except redis.RedisError as error:  # tried again at the next maintenance
            self.refused(error)
            self.last_cleaned_at = now()  # type: ignore[assignment]  # RQ's own: None at first
            return None

    def maintain(self) -> Any:
        if self.sweep_every is not None:  # a sweep job lost (Redis refused it midway) ends it
            ensure_chain(self.connection, self.sweep_every, time.time())
        process = getattr(self.scheduler, "_process", None)  # RQ's scheduler process, if ours
        if self.scheduler is not None and not (process and process.is_alive()):
            for queue in self.queue_names():
                if release_stale_lock(self.connection, queue):
                    self.log.warning("released the scheduler lock of a dead worker (%s)", queue)
        return super().run_maintenance_tasks()  # type: ignore[no-untyped-call]
