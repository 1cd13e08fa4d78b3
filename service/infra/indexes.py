"""Reading the bucketed indexes (service.infra.keys: one sorted set per bucket and index):
each read goes to every bucket in one batch (a cluster's client sends each node its
part), and their answers are merged."""

from __future__ import annotations

import redis
from redis.typing import EncodableT

from service.infra import trips
from service.infra.keys import Index, bucket_key
from service.table.buckets import every_bucket

Client = redis.Redis | redis.RedisCluster


def due(client: Client, index: Index, before: float, limit: int) -> list[tuple[str, float]]:
    """The members of `index` scored up to `before`, earliest first, at most `limit`."""
    with client.pipeline(transaction=False) as pipe:
        for bucket in every_bucket():
            pipe.zrangebyscore(bucket_key(index, bucket), "-inf", before, 0, limit, withscores=True)
        found = [(_text(m), float(s)) for part in pipe.execute() for m, s in part]
    return sorted(found, key=lambda pair: pair[1])[:limit]


def members(client: Client, index: Index) -> list[str]:
    """Every member of `index`."""
    with client.pipeline(transaction=False) as pipe:
        for bucket in every_bucket():
            pipe.zrange(bucket_key(index, bucket), 0, -1)
        return [_text(m) for part in pipe.execute() for m in part]


def count(client: Client, index: Index) -> int:
    """How many members `index` holds."""
    with client.pipeline(transaction=False) as pipe:
        for bucket in every_bucket():
            pipe.zcard(bucket_key(index, bucket))
        return sum(pipe.execute())


def first(client: Client, index: Index) -> float | None:
    """The lowest score in `index`, if it holds any."""
    with client.pipeline(transaction=False) as pipe:
        for bucket in every_bucket():
            pipe.zrange(bucket_key(index, bucket), 0, 0, withscores=True)
        scores = [float(part[0][1]) for part in pipe.execute() if part]
    return min(scores, default=None)


def each_bucket(
    client: Client, source: str, index: Index, args: list[EncodableT]
) -> list[list[bytes]]:
    """A one-key script run on every bucket of `index` in one batch; their answers."""
    text = trips.SHEBANG + source if trips.shebang(client) else source
    with client.pipeline(transaction=False) as pipe:
        for bucket in every_bucket():
            # (a cluster's pipeline has no `eval`: the command itself is routed by its key)
            pipe.execute_command("EVAL", text, 1, bucket_key(index, bucket), *args)
        return list(pipe.execute())


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def move_unbucketed(client: Client) -> int:
    """Entries of an index kept under its bare name (before buckets) moved into their
    buckets, once (a worker does it at its start); how many. Only one Redis held those."""
    from service.infra.keys import INDEXES, index_key

    moved = 0
    for index in INDEXES:
        if not isinstance(client, redis.Redis) or client.type(index) not in (b"zset", "zset"):
            continue
        entries: list[tuple[bytes, float]] = client.zrange(index, 0, -1, withscores=True)  # type: ignore[assignment]
        with client.pipeline() as pipe:
            for member, score in entries:
                name = _text(member)
                pipe.zadd(index_key(index, name.split("|", 1)[0]), {name: score})
            pipe.delete(index)
            pipe.execute()
        moved += len(entries)
    return moved


def score(client: Client, index: Index, member: str) -> float | None:
    """A member's score in `index` (its room is the part before any `|`)."""
    from service.infra.keys import index_key

    found = client.zscore(index_key(index, member.split("|", 1)[0]), member)
    return None if found is None else float(found)


def clear(client: Client, index: Index) -> None:
    """Every bucket of `index` emptied."""
    with client.pipeline(transaction=False) as pipe:
        for bucket in every_bucket():
            pipe.delete(bucket_key(index, bucket))
        pipe.execute()
