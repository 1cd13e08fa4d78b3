"""The bot's settings that only BotFather changes, as the service depends on them, and
what the deployed Bot API can do.

Inline mode (`/setinline`) is what "🃏 My cards" opens: `burro serve` reads it from
getMe at start and keeps it in Redis, so every process (the workers render the tables)
knows whether to offer the button; without it the table offers the private chat alone.
Inline feedback (`/setinlinefeedback`) and privacy mode (`/setprivacy`) need no such
flag: a card is played from the list either way, and the service reads only commands
and replies in groups.

Ephemeral messages (Bot API 10.2+, "🃏 My cards" shown to the presser alone in the
group) are what the deployed Bot API takes or not: `burro serve` probes at start
(`probe_ephemeral`) and keeps the answer beside inline mode; where it does not, the hand
lives in the private chat (and inline mode) as before. Widgets (Bot API 10.4: a hand
drawn in the private chat) are probed the same way (`probe_widgets`) and kept beside
them; where the Bot API does not take them, hands are text.
"""

from __future__ import annotations

import time
import weakref
from typing import Any

import redis

from service.infra import logs
from service.infra.keys import BOT_EPHEMERAL, BOT_INLINE, BOT_WIDGETS

INLINE_KEY = BOT_INLINE  # "1" or "0", as getMe's supports_inline_queries said last
EPHEMERAL_KEY = BOT_EPHEMERAL  # "1" or "0", as serve's probe found the Bot API
WIDGETS_KEY = BOT_WIDGETS  # "1" or "0", as serve's widget probe found the Bot API
KEPT = 5.0  # seconds a process keeps what it read (every message asks)
_seen: weakref.WeakKeyDictionary[Any, dict[str, tuple[float, bool]]] = weakref.WeakKeyDictionary()

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
    _seen.clear()
    if not on:
        logs.get("burro.serve").warning(
            "inline mode is off: tables offer the private chat instead of 🃏 My cards",
            bot=username,
            advice=INLINE_ADVICE,
        )


def record_ephemeral(client: redis.Redis, on: bool) -> None:
    """Keep whether the Bot API takes ephemeral messages, for every process."""
    client.set(EPHEMERAL_KEY, "1" if on else "0")
    _seen.clear()
    if not on:
        logs.get("burro.serve").warning(
            "the Bot API refuses ephemeral messages: hands stay in the private chat"
        )


def record_widgets(client: redis.Redis, on: bool) -> None:
    """Keep whether the Bot API takes widgets, for every process."""
    client.set(WIDGETS_KEY, "1" if on else "0")
    _seen.clear()
    if not on:
        logs.get("burro.serve").warning("the Bot API refuses widgets: hands are text")


def widgets(client: redis.Redis) -> bool:
    """Whether hands may be drawn as widgets (Bot API 10.4), as `burro serve` last found
    it (off until a probe said so)."""
    return _flag(client, WIDGETS_KEY, default=False)


def inline_mode(client: redis.Redis) -> bool:
    """Whether the bot has inline mode, as `burro serve` last found it (on when no
    serve has looked yet: the table then offers the button, as it always did)."""
    return _flag(client, INLINE_KEY, default=True)


def ephemeral(client: redis.Redis) -> bool:
    """Whether a group member may be shown their hand alone (ephemeral messages), as
    `burro serve` last found it (off until a probe said so)."""
    return _flag(client, EPHEMERAL_KEY, default=False)


def _flag(client: redis.Redis, key: str, default: bool) -> bool:
    """The flag as last read (again after KEPT seconds); with Redis away, what was read
    before, else `default`: reading an update must not fail on it (the update's own
    work answers 503 then)."""
    # by the client's pool (a cluster's client has none: by the client itself)
    pool, now = getattr(client, "connection_pool", client), time.monotonic()
    seen = _seen.setdefault(pool, {})
    kept = seen.get(key)
    if kept is None or now - kept[0] > KEPT:
        try:
            value = client.get(key)
        except redis.RedisError:
            return default if kept is None else kept[1]
        on = default if value is None else value in (b"1", "1")
        kept = seen[key] = (now, on)
    return kept[1]
