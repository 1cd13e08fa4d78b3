"""What a press of a room's button asks of the table, on any platform: the change to
commit with the room (or a refusal at once), who may make it, and a rematch."""

from __future__ import annotations

from collections.abc import Callable

from service.i18n import _
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room
from service.ui.intents import Command, CommandName, Move, Option, Press

Change = Callable[[Room], Outcome]
# Presses only the table's creator or a group admin may make (admins need a check):
# settings, start, bots in the lobby, cancel (its confirmation), rematch; and options.
MANAGING: tuple[CommandName, ...] = (
    "settings",
    "settings_done",
    "start",
    "add_bot",
    "remove_bot",
    "cancel",
    "rematch",
)


def is_command(press: Press, *names: CommandName) -> bool:
    return isinstance(press.what, Command) and press.what.name in names


def managing(press: Press) -> bool:
    """Whether only the table's creator (or a group's admin) may make this press."""
    return is_command(press, *MANAGING) or isinstance(press.what, Option)


def change_for(
    room: Room, press: Press, actor: Actor, now: float, bot_delay: float
) -> Change | Outcome:
    """The change a press asks for, or an Outcome that refuses it at once."""
    what = press.what
    if isinstance(what, Move):
        return play.press(room, press.version, actor.user_id, what.action, now, bot_delay)
    simple: dict[CommandName, Change] = {
        "join": lambda r: lobby.join(r, actor),
        "leave": lambda r: lobby.leave(r, actor),
        "add_bot": lambda r: lobby.add_bot(r, actor),
        "remove_bot": lambda r: lobby.remove_bot(r, actor),
        "start": lambda r: lobby.start(r, actor, now, bot_delay),
        "settings": lambda r: lobby.open_settings(r, actor, True),
        "settings_done": lambda r: lobby.open_settings(r, actor, False),
        "rules": lambda r: Outcome(),
        "cancel": lambda r: lobby.cancel(r, actor, now),
        "keep_playing": lambda r: Outcome().say(_("The game goes on.")),
    }
    if isinstance(what, Command) and what.name in simple:
        return simple[what.name]
    if isinstance(what, Option):
        if press.version != room.version:
            return Outcome().say(_("This button is out of date."))
        key = what.key
        return lambda r: lobby.change_setting(r, actor, key)
    return Outcome().say(_("This button is not one of ours."))
