"""What a commit writes besides the room: the update's dedupe mark, the chat's pointer,
the room's `moves` hash, its timers and idle deadline, the people index, the counters
of a finished game, the outbox's pending syncs and the outcome's jobs.

Each write is recorded where it can go (`Recorders`): the room's own slot, written by
the commit's script; the state's other keys; RQ's jobs. On one Redis that also holds
RQ's queue, the three are one: the script writes them all at once. On a cluster, the
other keys follow the commit in one batch, and the jobs in one more on RQ's Redis: a
process killed in between loses them to the sweeper, which queues again what pending
syncs, presses and overdue rooms show (workers.sweeper)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import redis
from redis.typing import EncodableT

from service.infra import commit, timers, trips
from service.infra.keys import (
    DUE_KEY,
    IDLE_KEY,
    PENDING_PRESSES,
    PENDING_SYNC,
    TIMERS_KEY,
    VIEW_CHANNEL,
    chat_key,
    chat_open_key,
    index_key,
    live_key,
    moves_key,
    room_key,
    update_key,
    user_open_key,
    user_rooms_key,
    user_seated_key,
)
from service.infra.queue import schedule
from service.infra.store.base import UpdateId, encode_room, text
from service.infra.store.claims import mark_of
from service.infra.store.statistics import Statistics
from service.table import targets as targets_of
from service.table.outcome import PHASE_TIMERS, Job, JobKind, Outcome
from service.table.play import waiting_moves
from service.table.room import LIVE, Room


@dataclass(frozen=True)
class Recorders:
    """Where a commit's writes are recorded (the module's docstring)."""

    room: redis.client.Pipeline  # the room's slot: the commit's script writes these
    side: redis.client.Pipeline  # the state's other keys
    jobs: redis.client.Pipeline  # RQ's

    def after(self) -> trips.Steps[None]:
        """What follows the commit: the other keys, then the jobs, unless the script
        wrote them."""
        yield from self.others()
        yield from self.queued()

    def others(self) -> trips.Steps[None]:
        """The other keys, unless the script wrote them."""
        if self.side is not self.room and self.side.command_stack:
            yield trips.Commands(commit.as_commands(self.side))

    def queued(self) -> trips.Steps[None]:
        """The jobs, unless the script wrote them."""
        if self.jobs is not self.room and self.jobs.command_stack:
            yield trips.Commands(commit.as_commands(self.jobs), transaction=True, jobs=True)


class Writes(Statistics):
    def recorders(self, jobs_apart: bool = False) -> Recorders:
        """Fresh recorders for one commit: one pipeline where one Redis holds it all
        (but the jobs, when `jobs_apart`: queued once the caller says)."""
        room = commit.recorder(self.redis)
        side = room if self.one_node else commit.recorder(self.redis)
        jobs = room if self.jobs_inside and not jobs_apart else commit.recorder(self.jobs)
        return Recorders(room, side, jobs)

    def _write(
        self,
        rec: Recorders,
        room: Room,
        outcome: Outcome,
        update_id: UpdateId | None,
        sync_job: bool = True,
        here: Callable[[Job], bool] | None = None,
        point_chat: bool = True,
    ) -> bytes | None:
        """Record the commit's writes; the room's bytes as written, if it changed."""
        pipe = rec.room
        if update_id is not None:  # answered with no popup, unless `finish` says one
            rec.side.set(update_key(update_id), mark_of(""), ex=self.mark_ttl(update_id))
        if outcome.presses:
            pipe.zrem(index_key(PENDING_PRESSES, room.id), *outcome.presses)
        if not outcome.changed:
            return None
        if update_id is not None:  # a redelivery finds it in the room, whatever the mark
            room.note_handled(update_id)
        ttl = self.ttl_of(room)
        stored = encode_room(room)
        pipe.set(room_key(room.id), stored, ex=ttl)
        pipe.publish(VIEW_CHANNEL, room.id)  # the open views repaint it (service.view.live)
        self._write_moves(pipe, room, ttl)
        if point_chat:  # (a new room points its chat itself: Rooms.create)
            self._point_chat(rec.side, room, ttl)
        self._mark_idle(pipe, room, by_person=update_id is not None)
        if room.status == "lobby" or outcome.finished:  # the seats are set in the lobby
            self._index_seats(rec.side, room)
        if room.status == "playing":
            pipe.zadd(index_key(DUE_KEY, room.id), {room.id: room.next_due()})
        else:
            pipe.zrem(index_key(DUE_KEY, room.id), room.id)
        self._set_timer(pipe, room, outcome)
        if outcome.finished:
            self._count_finished(rec.side, room)
        self._write_syncs(pipe, room, outcome, sync_job)
        for user, when in outcome.acted.items():
            pipe.hset(live_key(room.id), str(user), when)
            pipe.expire(live_key(room.id), ttl)
        for job in outcome.jobs:
            if job.kind not in PHASE_TIMERS and (here is None or not here(job)):
                schedule(self.jobs, rec.jobs, job)
        return stored

    def _point_chat(self, side: redis.client.Pipeline, room: Room, ttl: int) -> None:
        """The chat's pointer to its room: kept as long as the room, gone if it was
        cancelled. Written with the commit on one Redis; on a cluster after it, so only
        where it still points here or nowhere (a room may have been opened since)."""
        chat, cancelled = chat_key(room.chat_id, room.thread_id), room.status == "cancelled"
        if not self.one_node:
            side.eval(trips.lua(self.redis, _POINT), 1, chat, room.id, 0 if cancelled else ttl)
        elif cancelled:
            side.delete(chat)
        else:
            side.set(chat, room.id, ex=ttl)

    def _write_syncs(
        self, pipe: redis.client.Pipeline, room: Room, outcome: Outcome, sync_job: bool
    ) -> None:
        """The change's chats marked pending for the outbox, and one job that brings
        every target of the change up to date (unless the caller does: `sync_job`)."""
        now = self.clock()
        if outcome.sync and sync_job:
            outcome.jobs.append(_sync_job(room, sorted(outcome.sync), now))
        for target in sorted(outcome.sync):
            # Since now, not since the room's last move: a reminder's re-post, marked with
            # the move's older time, looked lost to the sweeper at once and went out twice.
            # Each change marks anew: the job serving an older one leaves this mark.
            pipe.zadd(index_key(PENDING_SYNC, room.id), {f"{room.id}|{target}": now})

    def _write_moves(self, pipe: redis.client.Pipeline, room: Room, ttl: int) -> None:
        """The room's `moves` hash anew: its phase, and who may press what and have it
        queued (none once the game is not playing)."""
        key = moves_key(room.id)
        pipe.delete(key)
        moves = waiting_moves(room)
        if moves:
            lines: dict[EncodableT, EncodableT] = {"phase": room.phase_version}
            lines.update((str(user), "\n".join(actions)) for user, actions in moves.items())
            pipe.hset(key, mapping=lines)
            pipe.expire(key, ttl)

    def _set_timer(self, pipe: redis.client.Pipeline, room: Room, outcome: Outcome) -> None:
        """The room's place in rooms:timers: its phase's first timer the change made (a
        new phase's reminder, or its deadline once reminded); none once its phase has no
        deadline or the game is over. A change that made no timer leaves it."""
        if room.status != "playing" or room.deadline is None:
            timers.drop(pipe, room.id)
            return
        due = [job.at for job in outcome.jobs if job.kind in PHASE_TIMERS]
        if due:
            timers.wake_at(pipe, room.id, min(due))

    def _mark_idle(self, pipe: redis.client.Pipeline, room: Room, by_person: bool) -> None:
        """When an open room ends if nobody acts: counted from a person's update (a job's
        write, a bot's move, only makes sure the room is there)."""
        key = index_key(IDLE_KEY, room.id)
        if room.status not in LIVE:
            pipe.zrem(key, room.id)
            return
        wait = self.idle[0] if room.status == "lobby" else self.idle[1]
        pipe.zadd(key, {room.id: self.clock() + wait}, nx=not by_person)

    def _opened(self, pipe: redis.client.Pipeline, room: Room) -> None:
        """Count a new room toward its chat's and its creator's caps, and index its
        people (a one-to-one rematch starts playing at once: no lobby write does it)."""
        for key in (chat_open_key(room.chat_id), user_open_key(room.creator)):
            pipe.sadd(key, room.id)
            pipe.expire(key, self.live_ttl)
        self._index_seats(pipe, room)

    def _index_seats(self, pipe: redis.client.Pipeline, room: Room) -> None:
        """Index the room under each person seated: the people index (every room they
        sat in, for /forget), and their open rooms (`user_seated_key`), where the room
        is while open and from which it goes once over (one they left, or that closed
        otherwise, goes when a screen finds it closed: service.infra.tables). That set
        lives as long as the rooms it holds may: a person who sits down nowhere for that
        long has it made again at their next look."""
        self._index_people(pipe, user_rooms_key, room.id, room.humans())
        for user_id in room.humans():
            key = user_seated_key(user_id)
            if room.status in LIVE:
                pipe.sadd(key, room.id)
                pipe.expire(key, self.live_ttl)
            else:
                pipe.srem(key, room.id)

    def note_message(self, chat_id: int, thread_id: int | None, message_id: int) -> None:
        """A message came in a chat (a command to us): the messages of the room open
        there are above it now, and its table is posted again at the bottom on its next
        change (workers.outbox.due_anew)."""
        room_id = self.redis.get(chat_key(chat_id, thread_id))
        if room_id is None:
            return
        key, field = live_key(text(room_id)), f"top:{chat_id}"
        top = self.redis.hget(key, field)
        if top is None or message_id > int(top):
            with self.redis.pipeline() as pipe:
                pipe.hset(key, field, message_id)
                pipe.expire(key, self.live_ttl)
                pipe.execute()


# KEYS[1]: a chat's pointer. ARGV: the room, the pointer's lifetime (0: drop it). Only
# where the pointer is this room's or none.
_POINT = """
local now = redis.call('GET', KEYS[1])
if now and now ~= ARGV[1] then return 0 end
if ARGV[2] == '0' then redis.call('DEL', KEYS[1])
else redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) end
return 1
"""


def _sync_job(room: Room, targets: list[str], now: float) -> Job:
    """The change's sync job: its id names the room's version and the commit's moment
    (in microseconds), so the job of the next change is another job, a re-post asked
    again before the room moves on included: RQ deletes a finished job's hash
    (service.infra.queue), which lost a same-id job queued while the first ran."""
    tag = f"v{room.version}t{round(now * 1_000_000)}"
    return Job(JobKind.SYNC, room.id, targets_of.joined(targets), 0.0, tag=tag)


def forget_writes(pipe: redis.client.Pipeline, room: Room, synced: list[str]) -> None:
    """A room's keys and its index entries deleted, its `synced` targets' pending marks
    with them (all in its slot)."""
    pipe.delete(room_key(room.id), moves_key(room.id), live_key(room.id))
    for index in (DUE_KEY, IDLE_KEY, TIMERS_KEY):
        pipe.zrem(index_key(index, room.id), room.id)
    if synced:
        pipe.zrem(index_key(PENDING_SYNC, room.id), *(f"{room.id}|{t}" for t in synced))
