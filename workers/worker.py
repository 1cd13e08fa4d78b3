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
"""

from __future__ import annotations

import contextlib
import os
import signal
from typing import Any

import redis
from rq import SimpleWorker
from rq.scheduler import RQScheduler

from service.infra.store import text

LOCK_TTL = 61  # seconds: what RQ's scheduler sets at each refresh (its interval + 60)
STALE_AFTER = 5  # seconds without a refresh: the holder is gone (it refreshes every 1 s)
PUBSUB_WAKE = 1.0  # seconds: how long a stopping worker may wait for its pubsub thread
SCHEDULER_STOP = 5.0  # seconds a stopping worker waits for its scheduler process

# Delete the lock only if it is still the one found stale (same holder, still stale).
_RELEASE_STALE = """
if redis.call('GET', KEYS[1]) == ARGV[1] and redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def release_stale_lock(client: redis.Redis, queue: str, stale_after: float = STALE_AFTER) -> bool:
    """Delete the queue's scheduler lock if its holder has not refreshed it for
    `stale_after` seconds. Returns whether it did."""
    key = RQScheduler.get_locking_key(queue)
    holder = client.get(key)
    if holder is None:
        return False
    threshold_ms = int((LOCK_TTL - stale_after) * 1000)
    return bool(client.eval(_RELEASE_STALE, 1, key, holder, threshold_ms))


def scheduler_pid(client: redis.Redis, queue: str) -> int | None:
    """The pid of the scheduler process holding the queue's lock (a child process of
    its worker), or None while no scheduler holds it."""
    name = client.get(RQScheduler.get_locking_key(queue))
    pid = client.hget(f"rq:scheduler:{text(name)}", "pid") if name else None
    return int(pid) if pid and int(pid) else None


class BurroWorker(SimpleWorker):
    """SimpleWorker runs jobs in its own process (no fork per job): jobs are short, and
    the Redis and Bot API clients are reused. A killed worker's job is retried (Retry)."""

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

    def run_maintenance_tasks(self) -> Any:
        process = getattr(self.scheduler, "_process", None)  # RQ's scheduler process, if ours
        if self.scheduler is not None and not (process and process.is_alive()):
            for queue in self.queue_names():
                if release_stale_lock(self.connection, queue):
                    self.log.warning("released the scheduler lock of a dead worker (%s)", queue)
        return super().run_maintenance_tasks()  # type: ignore[no-untyped-call]
