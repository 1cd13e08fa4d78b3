"""The lobby: sitting down, bots, settings, and starting the game.

Functions change the room they are given and return an `Outcome` (a popup for the
presser, chats to sync). Who may do what is checked here; the chat adapter tells us
whether the presser is a group admin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.kernel.errors import RulesError
from engine.registry import preset_names
from service.i18n import LANGUAGES, _
from service.table import play, targets
from service.table.games import game_of, next_of, rules_of, table_of
from service.table.identity import TELEGRAM
from service.table.names import distinct, shown
from service.table.outcome import Outcome
from service.table.quiet import TIMEZONES, WINDOWS
from service.table.room import (
    BOT_LEVELS,
    MAX_SEATS,
    Room,
    RoomSettings,
    Seat,
    new_game_key,
    new_room_id,
)

BOT_NAMES = ("Rocinante", "Platero", "Burrito", "Pancho", "Lucero", "Canela", "Trueno")


@dataclass(frozen=True)
class Actor:
    """Who pressed: their player id, display name and language, and the platform they
    play from (their seat's; a room opened by them is on it)."""

    user_id: int
    name: str
    lang: str
    admin: bool = False
    platform: str = TELEGRAM


def create_room(
    chat_id: int,
    thread_id: int | None,
    actor: Actor,
    now: float,
    private: bool = False,
    settings: RoomSettings | None = None,
    platform: str | None = None,
) -> Room:
    """A lobby in a chat of `platform` (the opener's unless given), the opener seated."""
    room = Room(
        id=new_room_id(),
        chat_id=chat_id,
        thread_id=thread_id,
        platform=platform or actor.platform,
        private=private,
        creator=actor.user_id,
        settings=settings or RoomSettings(),
        created=now,
        updated=now,
        seed=new_game_key(),
    )
    room.seats.append(seat_of(actor))
    return room


def seat_of(actor: Actor, room: Room | None = None) -> Seat:
    """The actor's seat, under a name that looks like no other seat's of `room`."""
    name = distinct(actor.name, taken(room.seats)) if room is not None else actor.name
    return Seat(user_id=actor.user_id, platform=actor.platform, name=name, lang=actor.lang)


def taken(seats: list[Seat]) -> list[str]:
    return [seat.name for seat in seats]


def told_apart(seats: list[Seat]) -> list[Seat]:
    """The seats, each named unlike those before it (`Ana`, `Ana (2)`): a room kept
    before names were told apart may have two alike."""
    out: list[Seat] = []
    for seat in seats:
        out.append(seat.model_copy(update={"name": distinct(seat.name, taken(out))}))
    return out


def may_manage(room: Room, actor: Actor) -> bool:
    return actor.user_id == room.creator or actor.admin


def join(room: Room, actor: Actor) -> Outcome:
    if room.private:
        return Outcome().say(_("This is someone's private game: it cannot be joined."))
    if room.status != "lobby":
        return Outcome().say(_("The game has already started."))
    if room.seat_of(actor.user_id) is not None:
        return Outcome().say(_("You are already sitting at this table."))
    if len(room.seats) >= seat_limit(room):
        return Outcome().say(_("The table is full."))
    seat = seat_of(actor, room)
    room.seats.append(seat)
    # Only the joiner is named: a press's answer is kept with its update's mark, and
    # must name nobody who might ask to be forgotten meanwhile.
    if targets.in_own_chat(room):  # no group shows it: each player is shown it
        welcome = _(
            "Welcome to the table, {name}! The table and your cards will come in your "
            "private chat with me."
        )
    else:
        welcome = _(
            "Welcome to the table, {name}! Your cards will come in your private chat with me."
        )
    return changed(room).say(welcome, name=shown(seat.name))


def knocked(room: Room, visitor: int, why: str = targets.PRIVATE) -> Outcome:
    """Someone followed a link to the room's table and was not seated (`why`,
    targets.knock): its owner is told, in their chat. The room itself is unchanged (its
    buttons stay good: no new version)."""
    return Outcome(changed=True, sync={targets.knock(room.creator, visitor, why)})


def missed(room: Room, user_id: int) -> str | None:
    """Why a person who asked to sit at the table is not seated (targets.knock's why),
    or None: they are, or it is no table a link could seat them at."""
    if room.seat_of(user_id) is not None:
        return None
    if room.status not in ("lobby", "playing"):
        return targets.OVER
    if room.status == "playing":
        return targets.STARTED
    return targets.FULL if len(room.seats) >= seat_limit(room) else None


def leave(room: Room, actor: Actor) -> Outcome:
    if room.status != "lobby":
        return Outcome().say(_("The game has already started."))
    seat = room.seat_of(actor.user_id)
    if seat is None:
        return Outcome().say(_("You are not at this table."))
    del room.seats[seat]
    if not room.humans():
        room.status = "cancelled"
    elif actor.user_id == room.creator:
        room.creator = room.humans()[0]
    return changed(room).say(_("You left the table."))


def add_bot(room: Room, actor: Actor) -> Outcome:
    if room.status != "lobby":
        return Outcome().say(_("The game has already started."))
    if not may_manage(room, actor):
        return Outcome().say(_("Only the player who opened the table (or an admin) can add bots."))
    if len(room.seats) >= seat_limit(room):
        return Outcome().say(_("The table is full."))
    name = bot_name(room)
    room.seats.append(Seat(name=name, bot=room.settings.bot_level, lang=actor.lang))
    return changed(room).say(_("{name} the bot sits down."), name=name)


def bot_name(room: Room) -> str:
    """The first of `BOT_NAMES` that looks like no seat's name (a person may be called
    Canela too)."""
    names = taken(room.seats)
    free = (n for n in BOT_NAMES if distinct(n, names) == n)
    return next(free, distinct(f"Bot {len(room.seats) + 1}", names))


def remove_bot(room: Room, actor: Actor) -> Outcome:
    if room.status != "lobby":
        return Outcome().say(_("The game has already started."))
    if not may_manage(room, actor):
        return Outcome().say(
            _("Only the player who opened the table (or an admin) can remove bots.")
        )
    bots = [i for i, seat in enumerate(room.seats) if seat.bot is not None]
    if not bots:
        return Outcome().say(_("There is no bot at the table."))
    name = room.seats[bots[-1]].name
    del room.seats[bots[-1]]
    return changed(room).say(_("{name} the bot leaves the table."), name=name)


def seat_limit(room: Room) -> int:
    preset = room.settings.preset
    return min(MAX_SEATS, game_of(preset).presets[preset].players[1])


def start(room: Room, actor: Actor, now: float, bot_delay: float = 0.0) -> Outcome:
    if room.status != "lobby":
        return Outcome().say(_("The game has already started."))
    if not may_manage(room, actor):
        return Outcome().say(_("Only the player who opened the table (or an admin) can start."))
    return play.start(room, now, bot_delay)


def rematch(
    room: Room, actor: Actor, now: float, bot_delay: float = 0.0, anew: bool = True
) -> tuple[Room, Outcome] | Outcome:
    """A new room for the same table: same seats and settings; a one-to-one game starts
    at once, a group gets a lobby (players may leave or join before Start). `anew`: its
    table is posted as a fresh message, else brought up to date as any change is."""
    if room.status != "over":
        return Outcome().say(_("The game is not over yet."))
    if not may_manage(room, actor):
        return Outcome().say(
            _("Only the player who opened the table (or an admin) can start a new game.")
        )
    settings = room.settings.model_copy(deep=True)
    if room.game is not None:  # the cards look as they did (a game older than its looks)
        settings.options.setdefault("suit_style", room.game.rules.suit_style)
    fresh = create_room(
        room.chat_id, room.thread_id, actor, now, room.private, settings, room.platform
    )
    fresh.creator = room.creator
    seats = [seat.model_copy(update={"timeouts": 0, "removed": False}) for seat in room.seats]
    fresh.seats = told_apart(seats)
    outcome = Outcome(changed=True)
    if room.private:
        outcome = start(fresh, Actor(room.creator, actor.name, actor.lang), now, bot_delay)
    outcome.sync = {targets.TABLE_NEW if anew else targets.TABLE}
    return fresh, outcome


def relabel(room: Room, user_id: int, lang: str) -> Outcome:
    """A player chose another language: their seat speaks it from now on, and their
    screens are shown again in it (the table too: it speaks its creator's language
    unless the table chose one). The buttons stay good: the version does not move."""
    seat = room.seat_of(user_id)
    if seat is None or room.status not in ("lobby", "playing") or room.seats[seat].lang == lang:
        return Outcome()
    room.seats[seat].lang = lang
    outcome = Outcome(changed=True, sync={targets.TABLE})
    if room.game is not None and not room.private:
        outcome.sync.add(targets.hand(user_id))
    return outcome


def changed(room: Room) -> Outcome:
    room.version += 1
    return Outcome(changed=True, sync={"table"})


# ----- settings ---------------------------------------------------------------------

REMINDERS = (30, 120, 1800, 3600, 3 * 3600, 6 * 3600)


def change_setting(room: Room, actor: Actor, key: str) -> Outcome:
    """Cycle one setting to its next value (each settings button is a cycle)."""
    if room.status != "lobby":
        return Outcome().say(_("The game has already started."))
    if not may_manage(room, actor):
        return Outcome().say(
            _("Only the player who opened the table (or an admin) can change the settings.")
        )
    settings = room.settings.model_copy(deep=True)
    before = dict(settings.options)
    if not cycle(settings, key):
        return Outcome().say(_("Unknown setting."))
    if key == "preset":  # the new game's own defaults (a group may play it slowly)
        settings.options = table_of(settings.preset).initial_options(None, not room.private)
    try:
        rules_of(settings)
    except RulesError:
        # A value this preset cannot take (e.g. 7 cards for many players): back to the
        # preset's own.
        for name in [k for k, v in settings.options.items() if before.get(k) != v]:
            settings.options.pop(name)
    room.settings = settings
    return changed(room)


def cycle(settings: RoomSettings, key: str) -> bool:
    """Cycle a setting: the preset, the game's own settings, then those all share."""
    if key == "preset":
        names = list(preset_names())
        settings.preset = names[(names.index(settings.preset) + 1) % len(names)]
        settings.options = {}
        return True
    mine = table_of(settings.preset).cycle(settings, key)
    return mine if mine is not None else cycle_shared(settings, key)


def cycle_shared(settings: RoomSettings, key: str) -> bool:
    """The settings every game has: reminders, language, bots, quiet hours, tips."""
    if key == "remind":
        settings.reminder_after = next_of(REMINDERS, settings.reminder_after)
    elif key == "lang":
        choices: tuple[Any, ...] = (None, *LANGUAGES)
        settings.language = next_of(choices, settings.language)
    elif key == "bot":
        settings.bot_level = next_of(BOT_LEVELS, settings.bot_level)
    elif key == "quiet":
        settings.quiet_hours = next_of(WINDOWS, settings.quiet_hours)
    elif key == "tz":
        settings.timezone = next_of(TIMEZONES, settings.timezone)
    elif key == "tips":
        settings.tips = not settings.tips
    else:
        return False
    return True


def open_settings(room: Room, actor: Actor, show: bool) -> Outcome:
    if room.status != "lobby":
        return Outcome().say(_("The game has already started."))
    if not may_manage(room, actor):
        return Outcome().say(
            _("Only the player who opened the table (or an admin) can change the settings.")
        )
    room.settings_open = show
    return changed(room)


def cancel(room: Room, actor: Actor, now: float) -> Outcome:
    if room.status not in ("lobby", "playing"):
        return Outcome().say(_("This game is over."))
    if not may_manage(room, actor):
        return Outcome().say(_("Only the player who opened the table (or an admin) can cancel."))
    room.status = "cancelled"
    room.deadline = None
    room.updated = now
    outcome = changed(room).say(_("The game was cancelled."))
    if room.game is not None and not room.private:  # each hand says so, without buttons
        outcome.sync |= {targets.hand(user_id) for user_id in room.humans()}
    return outcome


def show_hand(room: Room, user_id: int) -> Outcome:
    """A player asks for their cards (their private chat opened): posted there afresh."""
    seated = room.seat_of(user_id) is not None
    if seated and room.status == "lobby":
        return Outcome().say(_("You are at the table: your cards will come here when it starts."))
    if not seated or room.status != "playing":
        return Outcome().say(_("You are not playing in this game."))
    room.blocked = [u for u in room.blocked if u != user_id]  # we can write to them now
    return Outcome(changed=True, sync={targets.hand(user_id, new=True)})
