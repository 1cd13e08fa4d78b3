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
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

import redis
from redis.exceptions import RedisClusterException

from service.desk import commands, presses, reading, tipping
from service.desk.asks import (
    CommandAsk,
    Mark,
    Nothing,
    PressAsk,
    Reply,
    Request,
    StoryAsk,
    TipAsk,
    TypedAsk,
    TypedMoveAsk,
)
from service.desk.ports import Forgetting, Links, Manual, no_traces
from service.desk.use import Use
from service.infra.outage import UNAVAILABLE
from service.infra.store import Claim, Claimed, Conflict, Store
from service.services import Services
from service.table.outcome import QueuedPress
from service.ui.intents import Move

log = logging.getLogger("burro.desk")
T = TypeVar("T")
Outcome = Literal["ok", "duplicate", "retry", "failed"]
END_CLAIM_WAITS = (0.1, 0.3, 0.6, 1.0)  # seconds: a Redis restart is over in about one


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
        """Claim, route, commit and answer one update, through one view of the store
        (`Store.session`: what its claim read, the mark its change committed with)."""
        store = self.svc.store.session()
        queued = queued_press(request, self.svc.now())
        try:
            claimed = await store.aclaimed(
                request.mark, rooms_of(request), [request.sender.player], queued
            )
        except UNAVAILABLE:
            return Handled("retry")
        if claimed.claim == "duplicate":
            return Handled("duplicate", self.again(request, store, claimed))
        if claimed.claim == "busy":
            return Handled("retry")
        if queued is not None and claimed.claim in ("accepted", "pressed"):
            return Handled("ok", self.queued(request, store, claimed.claim))  # marked done
        return await self.answer(request, store)

    def again(self, request: Request, store: Store, claimed: Claimed) -> Reply:
        """A press delivered again (the platform did not get our first answer): the
        same answer, from its dedupe mark, so the button's spinner stops."""
        if not isinstance(request.ask, PressAsk):
            return Nothing
        if claimed.out_of_date:
            return presses.out_of_date(self.use(request, store))
        return replayed(claimed.answer or "")

    async def handle_own(self, mark: Mark, work: Callable[[], Awaitable[None]]) -> Handled:
        """A platform's own update (not an ask: a chat's change, an inline query),
        claimed, run and settled as an ask is. `work` reaches the store through the
        plain services, not this update's view, so nothing is read with the claim."""
        store = self.svc.store.session()
        try:
            claim = await store.aclaim(mark)
        except UNAVAILABLE:
            return Handled("retry")
        if claim in ("duplicate", "busy"):
            return Handled("duplicate" if claim == "duplicate" else "retry")
        return await self.run(store, mark, work)

    async def answer(self, request: Request, store: Store) -> Handled:
        async def work() -> Reply:
            return await self.route(request, store)

        kept = isinstance(request.ask, PressAsk)  # a press's answer, for a redelivery
        return await self.run(store, request.mark, work, kept)

    async def run(
        self, store: Store, mark: Mark, work: Callable[[], Awaitable[T]], kept: bool = False
    ) -> Handled:
        try:
            reply = await work()
        except (redis.RedisError, RedisClusterException, Conflict) as error:
            log.warning("update %s not committed: %r", mark, error)
            await end_claim(store, mark, done=False)
            return Handled("retry")
        except Exception:
            log.exception("update %s failed permanently", mark)
            await end_claim(store, mark, done=True)
            return Handled("failed")
        done = reply if isinstance(reply, Reply) else Nothing
        await end_claim(store, mark, done=True, answer=kept_answer(done) if kept else None)
        return Handled("ok", done)

    async def route(self, request: Request, store: Store) -> Reply:
        use = self.use(request, store)
        ask = request.ask
        if isinstance(ask, PressAsk):
            return await presses.pressed(use, ask)
        if isinstance(ask, CommandAsk):
            return await commands.command(use, ask)
        if isinstance(ask, TypedAsk):
            return commands.typed(use, ask)
        if isinstance(ask, TypedMoveAsk):
            return await presses.typed_move(use, ask)
        if isinstance(ask, StoryAsk):
            return await reading.asked(use, ask)
        if isinstance(ask, TipAsk):
            return await tipping.asked(use, ask)
        return use.unknown(ask)

    def use(self, request: Request, store: Store) -> Use:
        """The request's use case, whose services read and write through its view of
        the store."""
        svc = replace(self.svc, store=store)
        return Use(svc, self.manual, self.links, request, self.on_forget)

    def queued(self, request: Request, store: Store, claim: Claim) -> Reply:
        """A press queued for a worker: no popup, as a move applied at once has none;
        one queued already this phase is out of date."""
        if claim == "pressed":
            return presses.out_of_date(self.use(request, store))
        return Nothing


async def end_claim(store: Store, mark: Mark, done: bool, answer: str | None = None) -> None:
    """Finish (or release) the update's claim, tried again for a few seconds while Redis
    is away; a mark left unsettled lapses by itself, and a change committed with the mark
    makes a redelivery a duplicate."""
    for wait in (*END_CLAIM_WAITS, None):
        try:
            await (store.afinish(mark, answer) if done else store.arelease(mark))
            return
        except UNAVAILABLE as error:
            if wait is None:
                log.warning("update %s: its claim was not settled: %r", mark, error)
                return
            await asyncio.sleep(wait)


# A press's answer as its dedupe mark keeps it: a link to open, an alert, or a toast.
LINK, ALERT, TOAST = "u:", "a:", "t:"


def kept_answer(reply: Reply) -> str:
    """A press's answer, small enough for its dedupe mark ("": none)."""
    if reply.url:
        return LINK + reply.url
    if reply.popup:
        return (ALERT if reply.alert else TOAST) + reply.popup
    return ""


def replayed(kept: str) -> Reply:
    """The answer a dedupe mark kept (`kept_answer`), to answer a redelivery with."""
    if kept.startswith(LINK):
        return Reply(url=kept.removeprefix(LINK), quiet=True)
    if kept.startswith(ALERT):
        return Reply(popup=kept.removeprefix(ALERT), alert=True, quiet=True)
    return Reply(popup=kept.removeprefix(TOAST) or None, quiet=True)


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
