"""The jobs: module-level functions with primitive arguments, each idempotent, one per
`JobKind` (service.table.outcome), of every game alike.

Every job re-reads the room and does nothing when the room's phase moved on (a move
came first) or its deadline is not reached yet (a scheduled job may fire early). Jobs
queued under the names of older releases (`bot_move`, `passing_close`, `passing_bot`,
`passing_remind`) still run: each is the job it became.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import NamedTuple

from engine.kernel.errors import IllegalAction
from service.infra import metrics, queue, timers
from service.infra.keys import PENDING_PRESSES, index_key
from service.platforms import registry
from service.table import play, targets
from service.table.outcome import PHASE_TIMERS, Job, JobKind, Outcome, QueuedPress
from service.table.quiet import quiet_until
from service.table.room import Room
from workers import expiry, outbox, sweeper
from workers.runtime import Runtime, runtime

log = logging.getLogger("burro.worker")
MAX_STREAK = 200  # bot turns one job plays at most (each seat's, across hands)


@metrics.job("sync")
def sync(room_id: str, arg: str) -> None:
    """Bring a room's chat messages (one target, or a change's several) up to the room's
    current state."""
    outbox.sync_all(runtime(), room_id, targets.split(arg))


@metrics.job("notice", about_game=False)
def notice(notice_id: str, _arg: str) -> None:
    """Send a message kept for the flood budget: a job of its platform's (Telegram's
    notices), run through the registry."""
    registry.run_job(runtime(), "notice", notice_id)


@metrics.job("bot_turn")
def bot_turn(room_id: str, arg: str) -> None:
    """A bot acts in a phase (`<phase>:<seat>`), and the bots due at once after it. A bot
    that thinks is sent to the bots' own queue instead (`bot_think`)."""
    rt = runtime()
    step = bot_step(rt, room_id, arg)
    if step is not None:
        streak(rt, room_id, step)


@metrics.job("bot_think")
def bot_think(room_id: str, arg: str) -> None:
    """A bot that thinks (a strong one) acts, on the bots' own queue and workers: its
    search costs its own table time, never a press's or a chat's at another table. The
    cheap bots due after it play here too; a thinking one gets a job of its own again,
    so the bots' workers take the tables' decisions in turn."""
    rt = runtime()
    step = bot_step(rt, room_id, arg, think=True)
    if step is not None:
        streak(rt, room_id, step)


class Step(NamedTuple):
    """What a commit left to its job: its outcome, the cheap bots' turns due now that it
    did not play (`streak` plays them), and the bot turns it took (MAX_STREAK's count)."""

    outcome: Outcome
    turns: list[Job]
    played: int = 0
    room: Room | None = None  # as committed


def bot_step(
    rt: Runtime, room_id: str, arg: str, budget: int | None = None, think: bool = False
) -> Step | None:
    """One bot's move: it chooses from its own view outside the transaction (a strong
    bot searches), and it counts only if the phase is the same; the cheap bots due at
    once after it play in the same commit, `budget` of them at most. None if it is
    moot, or if the bot thinks and this is not the bots' queue (`think`): it is sent
    there."""
    phase = arg.partition(":")[0]
    room = room_in_phase(rt, room_id, phase)
    seat = waiting_seat(room, arg) if room is not None else None
    if room is None or seat is None:
        return None
    if not think and thinks(room, seat):  # queued as a cheap bot's (serve, the sweeper)
        queue.schedule_alone(rt.jobs, Job(JobKind.BOT_THINK, room_id, arg, 0.0))
        return None
    action = play.bot_action(room, seat)
    now, delay = rt.svc.now(), rt.svc.settings.bot_delay
    left = MAX_STREAK - 1 if budget is None else budget
    step = commit_in_phase(
        rt, room_id, phase, lambda fresh: play.bot_turn(fresh, seat, action, now, delay), left
    )
    return None if step is None else step._replace(played=step.played + 1)


def waiting_seat(room: Room, arg: str) -> int | None:
    """The seat a bot's turn (`<phase>:<seat>`) names, if the room is in that phase and
    its bot is yet to act; else None (the turn is moot)."""
    phase, _, seat_text = arg.partition(":")
    if not in_phase(room, phase) or not seat_text.isdigit():
        return None
    seat = int(seat_text)
    return seat if seat < len(room.seats) and seat in room.bots_waiting() else None


