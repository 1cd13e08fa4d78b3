"""What handling one chat update decided: the popup to answer with, the chats to bring
up to date, and the jobs to schedule, all committed together with the room."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Popup:
    """A short answer to the person who pressed, as a message id and its values."""

    message: str
    values: tuple[tuple[str, object], ...] = ()
    alert: bool = False


@dataclass(frozen=True)
class Job:
    """Work for a worker: `kind` names a function in `workers.jobs`; `at` is when."""

    kind: str  # sync, bot_move, turn_timeout, remind
    room: str
    arg: str  # the version for timers, the target chat for sync
    at: float
    tag: str = ""  # distinguishes a second job of the same kind and arg (e.g. "sweep")


@dataclass
class Outcome:
    popup: Popup | None = None
    changed: bool = False  # the room was changed and must be saved
    sync: set[str] = field(default_factory=set)  # "table" or "hand:<user id>"
    jobs: list[Job] = field(default_factory=list)
    finished: bool = False  # the game ended: count it in the statistics

    def say(self, message: str, alert: bool = False, **values: object) -> Outcome:
        self.popup = Popup(message, tuple(values.items()), alert)
        return self
