"""WhatsApp's two clocks on what we may send a person, kept in Redis for every process.

The customer-service window (cloud-api/guides/send-messages#customer-service-windows):
free-form and interactive messages only within 24 hours of the person's last message
to us (a tap counts); outside it only an approved template, else Meta fails the message
with 131047. We note each inbound message's time and send a template once the window
is about to close.

Pacing (cloud-api/overview#pair-rate-limits): about one message per 6 seconds to the
same person, with short bursts; past it Meta answers 131056. Messages sent very close
together may also arrive out of order, so two messages to one person are a sixth of
the interval apart (a second at 6 s). Both as one Redis script, a GCRA bucket per person.

Turns left unseen: a table's message that could not go for the closed window (only one
template goes per window, and it names one table) is noted on the person (a field
`unseen:<room>` of their `user:` hash, forgotten with it), and every turn still waiting
at those tables is sent again once they write (`take_unseen`). Which room a sent message
showed is kept a day (`wa_sent_key`): a failure's status names the message only.
"""

from __future__ import annotations

import redis

from service.infra import keys, trips
from service.infra.store import text

WINDOW = 24 * 3600  # seconds after a person's last message that free-form messages may go
MARGIN = 120  # seconds before the window closes that we no longer count on it
BURST = 3  # messages to one person that may go back to back (then one per `interval`)
GAP = 1 / 6  # of the interval: between two messages to one person, so they come in order

_PACE = """
local now, interval, burst, gap = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]),
    tonumber(ARGV[4])
local tat = tonumber(redis.call('HGET', KEYS[1], 'tat') or '0')
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
if tat < now then tat = now end
local wait = math.max(tat - interval * (burst - 1) - now, last + gap - now)
if wait > 0 then return tostring(wait) end
redis.call('HSET', KEYS[1], 'tat', tostring(tat + interval), 'last', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(interval * burst + gap) + 1)
return '0'
"""


def user_key(player: int) -> str:
    return keys.user_key(player)


_NOTE_INBOUND = (
    "local old = tonumber(redis.call('HGET', KEYS[1], 'last_in') or '0') "
    "if tonumber(ARGV[1]) > old then redis.call('HSET', KEYS[1], 'last_in', ARGV[1]) end"
)
_CLOSE = (
    "local last = tonumber(redis.call('HGET', KEYS[1], 'last_in') or '0') "
    "if last >= tonumber(ARGV[1]) then return 0 end "
    "redis.call('HSET', KEYS[1], 'last_in', '0') return 1"
)


def note_inbound(client: redis.Redis, player: int, at: float) -> None:
    """The person wrote (or tapped) at `at`: their window runs from then."""
    trips.evaluate(client, _NOTE_INBOUND, [user_key(player)], repr(at))


def last_inbound(client: redis.Redis, player: int) -> float | None:
    found = client.hget(user_key(player), "last_in")
    return float(text(found)) if found is not None else None


def is_open(client: redis.Redis, player: int, now: float) -> bool:
    """Whether a free-form message to the person is still welcome."""
    last = last_inbound(client, player)
    return last is not None and now < last + WINDOW - MARGIN


def close(client: redis.Redis, player: int, at: float) -> bool:
    """Meta failed a message at `at` for the closed window (131047): count on it no
    more, unless the person wrote since (statuses come late: a tap after the failure
    has opened a new window, and what it asked for is on its way). Whether it closed."""
    closed = trips.evaluate(client, _CLOSE, [user_key(player)], repr(at))
    return bool(closed)


UNSEEN = "unseen:"  # a field of the person's hash per table whose message did not go
SENT_TTL = 24 * 3600  # seconds a sent message's room is kept (Meta's statuses come soon)
_TAKE_UNSEEN = """
local all, out = redis.call('HGETALL', KEYS[1]), {}
for i = 1, #all, 2 do
  if string.sub(all[i], 1, #ARGV[1]) == ARGV[1] then
    table.insert(out, string.sub(all[i], #ARGV[1] + 1))
    table.insert(out, all[i + 1])
    redis.call('HDEL', KEYS[1], all[i])
  end
end
return out
"""


def note_unseen(client: redis.Redis, player: int, room_id: str, at: float) -> None:
    """A message of the room could not go to the person (their window is closed)."""
    client.hset(user_key(player), UNSEEN + room_id, repr(at))


def note_sent(client: redis.Redis, player: int, wamid: str, room_id: str) -> None:
    """A message showing the room went to the person: it was seen (or its failure's
    status will say it was not, naming `wamid`)."""
    with client.pipeline(transaction=False) as pipe:
        pipe.hdel(user_key(player), UNSEEN + room_id)
        pipe.set(keys.wa_sent_key(wamid), room_id, ex=SENT_TTL)
        pipe.execute()


def room_sent(client: redis.Redis, wamid: str) -> str | None:
    """The room a message we sent showed, if it is still kept."""
    found = client.get(keys.wa_sent_key(wamid))
    return None if found is None else text(found)


def take_unseen(client: redis.Redis, player: int) -> list[str]:
    """The rooms whose messages did not go to the person, oldest first; forgotten here
    (the caller sends them again)."""
    flat = [text(item) for item in trips.evaluate(client, _TAKE_UNSEEN, [user_key(player)], UNSEEN)]
    noted = sorted(zip(flat[1::2], flat[0::2], strict=True), key=lambda pair: float(pair[0]))
    return [room_id for _at, room_id in noted]


def pace(
    client: redis.Redis, player: int, now: float, interval: float, ordered: bool = True
) -> float:
    """Take a slot to send the person a message: 0, or seconds to wait (none taken);
    not `ordered`: a message that may come before the last one (no gap after it)."""
    gap = interval * GAP if ordered else 0.0
    found = trips.evaluate(
        client, _PACE, [keys.wa_pace_key(player)], repr(now), interval, BURST, gap
    )
    return float(text(found))
