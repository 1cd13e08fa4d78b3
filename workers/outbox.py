"""The outbox: renders a room's chat messages at send time and sends or edits them.

A target is `table` (the group's table, or the private game's one message), `hand:<user>`
(a player's hand in their private chat) or `nudge` (a turn reminder in the group); a
`:new` suffix posts a fresh message instead of editing. What was last sent is kept per
target (its digest), so a repeated job sends nothing; a re-post or nudge is sent only
while its request is still marked pending, so a repeated one does not post twice.
Telegram's limits are held in Redis for all processes together (`workers.limits`); a 429
or a spent budget reschedules the job instead of sleeping.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from rq import get_current_job

from engine.game import GameState, to_move
from service import family, groups, logs
from service.i18n import Translator, _
from service.outcome import Job, Outcome
from service.passing.screens import PassingPainter
from service.room import Room
from service.screens import Screen
from service.store import PENDING_SYNC
from service.tg.botapi import ApiError
from service.tg.botfather import inline_mode
from service.tg.render import message_params
from workers import limits
from workers.queue import job_id, schedule_alone

if TYPE_CHECKING:
    from workers.runtime import Runtime

log = logging.getLogger("burro.outbox")
LOCK_MS = 12_000  # longer than a Bot API call may take (10 s); a killed worker's lock lapses


def sync(rt: Runtime, room_id: str, target: str) -> None:
    room = rt.svc.store.load(room_id)
    if room is None:
        done(rt, room_id, target)
        return
    base = target.removesuffix(":new")
    plan = plan_message(rt, room, base)
    if plan is None:
        done(rt, room_id, target)
        return
    chat_id, lang_screen = plan
    logs.bind(chat_id=chat_id)
    params = message_params(lang_screen, inline=inline_mode(rt.redis))
    lock = f"game:{{{room_id}}}:lock:{base}"
    if not rt.redis.set(lock, 1, nx=True, px=LOCK_MS):
        later(rt, "sync", room_id, target, time.time() + 1)  # another worker is on it
        return
    try:
        # A re-post or a nudge is a new message per request: a second job for it (the
        # sweeper's, while a 429 held the first back) finds it served and only edits.
        posts = target.endswith(":new") or base == "nudge"
        served = posts and not pending(rt, room_id, target)
        if served and base == "nudge":
            return
        if send(rt, room, target, chat_id, params, posts and not served):
            done(rt, room_id, target)
    finally:
        rt.redis.delete(lock)


def pending(rt: Runtime, room_id: str, target: str) -> bool:
    """Whether a change still waits to be shown on the target (marked with the change)."""
    return rt.redis.zscore(PENDING_SYNC, f"{room_id}|{target}") is not None


def done(rt: Runtime, room_id: str, target: str) -> None:
    """The target is up to date: the sweeper need not look at it again."""
    rt.redis.zrem(PENDING_SYNC, f"{room_id}|{target}")


def plan_message(rt: Runtime, room: Room, target: str) -> tuple[int, Screen] | None:
    """(chat id, screen) for a target, or None when there is nothing to show."""
    name = rt.svc.bot_username
    if target in ("table", "nudge"):
        painter = family.painter(room, rt.svc.room_lang(room), name)
        if target == "nudge":
            return room.chat_id, nudge_screen(room, painter)
        return room.chat_id, table_screen(room, painter)
    user_id = int(target.split(":")[1])
    seat = room.seat_of(user_id)
    if seat is None or room.game is None or room.private:
        return None
    return user_id, family.painter(room, room.seats[seat].lang, name).hand(seat)


def table_screen(room: Room, painter: family.Screens) -> Screen:
    if room.status == "cancelled":
        return Screen(painter.tr.gettext(_("🫏 This game of Burro was cancelled.")))
    if room.status == "lobby":
        return painter.settings() if room.settings_open else painter.lobby()
    if room.private:
        human = next(i for i, s in enumerate(room.seats) if s.user_id is not None)
        return painter.hand(human)
    return painter.table()


def nudge_screen(room: Room, painter: family.Screens) -> Screen:
    if isinstance(painter, PassingPainter):
        return painter.nudge()
    assert isinstance(room.game, GameState)
    seat = to_move(room.game)
    name = room.seats[seat].name if seat is not None else ""
    return Screen(painter.tr.gettext(_("⏰ {name}, it is your turn in Burro!"), name=name))


def send(
    rt: Runtime, room: Room, target: str, chat_id: int, params: dict[str, Any], post: bool
) -> bool:
    """Post (`post`) or edit the target's message; False when it must be tried again
    later (rescheduled already)."""
    base = target.removesuffix(":new")
    msgs, sent = f"game:{{{room.id}}}:msgs", f"game:{{{room.id}}}:sent"
    digest = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()
    old = rt.redis.hget(msgs, base)
    if not post and old is not None and rt.redis.hget(sent, base) == digest.encode():
        return True  # this very screen is already showing
    wait = limits.reserve(rt.redis, chat_id, group=chat_id < 0)
    if wait > 0:
        later(rt, "sync", room.id, target, time.time() + wait)
        return False
    try:
        message_id = deliver(rt, room, chat_id, params, None if post else old)
    except ApiError as error:
        return handle_error(rt, room, target, error)
    rt.redis.hset(msgs, base, message_id)
    rt.redis.hset(sent, base, digest)
    ttl = rt.svc.store.ttl_of(room)  # as long as the room: it shows the room
    rt.redis.expire(msgs, ttl)
    rt.redis.expire(sent, ttl)
    return True


def deliver(
    rt: Runtime, room: Room, chat_id: int, params: dict[str, Any], old: bytes | str | None
) -> int:
    """Edit the old message if there is one, else send a new one; its message id."""
    if old is not None:
        try:
            rt.api.call("editMessageText", chat_id=chat_id, message_id=int(old), **params)
            return int(old)
        except ApiError as error:
            if error.not_modified:
                return int(old)
            if not error.message_gone:
                raise
    extra = topic_of(room) if chat_id < 0 else {}
    result = rt.api.call("sendMessage", chat_id=chat_id, **extra, **params)
    return int(result["message_id"])


def topic_of(room: Room) -> dict[str, int]:
    """The parameter that sends a group message into the room's forum topic."""
    return {"message_thread_id": room.thread_id} if room.thread_id else {}


