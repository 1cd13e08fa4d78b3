"""Each worker's clock for the rooms' timers: once a second it queues those come due
(service.infra.timers). Any number of workers run one; each due timer is claimed by
one of them."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import redis

from service.infra import timers
from service.infra.outage import UNAVAILABLE

log = logging.getLogger("burro.worker")
EVERY = 1.0  # seconds between looks: a timer is at most this late (reminders, turn ends)


class TimerClock(threading.Thread):
    """A daemon thread beside the worker's job loop; `stop` ends it."""

    def __init__(
        self,
        client: redis.Redis,
        now: Callable[[], float],
        every: float = EVERY,
        jobs: redis.Redis | None = None,
    ) -> None:
        super().__init__(name="timer-clock", daemon=True)
        self.client, self.now, self.every, self.jobs = client, now, every, jobs
        self._stopped = threading.Event()

    def run(self) -> None:
        failing = False
        while not self._stopped.wait(self.every):
            try:
                timers.fire_due(self.client, self.now(), self.jobs)
            except UNAVAILABLE:  # Redis away: try again next second, said once
                if not failing:
                    log.warning("the timer clock cannot reach Redis; it keeps trying")
                failing = True
                continue
            if failing:
                log.info("the timer clock reaches Redis again")
            failing = False

    def stop(self) -> None:
        self._stopped.set()
