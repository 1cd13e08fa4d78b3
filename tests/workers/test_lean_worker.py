"""BurroWorker's cuts to RQ's own round trips a job (issue #40): a job taken, started and
ended in one round trip each, heartbeats and suspension checks at most once a second, without
changing what a job leaves in Redis, where a failed one goes, or what a worker killed
mid-job leaves for RQ's abandoned-job handling."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from rq import Queue, SimpleWorker
from rq.job import Job, JobStatus
from rq.registry import FailedJobRegistry, ScheduledJobRegistry, StartedJobRegistry

from bench import rq_trips
from bench.counting import counting_client, since, snapshot
from service.infra.queue import QUEUE
from service.infra.redis_server import RedisServer
from service.infra.store import text
from workers.worker import BurroQueue, BurroWorker


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    with RedisServer(tmp_path_factory.mktemp("redis"), persist=False) as running:
        yield running


@pytest.fixture
def client(server: RedisServer) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(server.url)
    client.flushall()
    yield client
    client.flushall()


def keyspace(client: redis.Redis) -> dict[str, Any]:
    """Every key, its type and members (a hash's fields, not their values: those hold
    times), and whether it expires."""
    return {text(raw): shape(client, text(raw)) for raw in client.scan_iter()}


def shape(client: redis.Redis, key: str) -> tuple[str, Any, bool]:
    kind = text(client.type(key))
    members: Any = None
    if kind == "hash":
        members = sorted(client.hkeys(key))
    elif kind == "zset":
        members = client.zrange(key, 0, -1)
    elif kind == "set":
        members = sorted(client.smembers(key))
    elif kind == "list":
        members = client.lrange(key, 0, -1)
    return kind, members, client.ttl(key) == -1


def test_the_bench_counts_a_few_round_trips_a_job(server: RedisServer) -> None:
    figures = rq_trips.measure(server.url, jobs=50, failing=2)
    assert 0 < figures["ok"] <= 4  # RQ's own worker: 30
    assert figures["failed"] > 0
    assert rq_trips.main(["--jobs", "5"]) == 0


class RQWorker(SimpleWorker):
    """RQ's own worker, with our pubsub wake: redis-py 8.2 otherwise makes its end wait a
    minute, and its record in Redis (kept 60 s after its death) would be gone."""

    subscribe = BurroWorker.subscribe


def test_jobs_leave_in_redis_what_rqs_own_worker_leaves(server: RedisServer) -> None:
    shapes = []
    client = redis.Redis.from_url(server.url)
    for worker_class in (RQWorker, BurroWorker):
        client.flushdb()
        rq_trips.enqueue(client, 3, "nothing", "ok")
        rq_trips.enqueue(client, 2, "fail", "bad")  # retried later: RETRY
        worker = worker_class([QUEUE], connection=client, name="w")
        worker.work(burst=True, logging_level="CRITICAL")
        shapes.append(keyspace(client))
        assert StartedJobRegistry(QUEUE, connection=client).get_job_ids() == []
    assert shapes[1] == shapes[0]
    assert not any(key.startswith("rq:job:ok") for key in shapes[1])  # a finished job's


def test_a_failed_job_goes_to_the_failed_registry(client: redis.Redis) -> None:
    job = Queue(QUEUE, connection=client).enqueue(rq_trips.fail, "1", result_ttl=0)

    BurroWorker([QUEUE], connection=client).work(burst=True, logging_level="CRITICAL")

    assert job.id in FailedJobRegistry(QUEUE, connection=client).get_job_ids()
    assert job.get_status(refresh=True) == JobStatus.FAILED
    assert StartedJobRegistry(QUEUE, connection=client).get_job_ids() == []


def test_a_job_whose_worker_died_midway_is_retried(client: redis.Redis) -> None:
    rq_trips.enqueue(client, 1, "nothing", "lost")
    worker = BurroWorker([QUEUE], connection=client)
    worker.register_birth()  # type: ignore[no-untyped-call]
    job = Job.fetch("lost-0", connection=client)
    # the worker's start of the job, in one round trip; then it is killed
    worker.prepare_execution(job)
    worker.prepare_job_execution(job, remove_from_intermediate_queue=True)

    started = StartedJobRegistry(QUEUE, connection=client)
    assert started.get_job_ids(cleanup=False) == ["lost-0"]
    assert job.get_status(refresh=True) == JobStatus.STARTED
    started.cleanup(timestamp=time.time() + 10_000)  # its entry expired: RQ's maintenance
    scheduled = ScheduledJobRegistry(QUEUE, connection=client)  # type: ignore[no-untyped-call]
    assert "lost-0" in scheduled.get_job_ids()


def test_a_worker_beats_at_most_once_a_second_unless_refused(server: RedisServer) -> None:
    worker = BurroWorker([QUEUE], connection=counting_client(server.url, "beats"))
    worker.register_birth()  # type: ignore[no-untyped-call]
    before = snapshot()
    worker.heartbeat()
    worker.heartbeat()
    assert since(before, "beats")["round_trips"] == 1
    worker.refused(redis.RedisError("full"))
    worker.heartbeat()  # a refusing Redis is asked every time: it tells when it is back
    assert since(before, "beats")["round_trips"] == 2
    assert not worker.refusing
    assert worker.connection.ttl(worker.key) > worker.worker_ttl


def test_a_worker_is_idle_after_a_job(client: redis.Redis) -> None:
    rq_trips.enqueue(client, 1, "nothing", "one")
    worker = BurroWorker([QUEUE], connection=client)
    worker.register_birth()  # type: ignore[no-untyped-call]
    job = Job.fetch("one-0", connection=client)

    worker.execute_job(job, Queue(QUEUE, connection=client))

    assert client.hget(worker.key, "state") == b"idle"
    assert client.hget(worker.key, "successful_job_count") == b"1"
    assert not client.exists(job.key)


def test_a_waiting_job_is_taken_and_read_in_one_round_trip(server: RedisServer) -> None:
    connection = counting_client(server.url, "take")
    connection.flushdb()
    queue = BurroQueue(QUEUE, connection=connection)
    assert BurroQueue.dequeue_any([queue], None, connection=connection) is None  # nothing yet
    rq_trips.enqueue(connection, 1, "nothing", "waiting")
    before = snapshot()

    found = BurroQueue.dequeue_any([queue], None, connection=connection)

    assert since(before, "take")["round_trips"] == 1  # RQ's: LMOVE, then HGETALL
    assert found is not None
    job, taken_from = found
    assert (job.id, job.func_name, job.args) == ("waiting-0", "bench.rq_trips.nothing", ("0",))
    assert taken_from is queue
    assert connection.lrange(queue.intermediate_queue_key, 0, -1) == [b"waiting-0"]  # as RQ's


def test_a_queued_job_whose_hash_is_gone_is_skipped(client: redis.Redis) -> None:
    queue = BurroQueue(QUEUE, connection=client)
    client.rpush(queue.key, "gone")  # its hash deleted since (RQ skips it too)
    rq_trips.enqueue(client, 1, "nothing", "here")

    found = BurroQueue.dequeue_any([queue], None, connection=client)

    assert found is not None and found[0].id == "here-0"


def test_a_worker_takes_rqs_own_queues_and_names(client: redis.Redis) -> None:
    given = BurroWorker([Queue(QUEUE, connection=client)], connection=client)
    named = BurroWorker([QUEUE], connection=client)
    assert [q.name for q in given.queues] == [q.name for q in named.queues] == [QUEUE]
    with pytest.raises(TypeError):
        BurroWorker([object()], connection=client)