def thinks(room: Room, seat: int) -> bool:
    """Whether the seat's bot thinks before it acts: its game says its level (as
    `play.bot_action` picks it) thinks, and it has a choice (every level answers a
    forced move at once). The other levels decide in 0.06-0.13 ms (p99 under 10 ms on a
    busy machine), cheap enough for the jobs that apply moves and send chats."""
    game = play.game(room)
    if room.game is None or play.bot_level(room, seat) not in game.thinking_levels:
        return False
    return len(game.legal_actions(room.game, seat)) > 1


def to_its_queue(room: Room, job: Job) -> Job:
    """A bot's turn as the job for its bot: `bot_think` (the bots' queue) if it thinks."""
    if job.kind is not JobKind.BOT_TURN:
        return job
    seat = job.arg.partition(":")[2]
    if not seat.isdigit() or int(seat) >= len(room.seats) or not thinks(room, int(seat)):
        return job
    return replace(job, kind=JobKind.BOT_THINK)


@metrics.job("press")
def press(room_id: str, arg: str) -> None:
    """A player's move that `serve` answered at once and queued (Store.aclaim): the
    room's queued presses applied (every change applies them first: this one is only
    that), then the bots due at once after them, then the chats."""
    rt = runtime()
    pressed = QueuedPress.parse(room_id, arg)
    member = [pressed.member] if pressed is not None else []
    step = commit_here(rt, room_id, lambda fresh: Outcome(presses=member))
    if step is None:  # the room is gone: so is the press
        if member:
            rt.redis.zrem(index_key(PENDING_PRESSES, room_id), *member)
        return
    streak(rt, room_id, step)


@metrics.job("deadline")
def deadline(room_id: str, phase: str) -> None:
    """The game's own clock ran out (a window closes): what the game does then."""
    rt = runtime()
    room = room_in_phase(rt, room_id, phase)
    if room is None:
        return
    due, now = room.deadline, rt.svc.now()
    if due is None or now < due:  # a timer may come due early (another worker's clock)
        rt.svc.store.wake(room, due)
        return
    delay = rt.svc.settings.bot_delay

    def change(fresh: Room) -> Outcome:
        try:
            return play.expire(fresh, now, delay)
        except IllegalAction:  # not due after all (the game's clock is its own)
            return Outcome()

    on_phase(rt, room_id, phase, change)


@metrics.job("turn_timeout")
def turn_timeout(room_id: str, phase: str) -> None:
    """A human's turn ran out: a bot plays it for them (see play.time_out). Announced in
    the group's log."""
    rt = runtime()
    room = room_in_phase(rt, room_id, phase)
    if room is None:
        return
    waiting = play.waiting_humans(room)
    if not waiting:
        return
    now = rt.svc.now()
    if room.deadline is None or now < room.deadline:
        rt.svc.store.wake(room, room.deadline)
        return
    seat = waiting[0]
    action = play.bot_action(room, seat, "heuristic")
    if action is None:
        return
    delay = rt.svc.settings.bot_delay
    on_phase(rt, room_id, phase, lambda fresh: play.time_out(fresh, seat, action, now, delay))


@metrics.job("remind")
def remind(room_id: str, phase: str) -> None:
    """Nudge the players yet to act: their hand again in private, and (once per phase) a
    gentle mention in the group. The group's quiet hours hold it till morning."""
    rt = runtime()
    room = room_in_phase(rt, room_id, phase)
    if room is None or room.reminded:
        return
    until = quiet_until(room.settings, rt.svc.now())
    if until is not None:  # the group's night: nudge in the morning (moves never wait)
        rt.svc.store.wake(room, min(until, room.deadline or until))
        return
    on_phase(rt, room_id, phase, play.remind)


@metrics.job("timer")
def timer(room_id: str, seen: str) -> None:
    """The room's timer came due (service.infra.timers): what its clock says is due now,
    a deadline or a reminder, else it waits for the next one."""
    rt = runtime()
    room = rt.svc.store.load(room_id)
    if room is None:  # gone (expired): its place goes too
        timers.drop(rt.redis, room_id)
        return
    now = rt.svc.now()
    kind = play.due_timer(room, now)
    if kind is None:  # early (another clock), or nothing left in this phase
        rt.svc.store.wake(room, play.next_timer(room, now))
        return
    timer_jobs()[kind](room_id, str(room.phase_version))


def timer_jobs() -> dict[JobKind, Callable[[str, str], None]]:
    """The job each phase timer runs."""
    return {JobKind.DEADLINE: deadline, JobKind.TURN_TIMEOUT: turn_timeout, JobKind.REMIND: remind}


