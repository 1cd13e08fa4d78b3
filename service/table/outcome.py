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


# The follow-suit game's timers, named after their functions in workers.jobs. Each names
# the room version it was made for and does nothing once the room has moved on, so a move
# makes the last ones moot (service.infra.queue.unschedule_timers deletes them).
BOT_MOVE, TURN_TIMEOUT, REMIND = "bot_move", "turn_timeout", "remind"
VERSION_TIMERS = (TURN_TIMEOUT, REMIND, BOT_MOVE)


@dataclass(frozen=True)
class Job:
    """Work for a worker: `kind` names a function in `workers.jobs`; `at` is when."""

    kind: str  # sync, or one of VERSION_TIMERS
    room: str
    arg: str  # the version for timers, the target chat for sync
    at: float
    tag: str = ""  # distinguishes a second job of the same kind and arg (e.g. "sweep")


@dataclass
class Outcome:
    popup: Popup | None = None
    changed: bool = False  # the room was changed and must be saved
    # "table", "hand:<user id>", "news" / "news:<user id>" (a hand's or game's end, told
    # in the group / a player's chat), "said:<user id>:<why>:<action>" (a move played
    # for a player, told in their chat): see workers.outbox
    sync: set[str] = field(default_factory=set)
    jobs: list[Job] = field(default_factory=list)
    finished: bool = False  # the game ended: count it in the statistics
    acted: dict[int, float] = field(default_factory=dict)  # user id -> when they moved

    def say(self, message: str, alert: bool = False, **values: object) -> Outcome:
        self.popup = Popup(message, tuple(values.items()), alert)
        return self
