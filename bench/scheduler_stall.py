"""How long scheduled work waits after the worker running RQ's scheduler is SIGKILLed.

    python -m bench.scheduler_stall [--trials 3]

Timers, delayed bot moves, retries and the sweeper are RQ scheduled jobs; one worker's
scheduler moves them to the queue when due, holding a lock in Redis. Each trial starts
two `burro worker`s (real Redis), finds the one holding the scheduler lock, SIGKILLs it,
starts a replacement, schedules a job due one second later, and times when it runs.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import redis
from rq import Queue
from rq.job import Job

from bench.procs import machine
from service.infra.queue import QUEUE
from service.infra.redis_server import RedisServer, connect
from workers.worker import scheduler_pid


def worker(url: str, folder: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "BURRO_REDIS_URL": url,
        "BURRO_TELEGRAM_TOKEN": "1:x",
        "BURRO_TELEGRAM_API_URL": "http://127.0.0.1:9",
    }
    log = (folder / "workers.log").open("ab")
    return subprocess.Popen(
        [sys.executable, "-m", "cli.main", "worker"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip


def holder_pid(client: redis.Redis, timeout: float = 30.0) -> int:
    """The pid of the scheduler process (a child of its worker) that holds the lock."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pid = scheduler_pid(client, QUEUE)
        if pid is not None:
            return pid
        time.sleep(0.2)
    raise RuntimeError("no scheduler took the lock")


def trial(url: str, folder: Path) -> float:
    client = connect(url)
    workers = [worker(url, folder), worker(url, folder)]
    try:
        pid = holder_pid(client)
        victim = next((w for w in workers if os.getpgid(pid) == w.pid), None)
        assert victim is not None, f"no worker owns scheduler pid {pid}"
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait(timeout=10)
        workers.append(worker(url, folder))
        queue = Queue(QUEUE, connection=client)
        killed = time.time()
        job = queue.enqueue_at(
            datetime.now(UTC) + timedelta(seconds=1), "workers.jobs.sync", "gone0000", "table"
        )
        while time.time() - killed < 300:
            if Job.fetch(job.id, connection=client).get_status() == "finished":
                return time.time() - killed
            time.sleep(0.2)
        return float("inf")
    finally:
        for w in workers:
            if w.poll() is None:
                os.killpg(w.pid, signal.SIGKILL)
                w.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    waits = []
    for _ in range(args.trials):
        with tempfile.TemporaryDirectory(prefix="burro-stall-") as tmp, RedisServer(
            Path(tmp) / "redis", persist=False
        ) as redis:  # fmt: skip
            waits.append(round(trial(redis.url, Path(tmp)), 1))
    print(json.dumps({"machine": machine(), "seconds_until_a_job_due_in_1s_ran": waits,
                      "median": statistics.median(waits)}))  # fmt: skip


if __name__ == "__main__":
    main()