def in_phase(room: Room | None, phase: str) -> bool:
    """Whether the room is playing still in the phase that began at version `phase`."""
    return room is not None and room.status == "playing" and str(room.phase_version) == phase


def room_in_phase(rt: Runtime, room_id: str, phase: str) -> Room | None:
    """The room, if it is playing still in `phase`; else None (the job is moot)."""
    room = rt.svc.store.load(room_id)
    return room if in_phase(room, phase) else None


def on_phase(rt: Runtime, room_id: str, phase: str, change: Callable[[Room], Outcome]) -> None:
    """Commit `change` if the room is still in `phase` when read again for the commit,
    with the bots' moves due at once after it, and bring the chats up to date in this
    same job (a job of their own would cost RQ's bookkeeping again, most of what a job
    costs)."""
    step = commit_in_phase(rt, room_id, phase, change)
    if step is not None:
        streak(rt, room_id, step)


def commit_in_phase(
    rt: Runtime,
    room_id: str,
    phase: str,
    change: Callable[[Room], Outcome],
    budget: int | None = None,
) -> Step | None:
    """Commit `change` if the room is still in `phase` (`commit_here`)."""
    return commit_here(
        rt, room_id, lambda fresh: change(fresh) if in_phase(fresh, phase) else Outcome(), budget
    )


def commit_here(
    rt: Runtime, room_id: str, change: Callable[[Room], Outcome], budget: int | None = None
) -> Step | None:
    """Commit `change` and, in the same commit, the cheap bots' turns due at once after
    it (`budget` of them at most, MAX_STREAK if None): a press and the bots' replies are
    one read and one write. A thinking bot's turn goes to the bots' queue in the same
    commit; the chats, and the cheap turns it did not play, are left to this job
    (`streak`). Should a bot's move raise, the change commits alone and its turns go to
    `streak`, move by move, as they did before. None if the room is gone."""
    now, delay = rt.svc.now(), rt.svc.settings.bot_delay
    bots = MAX_STREAK if budget is None else budget
    try:
        return committed(rt, room_id, BotsAfter(change, now, delay, rt.svc.store.bot_delay, bots))
    except BotFailed:
        log.exception("room %s: a bot's move failed: the change commits alone", room_id)
        return committed(rt, room_id, BotsAfter(change, now, delay, rt.svc.store.bot_delay, 0))


def committed(rt: Runtime, room_id: str, change: BotsAfter) -> Step | None:
    """Commit `change`: the cheap bot turns it left due now are this job's (a killed job
    leaves them to the sweeper, which finds their room due). None if the room is gone."""
    here = partial(due_here, now=change.now)
    result = rt.svc.store.update(room_id, change, sync_job=False, here=here)
    if result is None:
        return None
    room, outcome = result
    turns = [job for job in outcome.jobs if here(job) and waiting_seat(room, job.arg) is not None]
    return Step(outcome, turns, change.played, room)


def due_here(job: Job, now: float) -> bool:
    """A cheap bot's turn due at once (no thinking delay): played by the job that made
    it (a thinking bot's is a `bot_think` by now, `to_its_queue`)."""
    return job.kind is JobKind.BOT_TURN and job.at <= now


class BotFailed(Exception):
    """A bot's move raised in the commit of the change before it."""


# The jobs that name the phase they were made for: moot once the room has left it.
PHASED = frozenset({JobKind.BOT_TURN, JobKind.BOT_THINK, *PHASE_TIMERS})


