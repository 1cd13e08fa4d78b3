"""What an update is about to read, fetched with its claim in one round trip
(`Store.claim`) and kept for the request that claimed it: each key is taken once, and
dropped when the request writes it, so nothing read later is older than a write."""

from __future__ import annotations

import contextvars
from typing import Any

MISSING = object()  # not read ahead: read it from Redis

_ahead: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "read_ahead", default=None
)


def keep(values: dict[str, Any]) -> None:
    """The values read ahead for this request, by key (replacing any before)."""
    _ahead.set(dict(values))


def take(key: str) -> Any:
    """The value read ahead for `key`, once; MISSING if there is none."""
    values = _ahead.get()
    return MISSING if values is None else values.pop(key, MISSING)


def forget(key: str) -> None:
    """`key` was written: what was read ahead of it is out of date."""
    values = _ahead.get()
    if values is not None:
        values.pop(key, None)


def clear() -> None:
    _ahead.set(None)
