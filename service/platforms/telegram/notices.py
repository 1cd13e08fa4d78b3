"""Messages waiting for the flood budget: a reply `serve` could not send at once (the
chat's budget was spent, or Telegram answered 429) or a word from a worker (a room ended
for idleness). Each is kept in Redis (`notice:<id>`, expiring) and sent by a `notice` job
(`send`), which waits its turn in the same budget as the outbox. A chat's
waiting notices are listed in `notices:<chat>`; past `MAX_WAITING` of them (minutes of
its budget) a new one is dropped, so that a flood of commands cannot grow the queue."""

from __future__ import annotations

import json
import logging
import secrets
import time
from typing import Any

import redis

from service.infra import keys
from service.infra.queue import later, schedule
from service.infra.store import text
from service.platforms.telegram import limits
from service.platforms.telegram.botapi import ApiError, BotApi
from service.table.outcome import Job, JobKind

log = logging.getLogger("burro.notices")
NOTICE_TTL = 24 * 3600  # seconds a notice may wait before it is dropped
MAX_WAITING = 60  # notices waiting in one chat (a group's budget sends 20 a minute)


notice_key = keys.notice_key
waiting_key = keys.notices_key


def queue(client: redis.Redis, params: dict[str, Any], at: float) -> str | None:
    """Keep a sendMessage's parameters (JSON values, `chat_id` among them) and schedule
    its job at `at`; the notice's id, or None when the chat has too many waiting."""
    chat_id, now = int(params["chat_id"]), time.time()
    waiting = waiting_key(chat_id)
    client.zremrangebyscore(waiting, "-inf", now - NOTICE_TTL)  # gone by themselves
    if client.zcard(waiting) >= MAX_WAITING:
        log.warning("chat %s has %d notices waiting: one more dropped", chat_id, MAX_WAITING)
        return None
    notice_id = secrets.token_hex(8)
    with client.pipeline() as pipe:
        pipe.multi()
        pipe.set(notice_key(notice_id), json.dumps(params), ex=NOTICE_TTL)
        pipe.zadd(waiting, {notice_id: now})
        pipe.expire(waiting, NOTICE_TTL)
        schedule(client, pipe, Job(JobKind.NOTICE, notice_id, "", at))
        pipe.execute()
    return notice_id


def load(client: redis.Redis, notice_id: str) -> dict[str, Any] | None:
    raw = client.get(notice_key(notice_id))
    return None if raw is None else dict(json.loads(raw))


def done(client: redis.Redis, notice_id: str, chat_id: int) -> None:
    """The notice went out (or was refused for good): forget it."""
    with client.pipeline() as pipe:
        pipe.delete(notice_key(notice_id))
        pipe.zrem(waiting_key(chat_id), notice_id)
        pipe.execute()


def drop_chat(client: redis.Redis, chat_id: int) -> None:
    """Every notice waiting for a chat goes (its person asked to be forgotten)."""
    waiting = waiting_key(chat_id)
    ids = [text(member) for member in client.zrange(waiting, 0, -1)]
    client.delete(waiting, *(notice_key(i) for i in ids))


def send(client: redis.Redis, api: BotApi, notice_id: str) -> None:
    """Send a notice within the flood budget: a spent budget or a 429 schedules it
    again; it is dropped once sent (or refused for good)."""
    params = load(client, notice_id)
    if params is None:  # sent already (a repeated job), or waited past its lifetime
        return
    chat_id = int(params["chat_id"])
    wait = limits.reserve(client, chat_id, group=chat_id < 0)
    if wait > 0:
        later(client, JobKind.NOTICE, notice_id, "", time.time() + wait)
        return
    try:
        api.call("sendMessage", **params)
    except ApiError as error:
        if error.retry_after:
            later(client, JobKind.NOTICE, notice_id, "", time.time() + error.retry_after)
            return
        log.warning("notice %s to %s refused: %s", notice_id, chat_id, error)
    done(client, notice_id, chat_id)
