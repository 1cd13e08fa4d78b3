"""Groups that change under a game: a group named or renamed (its title is its table's
name), upgraded to a supergroup (its id changes), a forum topic closed or deleted, the
bot removed from the group.

A move to the new chat id keeps the room, its version and its timers, and posts the
table afresh there (the old group's messages cannot be edited through the new id). A
game whose chat is gone for good is stopped: the room is kept as cancelled and expires
after the retention (`Store`), like any ended game. Finding the rooms in Redis and
moving their keys is `service.infra.chats`.
"""

from __future__ import annotations

from service.i18n import Translator, _
from service.table import names, play, targets
from service.table.outcome import Outcome
from service.table.room import LIVE, Room


def named(room: Room, title: str) -> Outcome:
    """A group's title (as an update of the group carries it) kept as its table's name,
    when it is new. Saved without a new version, the room's buttons stay good, and
    without a message: the next screen of the table shows it."""
    name = names.clean(title, "")
    if not name or room.private or room.name == name:
        return Outcome()
    room.name = name
    return Outcome(changed=True)


def move(room: Room, old_chat: int, new_chat: int) -> Outcome:
    """The room's change for an upgrade: its new chat, and a live table posted there;
    and the turn's reminder again, once given in the old group, when it names someone
    who plays from the group: it holds their way to their cards (workers.outbox), and
    their hand shown in the old group is left behind."""
    if room.chat_id != old_chat:
        return Outcome()
    room.chat_id = new_chat
    if room.status not in LIVE:
        return Outcome(changed=True)
    sync = {targets.TABLE_NEW}
    if room.reminded and play.from_group(room):
        sync.add(targets.NUDGE)
    return Outcome(changed=True, sync=sync)


def stopped(room: Room, now: float, show: bool) -> Outcome:
    """A live game whose chat is gone ends (kept as cancelled until it expires); `show`:
    the table says so."""
    if room.status not in LIVE:
        return Outcome()
    room.status = "cancelled"
    room.deadline = None
    room.updated = now
    room.version += 1
    return Outcome(changed=True, sync={"table"} if show else set())


def topic_gone_word(tr: Translator, closed: bool) -> str:
    """What General is told when a game's topic was closed (or deleted)."""
    if closed:
        return tr.gettext(
            _("🫏 A game of Burro ended: its topic was closed. Send /burro to play again.")
        )
    return tr.gettext(
        _("🫏 A game of Burro ended: its topic was deleted. Send /burro to play again.")
    )
