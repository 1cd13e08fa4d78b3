"""Update delivery, as Telegram does it.

With a webhook set, each update is POSTed as JSON with the
`X-Telegram-Bot-Api-Secret-Token` header. An answer other than 2xx (or none) is a
failure: the update is retried with a growing delay, and later updates of the same chat
wait behind it, so one chat's updates arrive in order while other chats go on. A 2xx
answer may carry one Bot API call ({"method": ..., parameters}), which is then run.
Without a webhook, updates wait for getUpdates.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from emulator.telegram.errors import bad_request, conflict
from emulator.telegram.world import JSON, Bot, Webhook, World

# Sent unless a bot lists its allowed_updates (Telegram leaves these out by default).
NOT_BY_DEFAULT = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


@dataclass
class Pending:
    update: JSON
    chat_key: int
    attempts: int = 0
    not_before: float = 0.0

    @property
    def update_id(self) -> int:
        return int(self.update["update_id"])

    @property
    def kind(self) -> str:
        return next(key for key in self.update if key != "update_id")


# Runs a Bot API method for a bot: (bot, method, parameters).
Reply = Callable[[Bot, str, dict[str, Any]], Awaitable[Any]]


class Delivery:
    """The update queue of one bot."""

    def __init__(
        self,
        bot: Bot,
        world: World,
        client: Callable[[], httpx.AsyncClient],
        clock: Callable[[], float] = time.monotonic,
        reply: Reply | None = None,
    ) -> None:
        self.bot = bot
        self._reply = reply
        self.world = world
        self._client = client
        self._clock = clock
        self.pending: list[Pending] = []
        self.in_flight: set[int] = set()
        self.last_error_date: int | None = None
        self.last_error_message: str | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # ----- queue -------------------------------------------------------------

    def enqueue(self, update: JSON, chat_key: int) -> None:
        pending = Pending(update, chat_key)
        allowed = self.bot.webhook.allowed_updates if self.bot.webhook else ()
        if allowed and pending.kind not in allowed:
            return
        if not allowed and pending.kind in NOT_BY_DEFAULT:
            return
        self.world.record("update", bot_id=self.bot.id, update_id=pending.update_id, update=update)
        self.pending.append(pending)
        self._wake.set()
        self._ensure_pump()

    def _ensure_pump(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._pump())

    async def close(self) -> None:
        tasks = [t for t in (self._task, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ----- webhook settings --------------------------------------------------

    def set_webhook(self, webhook: Webhook, drop_pending: bool) -> None:
        self.bot.webhook = webhook
        if drop_pending:
            self.pending = [p for p in self.pending if p.chat_key in self.in_flight]
        self.last_error_date = None
        self.last_error_message = None
        for pending in self.pending:
            pending.not_before = 0.0
        self._wake.set()
        self._ensure_pump()

    def delete_webhook(self, drop_pending: bool) -> None:
        self.bot.webhook = None
        if drop_pending:
            self.pending = [p for p in self.pending if p.chat_key in self.in_flight]
        self._wake.set()

    def info(self) -> JSON:
        webhook = self.bot.webhook
        out: JSON = {
            "url": webhook.url if webhook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(self.pending),
        }
        if webhook:
            out["max_connections"] = webhook.max_connections
            if webhook.allowed_updates:
                out["allowed_updates"] = list(webhook.allowed_updates)
            if webhook.ip_address:
                out["ip_address"] = webhook.ip_address
        if self.last_error_date is not None:
            out["last_error_date"] = self.last_error_date
            out["last_error_message"] = self.last_error_message
        return out

    # ----- webhook delivery --------------------------------------------------

    def _due(self, now: float) -> tuple[list[Pending], float | None]:
        """Updates to send now (the first waiting one of each idle chat), and when the
        next retry falls due."""
        webhook = self.bot.webhook
        if webhook is None:
            return [], None
        room = webhook.max_connections - len(self.in_flight)
        seen: set[int] = set()
        due: list[Pending] = []
        next_at: float | None = None
        for pending in self.pending:
            if pending.chat_key in seen or pending.chat_key in self.in_flight:
                seen.add(pending.chat_key)
                continue
            seen.add(pending.chat_key)
            if pending.not_before <= now:
                if len(due) < room:
                    due.append(pending)
            elif next_at is None or pending.not_before < next_at:
                next_at = pending.not_before
        return due, next_at

    async def _pump(self) -> None:
        while True:
            self._wake.clear()
            now = self._clock()
            due, next_at = self._due(now)
            for pending in due:
                self.in_flight.add(pending.chat_key)
                task = asyncio.get_running_loop().create_task(self._deliver(pending))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            timeout = None if next_at is None else max(0.0, next_at - now)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    async def _deliver(self, pending: Pending) -> None:
        webhook = self.bot.webhook
        try:
            if webhook is None:
                return
            pending.attempts += 1
            headers = {"Content-Type": "application/json"}
            if webhook.secret_token:
                headers["X-Telegram-Bot-Api-Secret-Token"] = webhook.secret_token
            status: int | None = None
            error: str | None = None
            try:
                response = await self._client().post(
                    webhook.url,
                    json=pending.update,
                    headers=headers,
                    timeout=self.world.config.webhook_timeout,
                )
                status = response.status_code
                if not 200 <= status < 300:
                    error = f"Wrong response from the webhook: {status} {response.reason_phrase}"
            except httpx.TimeoutException:
                error = "Read timeout expired"
            except httpx.HTTPError as exc:
                error = f"Connection failed: {type(exc).__name__}"
            self.world.record(
                "delivery",
                bot_id=self.bot.id,
                update_id=pending.update_id,
                attempt=pending.attempts,
                status=status,
                error=error,
            )
            if error is None:
                if pending in self.pending:
                    self.pending.remove(pending)
                await self._run_reply(response)
            else:
                self.last_error_date = self.world.now()
                self.last_error_message = error
                config = self.world.config
                delay = min(
                    config.webhook_retry_max_delay,
                    config.webhook_retry_delay * 2 ** (pending.attempts - 1),
                )
                pending.not_before = self._clock() + delay
        finally:
            self.in_flight.discard(pending.chat_key)
            self._wake.set()

    async def _run_reply(self, response: httpx.Response) -> None:
        """Telegram runs a Bot API method the webhook put in its answer ("method" and
        its parameters as JSON); its result or error goes nowhere."""
        if self._reply is None or "json" not in response.headers.get("content-type", ""):
            return
        try:
            body = response.json()
        except ValueError:
            return
        if isinstance(body, dict) and isinstance(body.get("method"), str):
            params = {k: v for k, v in body.items() if k != "method"}
            with contextlib.suppress(Exception):  # as on Telegram: nobody hears of a failure
                await self._reply(self.bot, body["method"], params)

    # ----- getUpdates --------------------------------------------------------

    def _webhook_active(self) -> bool:
        return self.bot.webhook is not None

    async def get_updates(
        self, offset: int | None, limit: int, timeout: float, allowed: tuple[str, ...] | None
    ) -> list[JSON]:
        if self.bot.webhook is not None:
            raise conflict(
                "can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first"
            )
        if not 1 <= limit <= 100:
            limit = 100
        if offset is not None:
            if offset < 0:
                self.pending = self.pending[offset:]
            else:
                self.pending = [p for p in self.pending if p.update_id >= offset]
        deadline = self._clock() + max(0.0, timeout)
        while not self.pending and self._clock() < deadline:
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), deadline - self._clock())
            if self._webhook_active():
                return []
        batch = self.pending[:limit]
        if allowed:
            batch = [p for p in batch if p.kind in allowed]
        for pending in batch:
            pending.attempts += 1
            self.world.record(
                "delivery",
                bot_id=self.bot.id,
                update_id=pending.update_id,
                attempt=pending.attempts,
                status=200,
                error=None,
                via="getUpdates",
            )
        return [p.update for p in batch]


def parse_allowed_updates(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise bad_request("can't parse allowed_updates JSON array")
    return tuple(raw)
