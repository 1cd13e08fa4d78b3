"""The desk: one owner for every incoming update. It claims the update (each once),
finds the person, routes the ask to its use case, commits through the store and
returns the reply; a platform's adapter only parses before and draws after.

A move's press is the one ask with a faster way: its claim checks it against the moves
the room's phase allows and queues it for a worker in the same round trip (Store.aclaim,
legality cached by `service.table.play.waiting_moves`), and it is answered at once. That
way is the desk's, for every platform.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

import redis

from service.desk import commands, presses
from service.desk.asks import CommandAsk, Mark, Nothing, PressAsk, Reply, Request, TypedAsk
from service.desk.ports import Forgetting, Links, Manual, no_traces
from service.desk.use import Use
from service.infra.store import Claim, Claimed, Conflict
from service.services import Services
from service.table.outcome import QueuedPress
from service.ui.intents import Move

log = logging.getLogger("burro.desk")
T = TypeVar("T")
Outcome = Literal["ok", "duplicate", "retry", "failed"]
SETTLE_WAITS = (0.1, 0.3, 0.6, 1.0)  # seconds: a Redis restart is over in about one


@dataclass(frozen=True)
class Handled:
    """What became of an update: `retry` asks the platform to send it again (storage
    away, or the update being handled elsewhere), and the reply to draw."""

    outcome: Outcome
    reply: Reply = Nothing


class Desk:
    """Handles the requests of one platform (its `manual` names its commands)."""

    def __init__(
        self, svc: Services, manual: Manual, links: Links, on_forget: Forgetting = no_traces
    ) -> None:
        self.svc, self.manual, self.links, self.on_forget = svc, manual, links, on_forget

    async def handle(self, request: Request) -> Handled:
        """Claim, route, commit and answer one update."""
        queued = queued_press(request, self.svc.now())
        try:
            claimed = await self.svc.store.aclaimed(
                request.mark, rooms_of(request), [request.sender.player], queued
            )
        except redis.RedisError:
            return Handled("retry")
        if claimed.claim == "duplicate":
            return Handled("duplicate", self.again(request, claimed))
        if claimed.claim == "busy":
            return Handled("retry")
        if queued is not None and claimed.claim in ("accepted", "pressed"):
            return Handled("ok", self.queued(request, claimed.claim))  # marked done already
        return await self.answer(request)

    def again(self, request: Request, claimed: Claimed) -> Reply:
        """A press delivered again (the platform did not get our first answer): the
        same answer, from its dedupe mark, so the button's spinner stops."""
        if not isinstance(request.ask, PressAsk):
            return Nothing
        if claimed.out_of_date:
            return presses.out_of_date(self.use(request))
        return Reply(popup=claimed.answer or None, quiet=True)

    async def handle_own(
        self, mark: Mark, users: list[int], work: Callable[[], Awaitable[None]]
    ) -> Handled:
        """A platform's own update (not an ask: a chat's change, inline mode), claimed,
        run and settled as an ask is."""
        try:
            claim = await self.svc.store.aclaim(mark, [], users)
        except redis.RedisError:
            return Handled("retry")
        if claim in ("duplicate", "busy"):
            return Handled("duplicate" if claim == "duplicate" else "retry")
        return await self.run(mark, work)

    async def answer(self, request: Request) -> Handled:
        async def work() -> Reply:
            return await self.route(request)

        kept = isinstance(request.ask, PressAsk)  # a press's answer, for a redelivery
        return await self.run(request.mark, work, kept)

    async def run(
        self, mark: Mark, work: Callable[[], Awaitable[T]], kept: bool = False
    ) -> Handled:
        try:
            reply = await work()
        except (redis.RedisError, Conflict) as error:
            log.warning("update %s not committed: %r", mark, error)
            await self.settle(mark, done=False)
            return Handled("retry")
        except Exception:
            log.exception("update %s failed permanently", mark)
            await self.settle(mark, done=True)
            return Handled("failed")
        done = reply if isinstance(reply, Reply) else Nothing
        await self.settle(mark, done=True, answer=(done.popup or "") if kept else None)
        return Handled("ok", done)

    async def route(self, request: Request) -> Reply:
        use = self.use(request)
        ask = request.ask
        if isinstance(ask, PressAsk):
            return await presses.pressed(use, ask)
        if isinstance(ask, CommandAsk):
            return await commands.command(use, ask)
        if isinstance(ask, TypedAsk):
            return commands.typed(use, ask)
        return use.unknown(ask)

    def use(self, request: Request) -> Use:
        return Use(self.svc, self.manual, self.links, request, self.on_forget)

    def queued(self, request: Request, claim: Claim) -> Reply:
        """A press queued for a worker: no popup, as a move applied at once has none;
        one queued already this phase is out of date."""
        if claim == "pressed":
            return presses.out_of_date(
                Use(self.svc, self.manual, self.links, request, self.on_forget)
            )
        return Reply()

    async def settle(self, mark: Mark, done: bool, answer: str | None = None) -> None:
        """Finish (or release) the update's claim, tried again for a few seconds while
        Redis is away; a mark left unsettled lapses by itself, and a change committed
        with the mark makes a redelivery a duplicate."""
        store = self.svc.store
        for wait in (*SETTLE_WAITS, None):
            try:
                await (store.afinish(mark, answer) if done else store.arelease(mark))
                return
            except redis.RedisError as error:
                if wait is None:
                    log.warning("update %s: its claim was not settled: %r", mark, error)
                    return
                await asyncio.sleep(wait)


def rooms_of(request: Request) -> list[str]:
    """The room an update is about, read with its claim (a press names it)."""
    ask = request.ask
    return [ask.press.room] if isinstance(ask, PressAsk) else []


def queued_press(request: Request, now: float) -> QueuedPress | None:
    """A tapped move, as a press its claim may queue for a worker."""
    ask = request.ask
    what = ask.press.what if isinstance(ask, PressAsk) else None
    if not isinstance(ask, PressAsk) or not isinstance(what, Move):
        return None
    press = ask.press
    return QueuedPress(
        press.room, press.version, request.sender.player, request.mark, now, what.action
    )
