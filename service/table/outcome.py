"""What handling one chat update decided: the popup to answer with, the chats to bring
up to date, and the jobs to schedule, all committed together with the room."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


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
    DEADLINE = "deadline"  # the game's own clock ran out (arg: the phase)
    TURN_TIMEOUT = "turn_timeout"  # the table's turn time ran out (arg: the phase)
    REMIND = "remind"  # nudge the players yet to act (arg: the phase)
    SWEEP = "sweep"  # the periodic sweep (arg: its time slot)
    TIMER = "timer"  # a room's timer came due: what its clock says (arg: when it was seen)


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

    def say(self, message: str, alert: bool = False, **values: object) -> Outcome:
        self.popup = Popup(message, tuple(values.items()), alert)
        return self
