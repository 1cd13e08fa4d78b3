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
from dataclasses import replace
from functools import partial

from engine.kernel.errors import IllegalAction
from service.infra import metrics, queue, timers
from service.infra.keys import PENDING_PRESSES, index_key
from service.platforms import registry
from service.table import play, targets
from service.table.outcome import Job, JobKind, Outcome, QueuedPress
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
        streak(rt, room_id, *step)


@metrics.job("bot_think")
def bot_think(room_id: str, arg: str) -> None:
    """A bot that thinks (a strong one) acts, on the bots' own queue and workers: its
    search costs its own table time, never a press's or a chat's at another table. The
    cheap bots due after it play here too; a thinking one gets a job of its own again,
    so the bots' workers take the tables' decisions in turn."""
    rt = runtime()
    step = bot_step(rt, room_id, arg, think=True)
    if step is not None:
        streak(rt, room_id, *step)


Step = tuple[Outcome, list[Job]]  # a commit's outcome, and the bot turns it left here
# The levels whose decision is cheap enough for the jobs that apply moves and send chats:
# p50 0.06-0.13 ms a decision (p99 under 10 ms on a busy machine) in both games' presets,
# against the follow-suit strong bot's 200 ms search. Any other level (strong, or one
# added later) thinks on the bots' queue.
CHEAP_LEVELS = frozenset({"random", "easy", "heuristic"})


def bot_step(rt: Runtime, room_id: str, arg: str, think: bool = False) -> Step | None:
    """One bot's move: it chooses from its own view outside the transaction (a strong
    bot searches), and it counts only if the phase is the same. None if it is moot, or
    if the bot thinks and this is not the bots' queue (`think`): it is sent there."""
    phase, _, seat_text = arg.partition(":")
    room = room_in_phase(rt, room_id, phase)
    if room is None or not seat_text.isdigit():
        return None
    seat = int(seat_text)
    if seat >= len(room.seats) or seat not in room.bots_waiting():
        return None
    if not think and thinks(room, seat):  # queued as a cheap bot's (serve, the sweeper)
        queue.schedule_alone(rt.jobs, Job(JobKind.BOT_THINK, room_id, arg, 0.0))
        return None
    action = play.bot_action(room, seat)
    now, delay = rt.svc.now(), rt.svc.settings.bot_delay
    return commit_in_phase(
        rt, room_id, phase, lambda fresh: play.bot_turn(fresh, seat, action, now, delay)
    )


def thinks(room: Room, seat: int) -> bool:
    """Whether the seat's bot thinks before it acts: its level (as `play.bot_action`
    picks it) is not a cheap one, and it has a choice (every level answers a forced
    move at once)."""
    if play.bot_level(room, seat) in CHEAP_LEVELS or room.game is None:
        return False
    return len(play.game(room).legal_actions(room.game, seat)) > 1


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
    streak(rt, room_id, *step)


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
    then the bots' moves due at once after it, and bring the chats up to date in this
    same job (a job of their own would cost RQ's bookkeeping again, most of what a job
    costs)."""
    step = commit_in_phase(rt, room_id, phase, change)
    if step is not None:
        streak(rt, room_id, *step)


def commit_in_phase(
    rt: Runtime, room_id: str, phase: str, change: Callable[[Room], Outcome]
) -> Step | None:
    """Commit `change` if the room is still in `phase`; the bot turns it makes due now
    are left to this job (`streak`) instead of queued."""
    return commit_here(
        rt, room_id, lambda fresh: change(fresh) if in_phase(fresh, phase) else Outcome()
    )


def commit_here(rt: Runtime, room_id: str, change: Callable[[Room], Outcome]) -> Step | None:
    """Commit `change`, leaving to this job the chats and the cheap bot turns it makes
    due now (`streak`); a thinking bot's turn goes to the bots' queue in the same
    commit. None if the room is gone."""
    here = partial(due_here, now=rt.svc.now())

    def routed(fresh: Room) -> Outcome:
        outcome = change(fresh)
        outcome.jobs = [to_its_queue(fresh, job) for job in outcome.jobs]
        return outcome

    result = rt.svc.store.update(room_id, routed, sync_job=False, here=here)
    if result is None:
        return None
    outcome = result[1]
    return outcome, [job for job in outcome.jobs if here(job)]


def due_here(job: Job, now: float) -> bool:
    """A cheap bot's turn due at once (no thinking delay): played by the job that made
    it (a thinking bot's is a `bot_think` by now, `to_its_queue`)."""
    return job.kind is JobKind.BOT_TURN and job.at <= now


def streak(rt: Runtime, room_id: str, outcome: Outcome, turns: list[Job]) -> None:
    """Play the bot turns a commit left here, and those they leave in turn, then bring
    every chat they changed up to date once. Should a move fail, the turns not played
    yet go to jobs of their own."""
    synced, turns = set(outcome.sync), list(turns)
    played = 0
    try:
        while turns and played < MAX_STREAK:
            played += 1
            step = bot_step(rt, room_id, turns[0].arg)
            turns.pop(0)
            if step is not None:
                synced |= step[0].sync
                turns += step[1]
    finally:
        for job in turns:  # a failed move, or a streak too long for one job
            queue.schedule_alone(rt.jobs, job)
    settle_chats(rt, room_id, Outcome(sync=synced))


def settle_chats(rt: Runtime, room_id: str, outcome: Outcome) -> None:
    """Sync the outcome's targets; if that fails, each goes to a job of its own (and its
    pending mark to the sweeper, should that fail too)."""
    texts = sorted(outcome.sync)
    if not texts:
        return
    try:
        outbox.sync_all(rt, room_id, texts)
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
