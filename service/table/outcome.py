"""What handling one chat update decided: the popup to answer with, the chats to bring
up to date, and the jobs to schedule, all committed together with the room."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property


@dataclass(frozen=True)
class Popup:
    """A short answer to the person who pressed, as a message id and its values."""

    message: str
    values: tuple[tuple[str, object], ...] = ()
    alert: bool = False


class JobKind(StrEnum):
    """The workers' jobs, each a function of the same name in `workers.jobs`."""

    SYNC = "sync"  # bring one chat's message up to date (arg: the target)
    NOTICE = "notice"  # send a message kept for the flood budget (arg unused)
    BOT_TURN = "bot_turn"  # a bot acts (arg: "<phase>:<seat>")
    # a bot that thinks (a strong one) acts, on the bots' own queue (service.infra.queue)
    BOT_THINK = "bot_think"
    DEADLINE = "deadline"  # the game's own clock ran out (arg: the phase)
    TURN_TIMEOUT = "turn_timeout"  # the table's turn time ran out (arg: the phase)
    REMIND = "remind"  # nudge the players yet to act (arg: the phase)
    SWEEP = "sweep"  # the periodic sweep (arg: its time slot)
    TIMER = "timer"  # a room's timer came due: what its clock says (arg: when it was seen)
    PRESS = "press"  # a player's move that serve answered and left to a worker (QueuedPress)


# Timers name the phase they were made for and do nothing once the room has moved on.
# They wait as the room's place in `rooms:timers` (service.infra.timers), not as jobs.
PHASE_TIMERS = (JobKind.TURN_TIMEOUT, JobKind.REMIND, JobKind.DEADLINE)


@dataclass(frozen=True)
class Job:
    """Work for a worker: `kind` names a function in `workers.jobs`; `at` is when."""

    kind: JobKind
    room: str
    arg: str  # the phase for timers, "<phase>:<seat>" for a bot, the target for sync
    at: float
    tag: str = ""  # distinguishes a second job of the same kind and arg (e.g. "sweep")


@dataclass
class Outcome:
    popup: Popup | None = None
    changed: bool = False  # the room was changed and must be saved
    # the chat messages to bring up to date, as `service.table.targets` names them
    sync: set[str] = field(default_factory=set)
    jobs: list[Job] = field(default_factory=list)
    finished: bool = False  # the game ended: count it in the statistics
    acted: dict[int, float] = field(default_factory=dict)  # user id -> when they moved
    # the queued presses (QueuedPress.member) this change settles: their pending marks go
    presses: list[str] = field(default_factory=list)

    def then(self, later: Outcome) -> Outcome:
        """This outcome and then `later`'s, as one commit's (its popup is `later`'s)."""
        return Outcome(
            popup=later.popup,
            changed=self.changed or later.changed,
            sync=self.sync | later.sync,
            jobs=[*self.jobs, *later.jobs],
            finished=self.finished or later.finished,
            acted=self.acted | later.acted,
            presses=[*self.presses, *later.presses],
        )

    def say(self, message: str, alert: bool = False, **values: object) -> Outcome:
        self.popup = Popup(message, tuple(values.items()), alert)
        return self


@dataclass(frozen=True)
class QueuedPress:
    """A player's move that `serve` answered at once and a worker applies (Store.aclaim
    with a press, `workers.jobs.press`): the one its button offered in the phase that
    began at `phase`, pressed at `at` in update `update_id`."""

    room: str
    phase: int
    user: int
    update_id: int | str  # Telegram's update_id, or a platform's text mark ("wa:<wamid>")
    at: float
    action: str

    @cached_property  # three readers per press: its job, its mark, the claim's script
    def arg(self) -> str:
        """The press as its job's argument (the action last: it may hold a colon)."""
        mark = str(self.update_id).replace(":", "~")  # a text mark's colon kept out of the split
        return f"{self.phase}:{self.user}:{mark}:{self.at:.6f}:{self.action}"

    @property
    def member(self) -> str:
        """Its mark in `presses:pending` until a commit settles it (the sweeper's)."""
        return f"{self.room}|{self.arg}"

    def job(self) -> Job:
        return Job(JobKind.PRESS, self.room, self.arg, self.at)

    @classmethod
    def parse(cls, room: str, arg: str) -> QueuedPress | None:
        """The press a job's argument names; None if it names none."""
        phase, user, update_id, at, action = (arg.split(":", 4) + [""] * 5)[:5]
        try:
            mark: int | str = int(update_id) if update_id.isdigit() else update_id.replace("~", ":")
            return cls(room, int(phase), int(user), mark, float(at), action)
        except ValueError:
            return None
