"""A job due now is written as RQ itself would enqueue it, without RQ's objects (its
data left uncompressed, which RQ reads as well)."""

from __future__ import annotations

import time
import zlib
from typing import Any

import fakeredis
import redis
from rq import Queue

from service.infra import commit
from service.infra.queue import FAILURE_TTL, QUEUE, RESULT_TTL, RETRY, enqueue_now, job_id
from service.table.outcome import Job, JobKind

STAMPS = ("created_at", "enqueued_at")


def writes(pipe: redis.client.Pipeline) -> list[tuple[str, str, Any]]:
    """The recorded writes as (command, key, what), a hash's fields merged into one
    dict of bytes, its timestamps blanked and its data uncompressed."""
    seen: list[tuple[str, str, Any]] = []
    hashes: dict[str, dict[str, bytes]] = {}
    encoder = pipe.connection_pool.get_encoder()

    def encode(value: Any) -> bytes:
        return encoder.encode(value)  # type: ignore[no-untyped-call,no-any-return]

    for command, _options in pipe.command_stack:
        name, key, *rest = command
        if name == "HSET":
            fields = hashes.setdefault(key, {})
            if not any(k == key for _n, k, _w in seen):
                seen.append(("HSET", key, fields))
            pairs = zip(rest[::2], rest[1::2], strict=True)
            fields.update({k: b"" if k in STAMPS else encode(v) for k, v in pairs})
            if "data" in fields:
                fields["data"] = plain(fields["data"])
        else:
            seen.append((name, key, [encode(v) for v in rest]))
    pipe.reset()
    return sorted(seen, key=lambda write: (write[0], write[1]))


def plain(data: bytes) -> bytes:
    """A job's data as RQ's Job.restore reads it: inflated if it was deflated."""
    try:
        return zlib.decompress(data)
    except zlib.error:
        return data


def test_a_job_due_now_is_written_as_rq_writes_it() -> None:
    client = fakeredis.FakeRedis()
    for job in (
        Job(JobKind.SYNC, "abcd1234", "t-h100001-n", 0.0, tag="v17"),
        Job(JobKind.BOT_TURN, "abcd1234", "12:3", time.time() - 1),
    ):
        ours = commit.recorder(client)
        enqueue_now(ours, job)
        theirs = commit.recorder(client)
        Queue(QUEUE, connection=client).enqueue_call(
            f"workers.jobs.{job.kind}",
            args=(job.room, job.arg),
            job_id=job_id(job),
            retry=RETRY,
            pipeline=theirs,
            result_ttl=RESULT_TTL,
            failure_ttl=FAILURE_TTL,
        )
        assert writes(ours) == writes(theirs)


def test_a_job_so_written_is_one_rq_reads() -> None:
    client = fakeredis.FakeRedis()
    job = Job(JobKind.SYNC, "abcd1234", "t", 0.0, tag="v2")
    with client.pipeline() as pipe:
        pipe.multi()
        enqueue_now(pipe, job)
        pipe.execute()
    queue = Queue(QUEUE, connection=client)
    assert queue.job_ids == [job_id(job)]
    read = queue.fetch_job(job_id(job))
    assert read is not None
    assert (read.func_name, read.args, read.get_status()) == (
        "workers.jobs.sync",
        ("abcd1234", "t"),
        "queued",
    )
    assert (read.retries_left, read.retry_intervals, read.result_ttl) == (5, [1, 2, 5, 10, 30], 0)
