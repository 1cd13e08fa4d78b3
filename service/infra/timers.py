"""A room's phase timers (its reminder, its turn's end, the game's own clock) wait as the
room's place in a sorted set, `rooms:timers` (a key per bucket), not as RQ jobs: a
scheduled RQ job's hash is 0.5–2 KB, most of what a game resting between moves holds.

Each worker's clock (workers.timer_clock) looks once a second for the rooms whose timer
has come due, claims them in one Lua call a bucket (so one worker takes each), all the
buckets in one batch, and queues a
`timer` job for each: it does what the room's clock says is due now
(service.table.play.due_timer). A claim moves the room's place `LEASE` seconds on: a
job lost with its worker is queued again then. The move the job commits sets the
room's place anew (Store._write), as every move does.
"""

from __future__ import annotations

import redis
from redis.typing import EncodableT

from service.infra import indexes, trips
from service.infra.keys import TIMERS_KEY, index_key
from service.infra.queue import schedule
from service.table.outcome import Job, JobKind

Client = redis.Redis | redis.RedisCluster
LEASE = 60.0  # seconds: a claimed timer comes due again if its job has not moved it
BATCH = 100  # rooms claimed per bucket and look

# KEYS[1]: a bucket of rooms:timers. ARGV: now, the lease's end, how many at most.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, room in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], room) end
return due
"""


def claim_due(client: Client, now: float, limit: int = BATCH) -> list[str]:
    """The rooms whose timer is due by `now`, each claimed for `LEASE` seconds (at most
    `limit` a bucket)."""
    found = indexes.each_bucket(client, _CLAIM, TIMERS_KEY, [now, now + LEASE, limit])
    return [room.decode() for part in found for room in part]


def fire_due(client: Client, now: float, jobs: redis.Redis | None = None) -> int:
    """Queue a `timer` job (on `jobs`: RQ's Redis, if not the same) for every room whose
    timer is due by `now`; how many."""
    rooms = claim_due(client, now)
    if not rooms:
        return 0
    queue = jobs if jobs is not None else client
    assert isinstance(queue, redis.Redis), "RQ's Redis is one node"
    with queue.pipeline() as pipe:
        pipe.multi()
        for room in rooms:  # id `timer-<room>-<when seen>`: a later claim is a job of its own
            schedule(queue, pipe, Job(JobKind.TIMER, room, str(int(now)), 0.0))
        pipe.execute()
    return len(rooms)


# KEYS[1]: the room, KEYS[2]: its bucket of rooms:timers. ARGV: the room as read, its
# id, when ('': none).
_WAKE_IF_SAME = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[2], ARGV[2])
else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2]) end
return 1
"""


def wake_at(client: redis.client.Pipeline, room_id: str, at: float) -> None:
    """Let the room's timer come due at `at` (written with a change of the room)."""
    client.zadd(index_key(TIMERS_KEY, room_id), {room_id: at})


def wake_if_same(
    client: Client, room_key: str, read: bytes | str, room_id: str, at: float | None
) -> bool:
    """Let the room's timer come due at `at` (None: drop it), unless the room changed
    since it was `read`: a move meanwhile set the timer of its own phase."""
    when = "" if at is None else repr(at)
    keys = [room_key, index_key(TIMERS_KEY, room_id)]
    return bool(trips.run(client, _wake(keys, [read, room_id, when])))


def _wake(keys: list[str], args: list[EncodableT]) -> trips.Steps[object]:
    return (yield trips.Script(_WAKE_IF_SAME, keys, args))


def drop(client: Client | redis.client.Pipeline, room_id: str) -> None:
    """The room has no timer waiting (its phase has none, or it ended)."""
    client.zrem(index_key(TIMERS_KEY, room_id), room_id)


def next_due(client: Client) -> float | None:
    """When the earliest timer of any room is due, if any waits."""
    return indexes.first(client, TIMERS_KEY)
