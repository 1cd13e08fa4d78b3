"""Sending a notice (service.infra.notices) within the flood budget: a spent budget or a 429
schedules it again; it is dropped once sent (or refused for good)."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from service.infra import notices
from service.platforms.telegram import limits
from service.platforms.telegram.botapi import ApiError
from service.table.outcome import JobKind
from workers import outbox

if TYPE_CHECKING:
    from workers.runtime import Runtime

log = logging.getLogger("burro.notices")


def send(rt: Runtime, notice_id: str) -> None:
    params = notices.load(rt.redis, notice_id)
    if params is None:  # sent already (a repeated job), or waited past its lifetime
        return
    chat_id = int(params["chat_id"])
    wait = limits.reserve(rt.redis, chat_id, group=chat_id < 0)
    if wait > 0:
        outbox.later(rt, JobKind.NOTICE, notice_id, "", time.time() + wait)
        return
    try:
        rt.api.call("sendMessage", **params)
    except ApiError as error:
        if error.retry_after:
            outbox.later(rt, JobKind.NOTICE, notice_id, "", time.time() + error.retry_after)
            return
        log.warning("notice %s to %s refused: %s", notice_id, chat_id, error)
    notices.done(rt.redis, notice_id, chat_id)
