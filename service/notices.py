"""Messages waiting for the flood budget: a reply `serve` could not send at once (the
chat's budget was spent, or Telegram answered 429) or a word from a worker (a room ended
for idleness). Each is kept in Redis (`notice:<id>`, expiring) and sent by a `notice` job
(workers.notices), which waits its turn in the same budget as the outbox."""

from __future__ import annotations

import json
import secrets
from typing import Any

import redis

from service.outcome import Job
from workers.queue import schedule

NOTICE_TTL = 24 * 3600  # seconds a notice may wait before it is dropped


def notice_key(notice_id: str) -> str:
    return f"notice:{notice_id}"


def queue(client: redis.Redis, params: dict[str, Any], at: float) -> str:
    """Keep a sendMessage's parameters (JSON values, `chat_id` among them) and schedule
    its job at `at`; the notice's id."""
    notice_id = secrets.token_hex(8)
    with client.pipeline() as pipe:
        pipe.multi()
        pipe.set(notice_key(notice_id), json.dumps(params), ex=NOTICE_TTL)
        schedule(client, pipe, Job("notice", notice_id, "", at))
        pipe.execute()
    return notice_id


def load(client: redis.Redis, notice_id: str) -> dict[str, Any] | None:
    raw = client.get(notice_key(notice_id))
    return None if raw is None else dict(json.loads(raw))
