"""A room's change committed in one round trip: compare, then write, in one Lua script.
The room's presses queued for a worker (Store.aclaim) are part of what is compared: a
change is computed on the room with them applied first, so none is ever overtaken.

The writes are recorded on a pipeline that is never executed (RQ enqueues onto it as
onto any other) and sent as the script's arguments. The script writes them only if the
room is still exactly the bytes the change was computed from, and the update's dedupe
mark is not there yet: a compare-and-set, where WATCH + GET + MULTI/EXEC took three.

The writes name keys outside the script's KEYS (the chat's pointer, RQ's hashes): fine
for the single Redis the service runs on, not for a Redis Cluster.
"""

from __future__ import annotations

from typing import Literal

import redis
from redis.typing import EncodableT

from service.infra import trips


def write_from(first: int) -> str:
    """Lua that runs the writes recorded as arguments from ARGV[first] on (as_args)."""
    return f"""
local i = {first}
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end"""


# KEYS[1]: the room; KEYS[2]: its queued presses; KEYS[3], if any: the update's mark.
# ARGV[1]: the room as read; ARGV[2]: how many queued presses the change applied (they
# are the list's first: its length must be that still); then each write as its argument
# count and its arguments.
_COMMIT = (
    """
if KEYS[3] and redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if current ~= ARGV[1] or redis.call('LLEN', KEYS[2]) ~= tonumber(ARGV[2]) then return 2 end
redis.call('DEL', KEYS[2])
"""
    + write_from(3)
    + """
return 1
"""
)

Committed = Literal["gone", "committed", "changed"]
_ANSWERS: tuple[Committed, ...] = ("gone", "committed", "changed")


def recorder(client: redis.Redis) -> redis.client.Pipeline:
    """A pipeline to record writes on for `commit` (it is never executed). In MULTI mode
    from the start, as RQ wants the pipelines it enqueues onto."""
    pipe = client.pipeline()
    pipe.multi()
    return pipe


def as_args(writes: redis.client.Pipeline) -> list[EncodableT]:
    """What `writes` recorded, as a script's arguments: each command's argument count,
    then its arguments (the scripts' loop `unpack`s them); the pipeline is emptied."""
    args: list[EncodableT] = []
    for command, _options in writes.command_stack:
        args.append(len(command))
        args.extend(command)
    writes.reset()
    return args


def commit(
    room_key: str,
    queue_key: str,
    applied: int,
    mark_key: str | None,
    read: bytes | str,
    writes: redis.client.Pipeline,
) -> trips.Steps[Committed]:
    """Write what `writes` recorded if the room is still `read`, its queue of presses
    still the `applied` the change took in (they go), and the mark is not set:
    "committed"; "gone" if the room is gone or the update was handled already;
    "changed" if the room changed or a press was queued since it was read (nothing is
    written). One round trip, run by either client (service.infra.trips)."""
    args: list[EncodableT] = [read, applied, *as_args(writes)]
    keys = [room_key, queue_key] if mark_key is None else [room_key, queue_key, mark_key]
    found = yield trips.Script(_COMMIT, keys, args)
    return _ANSWERS[int(found)]
