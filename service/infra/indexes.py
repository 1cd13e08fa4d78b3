"""Reading the bucketed indexes (service.infra.keys: one sorted set per bucket and index):
each read goes to every bucket in one batch (a cluster's client sends each node its
part), and their answers are merged."""

from __future__ import annotations

from functools import cache
from typing import Any

import redis
from redis.typing import EncodableT

from service.infra import trips
from service.infra.keys import Index, bucket_key
from service.table.buckets import every_bucket

Client = redis.Redis | redis.RedisCluster


def due(client: Client, index: Index, before: float, limit: int) -> list[tuple[str, float]]:
    """The members of `index` scored up to `before`, earliest first, at most `limit`."""
    parts = each_bucket(client, _DUE, index, [before, limit])
    found = [
        (_text(m), float(s)) for part in parts for m, s in zip(part[::2], part[1::2], strict=True)
    ]
    return sorted(found, key=lambda pair: pair[1])[:limit]


def members(client: Client, index: Index) -> list[str]:
    """Every member of `index`."""
    return [_text(m) for part in each_bucket(client, _MEMBERS, index, []) for m in part]


def count(client: Client, index: Index) -> int:
    """How many members `index` holds."""
    return sum(int(part) for part in each_bucket(client, _COUNT, index, []))


def first(client: Client, index: Index) -> float | None:
    """The lowest score in `index`, if it holds any."""
    parts = each_bucket(client, _FIRST, index, [])
    return min((float(part[1]) for part in parts if part), default=None)


# One bucket's reads, as scripts on KEYS[1] (each_bucket runs them on every bucket).
_DUE = """return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES',
  'LIMIT', 0, tonumber(ARGV[2]))"""
_MEMBERS = "return redis.call('ZRANGE', KEYS[1], 0, -1)"
_COUNT = "return redis.call('ZCARD', KEYS[1])"
_FIRST = "return redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')"


def each_bucket(client: Client, source: str, index: Index, args: list[EncodableT]) -> list[Any]:
    """A one-key script (on KEYS[1]) run on every bucket of `index`; their answers, in
    bucket order. One Redis runs it for all the buckets in one call (it checks no
    slots: a clock looking every second costs one round trip, not 256); a cluster gets
    one call a bucket, in one batch (its client sends each node its part)."""
    keys = _bucket_keys(index)
    if not isinstance(client, redis.RedisCluster):
        every = _EVERY.format(body=source)
        return list(trips.evaluate(client, every, keys, *args))
    text = trips.lua(client, source)
    with client.pipeline(transaction=False) as pipe:  # type: ignore[no-untyped-call]
        for key in keys:  # (a cluster's pipeline has no `eval`: a command routed by its key)
            pipe.execute_command("EVAL", text, 1, key, *args)
        return list(pipe.execute())


@cache
def _bucket_keys(index: Index) -> list[str]:
    return [bucket_key(index, bucket) for bucket in every_bucket()]


# The body run once a key, its KEYS the one key: one Redis's script over every bucket.
_EVERY = """
local function one(KEYS)
{body}
end
local found = {{}}
for i = 1, #KEYS do found[i] = one({{KEYS[i]}}) end
return found
"""


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
