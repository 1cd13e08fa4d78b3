"""A room's change committed in one round trip: compare, then write, in one Lua script.
The room's presses queued for a worker (Store.aclaim) are part of what is compared: a
change is computed on the room with them applied first, so none is ever overtaken.

The writes are recorded on a pipeline that is never executed (RQ enqueues onto it as
onto any other) and sent as the script's arguments, every key they name declared in its
KEYS. The script writes them only if the room is still exactly the bytes the change was
computed from: a compare-and-set, where WATCH + GET + MULTI/EXEC took three. Whether the
update was handled already is the room's to say (Room.handled), so a commit touches
nothing outside the room's slot on a cluster.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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


# KEYS[1]: the room; KEYS[2]: its queued presses; then every key the writes name.
# ARGV[1]: the room as read; ARGV[2]: how many queued presses the change applied (they
# are the list's first: its length must be that still); then each write as its argument
# count and its arguments.
_COMMIT = (
    """
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

WRITE_ALL = write_from(1) + "\nreturn 1"  # writes only (`as_args`), keys declared

Committed = Literal["gone", "committed", "changed"]
_ANSWERS: tuple[Committed, ...] = ("gone", "committed", "changed")
_KEYLESS = {"PUBLISH"}  # its first argument is a channel
_ALL_KEYS = {"DEL", "UNLINK", "EXISTS"}


_RECORDING = redis.Redis()  # never connects: its pipelines only record (a cluster's too)


def recorder(client: redis.Redis | redis.RedisCluster) -> redis.client.Pipeline:
    """A pipeline to record writes on for `commit` (it is never executed). In MULTI mode
    from the start, as RQ wants the pipelines it enqueues onto."""
    pipe = (_RECORDING if isinstance(client, redis.RedisCluster) else client).pipeline()
    pipe.multi()
    return pipe


def keys_of(writes: redis.client.Pipeline) -> list[str]:
    """Every key the recorded writes name, once each, in order."""
    return command_keys([command for command, _options in writes.command_stack])


def command_keys(commands: Iterable[Sequence[EncodableT]]) -> list[str]:
    """Every key the commands name, once each, in order."""
    found: dict[str, None] = {}
    for command in commands:
        name = str(command[0]).upper()
        named = command[1:] if name in _ALL_KEYS else () if name in _KEYLESS else command[1:2]
        found.update(dict.fromkeys(map(_text, named)))
    return list(found)


def as_args(writes: redis.client.Pipeline) -> list[EncodableT]:
    """What `writes` recorded, as a script's arguments (`script_args`); the pipeline is
    emptied."""
    args = script_args([command for command, _options in writes.command_stack])
    writes.reset()
    return args


def script_args(commands: Iterable[Sequence[EncodableT]]) -> list[EncodableT]:
    """Commands as a script's arguments: each command's argument count, then its
    arguments (the scripts' loop `unpack`s them)."""
    args: list[EncodableT] = []
    for command in commands:
        args.append(len(command))
        args.extend(command)
    return args


def as_commands(writes: redis.client.Pipeline) -> list[tuple[EncodableT, ...]]:
    """What `writes` recorded, as commands to send in a batch; the pipeline is emptied."""
    commands = [tuple(command) for command, _options in writes.command_stack]
    writes.reset()
    return commands


def commit(
    room_key: str,
    queue_key: str,
    applied: int,
    read: bytes | str,
    writes: redis.client.Pipeline,
    durable: trips.Durable | None = None,
) -> trips.Steps[Committed]:
    """Write what `writes` recorded if the room is still `read` and its queue of presses
    still the `applied` the change took in (they go): "committed"; "gone" if the room is
    gone; "changed" if the room changed or a press was queued since it was read (nothing
    is written). One round trip, run by either client (service.infra.trips); `durable`:
    answered once replicas have it."""
    keys = [room_key, queue_key, *(k for k in keys_of(writes) if k not in (room_key, queue_key))]
    args: list[EncodableT] = [read, applied, *as_args(writes)]
    found = yield trips.Script(_COMMIT, keys, args, durable)
    return _ANSWERS[int(found)]


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