@dataclass
class BotsAfter:
    """A change, then the cheap bots due at once after it played on the same fresh room,
    each as its own job would (its choice from its seat's view, the same seed): first
    in, first played. A pure function of the fresh room, as the store may run it again
    on a conflict. A thinking bot's turn, or one due later, stays a job. `played`: the
    bot turns its last run took. `queued_delay`: the store's bot delay, with which it
    applies a room's queued presses before the change (their jobs are not the change's:
    the turns of a phase begun so are found again, `play.bot_jobs`)."""

    change: Callable[[Room], Outcome]
    now: float
    delay: float
    queued_delay: float
    budget: int
    played: int = 0

    def __call__(self, fresh: Room) -> Outcome:
        self.played = 0
        outcome = routed(fresh, self.change(fresh))
        turns = self.due(fresh, outcome.jobs) if self.budget > 0 else []
        while turns and self.played < self.budget:
            self.played += 1
            turn = turns.pop(0)
            moved = self.bot_moves(fresh, turn)
            if moved is None:  # moot, or its bot thinks: left to the turn's own job
                continue
            if turn in outcome.jobs:
                outcome.jobs.remove(turn)
            outcome = outcome.then(moved)  # (a job answers no popup)
            turns += [job for job in moved.jobs if due_here(job, self.now)]
        if self.played:  # the jobs of a phase the bots moved past are moot
            phase = str(fresh.phase_version)
            outcome.jobs = [j for j in outcome.jobs if j.kind not in PHASED or of_phase(j, phase)]
        return outcome

    def due(self, room: Room, jobs: list[Job]) -> list[Job]:
        """The cheap bots' turns due now after the change: its outcome's, then those of a
        phase that began with no move since (a queued press the store applied)."""
        turns = [job for job in jobs if due_here(job, self.now)]
        if room.version != room.phase_version or room.turn_started is None:
            return turns
        known = {job.arg for job in turns}
        begun = play.bot_jobs(room, room.turn_started, self.queued_delay)
        return turns + [j for j in begun if due_here(j, self.now) and j.arg not in known]

    def bot_moves(self, room: Room, turn: Job) -> Outcome | None:
        """The turn's cheap bot moves on `room`; None if it is moot or its bot thinks."""
        seat = waiting_seat(room, turn.arg)
        if seat is None or thinks(room, seat):
            return None
        try:
            action = play.bot_action(room, seat)
            return routed(room, play.bot_turn(room, seat, action, self.now, self.delay))
        except Exception as exc:  # the room is half changed: this run is dropped
            raise BotFailed(f"room {room.id}, seat {seat}") from exc


def routed(room: Room, outcome: Outcome) -> Outcome:
    """The outcome with each bot's turn as the job for its bot (`to_its_queue`)."""
    outcome.jobs = [to_its_queue(room, job) for job in outcome.jobs]
    return outcome


def of_phase(job: Job, phase: str) -> bool:
    """Whether a phased job (`<phase>` or `<phase>:<seat>`) names `phase`."""
    return job.arg.partition(":")[0] == phase


def streak(rt: Runtime, room_id: str, step: Step) -> None:
    """Play the bot turns a commit left here, and those they leave in turn, then bring
    every chat they changed up to date once. Should a move fail, the turns not played
    yet go to jobs of their own."""
    synced, turns, played = set(step.outcome.sync), list(step.turns), step.played
    last = step.room
    try:
        while turns and played < MAX_STREAK:
            moved = bot_step(rt, room_id, turns[0].arg, MAX_STREAK - played - 1)
            turns.pop(0)
            played += 1 if moved is None else moved.played
            if moved is not None:
                synced |= moved.outcome.sync
                turns += moved.turns
                last = moved.room
    finally:
        for job in turns:  # a failed move, or a streak too long for one job
            queue.schedule_alone(rt.jobs, job)
    settle_chats(rt, room_id, Outcome(sync=synced), last)


def settle_chats(rt: Runtime, room_id: str, outcome: Outcome, known: Room | None = None) -> None:
    """Sync the outcome's targets; if that fails, each goes to a job of its own (and its
    pending mark to the sweeper, should that fail too). `known`: the room as last
    committed here (`outbox.sync_all`)."""
    texts = sorted(outcome.sync)
    if not texts:
        return
    try:
        outbox.sync_all(rt, room_id, texts, known)
    except Exception:
        log.exception("room %s: its chats synced by a job of their own", room_id)
        for target in texts:
            queue.later(rt.jobs, JobKind.SYNC, room_id, target, rt.svc.now())


# ----- jobs queued under older names -----------------------------------------------------


@metrics.job("bot_move")
def bot_move(room_id: str, version: str) -> None:
    """A follow-suit bot's turn as queued before phases: the seat is the one to act."""
    room = runtime().svc.store.load(room_id)
    bots = room.bots_waiting() if room is not None else []
    if bots:
        bot_turn(room_id, f"{version}:{bots[0]}")


passing_close = deadline
passing_bot = bot_turn  # (a thinking bot's sent on as any bot_turn is)
passing_remind = remind


@metrics.job("sweep", about_game=False)
def sweep(slot: str) -> None:
    """The periodic sweep (see workers.sweeper) and the end of idle rooms (workers.expiry),
    then the next sweep in the chain."""
    rt = runtime()
    settings = rt.svc.settings
    found = sweeper.sweep_once(rt.svc.store, rt.svc.now(), settings.sweep_grace)
    if found:
        log.info("sweep %s: scheduled %d missing jobs", slot, found)
    expiry.expire_idle(rt, rt.svc.now())
    sweeper.ensure_chain(rt.jobs, settings.sweep_every, rt.svc.now())
