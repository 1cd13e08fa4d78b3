"""Telegram's send limits, held in Redis so that all workers share one budget.

Generic cell rate algorithm per limit: about 1 message a second per chat, 20 a minute
per group, 30 a second per bot. `reserve` takes a slot in all three at once, or says
how long to wait (the caller reschedules; nobody sleeps).
"""

from __future__ import annotations

import time

import redis

from service.infra import trips
from service.infra.keys import BOT_LIMIT, chat_limit_key, group_limit_key

# (key, seconds between messages, burst) per limit.
PER_CHAT = (1.0, 1)
PER_GROUP = (3.0, 20)
PER_BOT = (1.0 / 30, 30)

_SCRIPT = """
local now = tonumber(ARGV[1])
local wait = 0
local tats = {}
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[2 * i])
  local burst = tonumber(ARGV[2 * i + 1])
  local tat = tonumber(redis.call('GET', key) or now)
  if tat < now then tat = now end
  local new_tat = tat + interval
  local over = new_tat - now - burst * interval
  if over > wait then wait = over end
  tats[i] = new_tat
end
if wait > 0 then return tostring(wait) end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, tostring(tats[i]), 'PX', 120000)
end
return '0'
"""

ENABLED = True  # switched off by BURRO_RATE_LIMITS=0 (fast tests against a tolerant API)


def reserve(client: redis.Redis, chat_id: int, group: bool, now: float | None = None) -> float:
    """Take a send slot for `chat_id`: 0 if granted, else seconds to wait."""
    if not ENABLED:
        return 0.0
    limits = [(chat_limit_key(chat_id), *PER_CHAT), (BOT_LIMIT, *PER_BOT)]
    if group:
        limits.append((group_limit_key(chat_id), *PER_GROUP))
    args: list[float] = [now if now is not None else time.time()]
    for _key, interval, burst in limits:
        args += [interval, burst]
    result = trips.evaluate(client, _SCRIPT, [k for k, _i, _b in limits], *args)
    return float(result)