def handle_error(rt: Runtime, room: Room, target: str, error: ApiError) -> bool:
    """Act on a refused call; False when it will be tried again later."""
    if error.retry_after:
        later(rt, "sync", room.id, target, time.time() + error.retry_after)
        return False
    if error.blocked and target.startswith("hand:"):
        record_blocked(rt, room, int(target.split(":")[1]))
        return True
    if error.migrate_to is not None and error.migrate_to < 0 and not target.startswith("hand:"):
        # The group became a supergroup: the room moves there, its table posted anew.
        groups.migrate(rt.svc.store, room.chat_id, error.migrate_to)
        return True
    if error.topic_gone and room.thread_id is not None and not target.startswith("hand:"):
        stop_in_topic(rt, room, closed="TOPIC_CLOSED" in error.description)
        return True
    log.warning("room %s target %s: %s", room.id, target, error)
    return True


def stop_in_topic(rt: Runtime, room: Room, closed: bool) -> None:
    """The game's forum topic was closed or deleted: end the game (not retried forever)
    and say so in the group's General topic."""
    stopped = groups.stop(rt.svc.store, room.id, rt.svc.now(), show=closed)
    if stopped is None:
        return  # stopped already: said once
    text = groups.topic_gone_word(Translator(rt.svc.room_lang(stopped)), closed)
    try:
        rt.api.call("sendMessage", chat_id=room.chat_id, text=text)
    except ApiError as error:
        log.warning("room %s: could not say in General that it ended: %s", room.id, error)


def record_blocked(rt: Runtime, room: Room, user_id: int) -> None:
    """The player's private chat refused us: remember it and tell the group how to fix it."""

    def change(fresh: Room) -> Outcome:
        if user_id in fresh.blocked:
            return Outcome()
        fresh.blocked = [*fresh.blocked, user_id]
        return Outcome(changed=True)

    result = rt.svc.store.update(room.id, change)
    if result is None or not result[1].changed or room.private:
        return
    seat = room.seat_of(user_id)
    name = room.seats[seat].name if seat is not None else str(user_id)
    tr = Translator(rt.svc.room_lang(room))
    text = tr.gettext(
        _(
            "{name}, I cannot send you your cards: open a private chat with @{bot} and press "
            "Start, then tap “🃏 My cards” here."
        ),
        name=name,
        bot=rt.svc.bot_username,
    )
    link = f"https://t.me/{rt.svc.bot_username}?start=g{room.id}"
    button = {"text": tr.gettext(_("💬 Open my cards")), "url": link}
    try:
        rt.api.call(
            "sendMessage",
            chat_id=room.chat_id,
            text=text,
            reply_markup={"inline_keyboard": [[button]]},
            **topic_of(room),
        )
    except ApiError as error:
        log.warning("room %s: could not tell the group about %s: %s", room.id, user_id, error)


def later(rt: Runtime, kind: str, room_id: str, arg: str, at: float | None) -> None:
    """Run a job again at `at`, under an id other than the running job's: RQ gives the
    finished job's hash a TTL (result_ttl), which would lose a same-id job due later."""
    job = Job(kind, room_id, arg, at or time.time() + 1, tag="later")
    running = get_current_job()
    if running is not None and running.id == job_id(job):  # a retry retried again
        job = Job(kind, room_id, arg, job.at, tag="again")
    schedule_alone(rt.redis, job)
