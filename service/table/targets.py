"""What a sync job brings up to date: one chat message of a room, named by a `Target`.

The table names targets in an `Outcome` (`Outcome.sync`), the store schedules one sync
job per target with its text form as the job's argument (and its pending mark), and
the outbox parses it back. The text forms are what queued jobs and Redis marks carry,
so they never change:

    table           the room's table (a private game's one message)
    hand:<user>     a player's own message (in a group game, in their private chat)
    mine:<user>     a player's hand in the group, shown to them alone (`:new`: in answer
                    to what they asked, kept till then: service.desk.showing)
    nudge           a turn reminder in the group
    news            a hand's or the game's end, in the room's chat
    news:<user>     the same in a player's private chat
    said:<user>:<why>:<action>   a move played for a player, told in their chat
    said:<user>:knock:<visitor>[.<why>]  someone followed a link to the player's table
                                 and was not seated (a game against bots seats nobody;
                                 or its game started, was full, was over): told to them

Where a room's table is seen: a group's in the group; a table in a person's own chat (a
family's, opened from a private chat) only there: every other seat is shown it with
its hand (`shows_table`), whatever its platform.

`:new` after `table` or `hand:<user>` asks for a fresh message (it notifies) rather
than an edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from service.table.room import Room

Kind = Literal["table", "hand", "mine", "nudge", "news", "said"]
_KINDS: tuple[Kind, ...] = ("table", "hand", "mine", "nudge", "news", "said")
NEW = ":new"
KNOCK = "knock"  # said: someone followed a link to the player's table, not seated
# Why they were not: the player's game against bots, or the game started, full, or over.
PRIVATE, STARTED, FULL, OVER = "private", "started", "full", "over"


@dataclass(frozen=True)
class Target:
    kind: Kind
    user: int | None = None  # hand, mine, said, and news in a player's chat
    new: bool = False  # a fresh message rather than an edit
    why: str = ""  # said: timeout (their time ran out) or only (their only move)
    action: str = ""  # said: the move played for them

    def __str__(self) -> str:
        if self.kind == "said":
            return f"said:{self.user}:{self.why}:{self.action}"
        text = self.kind if self.user is None else f"{self.kind}:{self.user}"
        return text + (NEW if self.new else "")

    @property
    def one_off(self) -> bool:
        """Posted once per request, never edited afterwards (news, said)."""
        return self.kind in ("news", "said")

    @property
    def base(self) -> Target:
        """The message this target shows, whether anew or edited."""
        return Target(self.kind, self.user, False, self.why, self.action)

    @classmethod
    def parse(cls, text: str) -> Target:
        """The target a text form names (ValueError if it names none)."""
        kind, _, rest = text.partition(":")
        if kind == "said":
            user, why, action = rest.split(":", 2)
            return cls("said", int(user), why=why, action=action)
        new = rest == "new" or rest.endswith(NEW)
        rest = rest.removesuffix(NEW) if rest != "new" else ""
        if kind not in _KINDS or (rest and not rest.lstrip("-").isdigit()):
            raise ValueError(f"not a sync target: {text!r}")
        return cls(_KINDS[_KINDS.index(kind)], int(rest) if rest else None, new)


# The text forms the table puts in `Outcome.sync`.
TABLE, TABLE_NEW, NUDGE, NEWS = "table", "table:new", "nudge", "news"
# Between the targets of one sync job (a change's): no target's text form holds it.
SEP = ","


def joined(texts: list[str]) -> str:
    return SEP.join(texts)


def split(arg: str) -> list[str]:
    """The targets a sync job's argument names (one, or a change's several)."""
    return arg.split(SEP)


def hand(user: int, new: bool = False) -> str:
    """A player's own message (`new`: posted afresh, so that it notifies)."""
    return str(Target("hand", user, new))


def mine(user: int, new: bool = False) -> str:
    """A player's hand in the group, to them alone (`new`: shown in answer to their ask)."""
    return str(Target("mine", user, new))


def news(user: int) -> str:
    """A hand's or the game's end, told in a player's private chat."""
    return str(Target("news", user))


def said(user: int, why: str, action: str) -> str:
    """A move played for a player (`why`: timeout, or only when it was their only
    legal move), told in their chat."""
    return str(Target("said", user, why=why, action=action))


def knock(owner: int, visitor: int, why: str = PRIVATE) -> str:
    """Told to `owner`: `visitor` followed a link to their table and was not seated
    (`why`: it was their game against bots, or its game had started, was full, or was
    over). The action is `<visitor>` for a game against bots, else `<visitor>.<why>`."""
    return said(owner, KNOCK, str(visitor) if why == PRIVATE else f"{visitor}.{why}")


def knocked(action: str) -> tuple[int | None, str]:
    """The visitor and why, from a knock's action (`knock`)."""
    visitor, _sep, why = action.partition(".")
    return (int(visitor) if visitor.lstrip("-").isdigit() else None), why or PRIVATE


def in_own_chat(room: Room) -> bool:
    """Whether the room's table is in a person's own chat rather than a group's: a game
    against bots, or a family's table opened from its host's private chat (the chat is
    its host's: they opened it, or sit at it)."""
    return room.private or room.chat_id == room.creator or room.seat_of(room.chat_id) is not None


def shows_table(room: Room, user: int) -> bool:
    """Whether the room's own chat shows `user` its table: a group's, to a player who
    plays from where the group is (a group of one platform is no chat of another's);
    a table in a person's own chat, to that person. A player it does not is shown the
    table in their own chat, above their hand."""
    if in_own_chat(room):
        return room.chat_id == user
    seat = room.seat_of(user)
    return seat is not None and room.seats[seat].platform == room.platform
