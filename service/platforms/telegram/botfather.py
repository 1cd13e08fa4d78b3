"""The bot's settings that only BotFather changes, as the service depends on them.

Inline mode (`/setinline`) is what "🃏 My cards" opens: `burro serve` reads it from
getMe at start and keeps it in Redis, so every process (the workers render the tables)
knows whether to offer the button; without it the table offers the private chat alone.
Inline feedback (`/setinlinefeedback`) and privacy mode (`/setprivacy`) need no such
flag: a card is played from the list either way, and the service reads only commands
and replies in groups.
"""

from __future__ import annotations

import time
import weakref
from typing import Any

import redis

from service.infra import logs
from service.infra.keys import BOT_INLINE

INLINE_KEY = BOT_INLINE  # "1" or "0", as getMe's supports_inline_queries said last
INLINE_KEPT = 5.0  # seconds a process keeps what it read (every message asks)
_inline_seen: weakref.WeakKeyDictionary[Any, tuple[float, bool]] = weakref.WeakKeyDictionary()

INLINE_ADVICE = (
    "In @BotFather: /setinline, choose the bot, send a placeholder such as 'g<room>'; "
    "then restart burro serve (it reads the setting when it starts)."
)
PRIVACY_ADVICE = (
    "Burro needs only commands and replies in groups: privacy mode on is enough "
    "(@BotFather: /setprivacy, the bot, Enable); off, the bot receives every message."
)
JOIN_GROUPS_ADVICE = "In @BotFather: /setjoingroups, the bot, Enable (tables live in groups)."


def record_inline_mode(client: redis.Redis, on: bool, username: str) -> None:
    """Keep getMe's supports_inline_queries for every process (`serve` at start), and
    say how to switch it on when it is off."""
    client.set(INLINE_KEY, "1" if on else "0")
    _inline_seen.clear()
    if not on:
        logs.get("burro.serve").warning(
            "inline mode is off: tables offer the private chat instead of 🃏 My cards",
            bot=username,
            advice=INLINE_ADVICE,
        )


def inline_mode(client: redis.Redis) -> bool:
    """Whether the bot has inline mode, as `burro serve` last found it (on when no
    serve has looked yet: the table then offers the button, as it always did)."""
    pool, now = client.connection_pool, time.monotonic()
    seen = _inline_seen.get(pool)
    if seen is None or now - seen[0] > INLINE_KEPT:
        seen = (now, client.get(INLINE_KEY) not in (b"0", "0"))
        _inline_seen[pool] = seen
    return seen[1]
