"""A room's phase timers (its reminder, its turn's end, the game's own clock) wait as the
room's place in one sorted set, `rooms:timers`, not as RQ jobs: a scheduled RQ job's
hash is 0.5–2 KB, most of what a game resting between moves would hold.

Each worker's clock (workers.timer_clock) looks once a second for the rooms whose timer
has come due, claims them in one Lua call (so one worker takes each) and queues a
`timer` job for each: it does what the room's clock says is due now
(service.table.play.due_timer). A claim moves the room's place `LEASE` seconds on: a
job lost with its worker is queued again then. The move the job commits sets the
room's place anew (Store._write), as every move does.
"""

from __future__ import annotations

import redis

from service.infra.keys import TIMERS_KEY
from service.infra.queue import schedule
from service.table.outcome import Job, JobKind

LEASE = 60.0  # seconds: a claimed timer comes due again if its job has not moved it
BATCH = 200  # rooms claimed per look

# KEYS[1]: rooms:timers. ARGV: now, the lease's end, how many at most.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, room in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], room) end
return due
"""


def claim_due(client: redis.Redis, now: float, limit: int = BATCH) -> list[str]:
    """The rooms whose timer is due by `now`, each claimed for `LEASE` seconds."""
    found = client.eval(_CLAIM, 1, TIMERS_KEY, now, now + LEASE, limit)
    return [room.decode() if isinstance(room, bytes) else str(room) for room in found]


def fire_due(client: redis.Redis, now: float) -> int:
    """Queue a `timer` job for every room whose timer is due by `now`; how many."""
    rooms = claim_due(client, now)
    if not rooms:
        return 0
    with client.pipeline() as pipe:
        pipe.multi()
        for room in rooms:  # id `timer-<room>-<when seen>`: a later claim is a job of its own
            schedule(client, pipe, Job(JobKind.TIMER, room, str(int(now)), 0.0))
        pipe.execute()
    return len(rooms)


# KEYS[1]: the room, KEYS[2]: rooms:timers. ARGV: the room as read, its id, when ('': none).
_WAKE_IF_SAME = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[2], ARGV[2])
else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2]) end
return 1
"""


def wake_at(client: redis.Redis | redis.client.Pipeline, room_id: str, at: float) -> None:
    """Let the room's timer come due at `at` (written with a change of the room)."""
    client.zadd(TIMERS_KEY, {room_id: at})


def wake_if_same(
    client: redis.Redis, room_key: str, read: bytes | str, room_id: str, at: float | None
) -> bool:
    """Let the room's timer come due at `at` (None: drop it), unless the room changed
    since it was `read`: a move meanwhile set the timer of its own phase."""
    when = "" if at is None else repr(at)
    return bool(client.eval(_WAKE_IF_SAME, 2, room_key, TIMERS_KEY, read, room_id, when))


def drop(client: redis.Redis | redis.client.Pipeline, room_id: str) -> None:
    """The room has no timer waiting (its phase has none, or it ended)."""
    client.zrem(TIMERS_KEY, room_id)


def next_due(client: redis.Redis) -> float | None:
    """When the earliest timer of any room is due, if any waits."""
    first = client.zrange(TIMERS_KEY, 0, 0, withscores=True)
    return float(first[0][1]) if first else None
