"""The lobby: sitting down, bots, settings, and starting the game.

Functions change the room they are given and return an `Outcome` (a popup for the
presser, chats to sync). Who may do what is checked here; the chat adapter tells us
whether the presser is a group admin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cuartetos import PASSING_PRESETS
from engine.follow_suit.game import new_game, to_move
from engine.follow_suit.rules import PRESETS, Rules
from engine.kernel.errors import RulesError
from service.table.cuartetos import lobby as passing_lobby
from service.table.moves import play_forced, settle
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
from service.ui.i18n import LANGUAGES, _

BOT_NAMES = ("Rocinante", "Platero", "Burrito", "Pancho", "Lucero", "Canela", "Trueno")


@dataclass(frozen=True)
class Actor:
    """Who pressed: their Telegram id, display name and language."""

    user_id: int
    name: str
    lang: str
    admin: bool = False


def create_room(
    chat_id: int,
    thread_id: int | None,
    actor: Actor,
    now: float,
    private: bool = False,
    settings: RoomSettings | None = None,
) -> Room:
    room = Room(
        id=new_room_id(),
        chat_id=chat_id,
        thread_id=thread_id,
        private=private,
        creator=actor.user_id,
        settings=settings or RoomSettings(),
        created=now,
        updated=now,
        seed=new_game_key(),
    )
    room.seats.append(Seat(user_id=actor.user_id, name=actor.name, lang=actor.lang))
    return room


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
    room.seats.append(Seat(user_id=actor.user_id, name=actor.name, lang=actor.lang))
    return changed(room).say(_("Welcome to the table, {name}!"), name=actor.name)


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
    used = {s.name for s in room.seats}
    name = next((n for n in BOT_NAMES if n not in used), f"Bot {len(room.seats) + 1}")
    room.seats.append(Seat(name=name, bot=room.settings.bot_level, lang=actor.lang))
    return changed(room).say(_("{name} the bot sits down."), name=name)


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
    if room.settings.passing:
        return min(MAX_SEATS, PASSING_PRESETS[room.settings.preset].players[1])
    return min(MAX_SEATS, PRESETS[room.settings.preset].players[1])


def start(room: Room, actor: Actor, now: float, bot_delay: float = 0.0) -> Outcome:
    if room.status != "lobby":
        return Outcome().say(_("The game has already started."))
    if not may_manage(room, actor):
        return Outcome().say(_("Only the player who opened the table (or an admin) can start."))
    if room.settings.passing:
        return passing_lobby.start(room, now, bot_delay)
    if len(room.seats) < 2:
        return Outcome().say(_("Two or more players are needed to start."), alert=True)
    try:
        rules = room.settings.rules()
        assert isinstance(rules, Rules)
        refused = unplayable(rules, len(room.seats))
        if refused is not None:
            return refused
        room.game = new_game(rules, len(room.seats), room.seed, dealer=len(room.seats) - 1)
    except RulesError as exc:
        return Outcome().say(
            _("These settings cannot be played: {problem}"), alert=True, problem=str(exc)
        )
    room.status = "playing"
    outcome = Outcome(changed=True)
    touched: set[int] = set(range(len(room.seats)))
    play_forced(room, outcome, touched)
    settle(room, now, outcome, touched, bot_delay)
    assert room.game is not None
    if to_move(room.game) is not None:
        outcome.say(_("The game begins!"))
    return outcome


def unplayable(rules: Rules, seats: int) -> Outcome | None:
    """Why these rules cannot be dealt to this table, in the players' words (the engine
    names presets and decks by their ids)."""
    if not rules.min_players <= seats <= rules.max_players:
        return Outcome().say(
            _("This game is for {least} to {most} players; the table has {n}."),
            alert=True,
            least=rules.min_players,
            most=rules.max_players,
            n=seats,
        )
    if seats * rules.hand_size >= rules.deck_size:
        return Outcome().say(
            _(
                "{n} players with {cards} cards each is more than the deck holds: "
                "choose fewer cards in Settings."
            ),
            alert=True,
            n=seats,
            cards=rules.hand_size,
        )
    return None


def rematch(
    room: Room, actor: Actor, now: float, bot_delay: float = 0.0
) -> tuple[Room, Outcome] | Outcome:
    """A new room for the same table: same seats and settings; a one-to-one game starts
    at once, a group gets a lobby (players may leave or join before Start)."""
    if room.status != "over":
        return Outcome().say(_("The game is not over yet."))
    if not may_manage(room, actor):
        return Outcome().say(
            _("Only the player who opened the table (or an admin) can start a new game.")
        )
    settings = room.settings.model_copy(deep=True)
    if room.game is not None:  # the cards look as they did (a game older than PRESET_LOOKS)
        settings.options.setdefault("suit_style", room.game.rules.suit_style)
    fresh = create_room(room.chat_id, room.thread_id, actor, now, room.private, settings)
    fresh.creator = room.creator
    fresh.seats = [seat.model_copy(update={"timeouts": 0, "removed": False}) for seat in room.seats]
    outcome = Outcome(changed=True)
    if room.private:
        outcome = start(fresh, Actor(room.creator, actor.name, actor.lang), now, bot_delay)
    outcome.sync = {"table:new"}
    return fresh, outcome


def relabel(room: Room, user_id: int, lang: str) -> Outcome:
    """A player chose another language: their seat speaks it from now on, and their
    screens are shown again in it (the table too: it speaks its creator's language
    unless the table chose one). The buttons stay good: the version does not move."""
    seat = room.seat_of(user_id)
    if seat is None or room.status not in ("lobby", "playing") or room.seats[seat].lang == lang:
        return Outcome()
    room.seats[seat].lang = lang
    outcome = Outcome(changed=True, sync={"table"})
    if room.game is not None and not room.private:
        outcome.sync.add(f"hand:{user_id}")
    return outcome


def changed(room: Room) -> Outcome:
    room.version += 1
    return Outcome(changed=True, sync={"table"})


# ----- settings ---------------------------------------------------------------------

TIMEOUTS = (60, 300, 3600, 4 * 3600, 12 * 3600, 24 * 3600)
REMINDERS = (30, 120, 1800, 3600, 3 * 3600, 6 * 3600)
HAND_SIZES = (3, 4, 5, 6, 7)
TARGETS = (1, 3, 5, 7, 10)
EMPTY_STOCK = ("pass", "pickup_after_trick", "take_the_table")
HAND_ENDS = ("last_holder_loses", "first_out_wins")


def change_setting(room: Room, actor: Actor, key: str) -> Outcome:
    """Cycle one setting to its next value (each settings button is a cycle)."""
    if room.status != "lobby":
        return Outcome().say(_("The game has already started."))
    if not may_manage(room, actor):
        return Outcome().say(
            _("Only the player who opened the table (or an admin) can change the settings.")
        )
    settings = room.settings.model_copy(deep=True)
    if not cycle(settings, key):
        return Outcome().say(_("Unknown setting."))
    if key == "preset" and settings.passing and not room.private:
        settings.options = passing_lobby.family_pace()  # a group plays it slowly
    try:
        settings.rules()
    except RulesError:
        # A value this preset cannot take (e.g. 7 cards for many players): skip it.
        settings.options.pop(_OPTION_OF.get(key, ""), None)
    room.settings = settings
    return changed(room)


_OPTION_OF = {
    "hand": "hand_size",
    "target": "target",
    "empty": "empty_stock",
    "end": "hand_end",
    "suits": "suit_style",
}


def cycle(settings: RoomSettings, key: str) -> bool:
    if key == "preset":
        names = [*PRESETS, *PASSING_PRESETS]  # both families, follow-suit first
        settings.preset = names[(names.index(settings.preset) + 1) % len(names)]
        settings.options = {}
        return True
    if settings.passing:
        mine = passing_lobby.cycle(settings, key)
        return mine if mine is not None else cycle_shared(settings, key)
    options = settings.options
    rules = settings.rules()
    assert isinstance(rules, Rules)
    if key == "hand":
        options["hand_size"] = _next(HAND_SIZES, rules.hand_size)
    elif key == "target":
        limit = 5 if rules.scoring == "letters" else max(TARGETS)
        options["target"] = _next(tuple(t for t in TARGETS if t <= limit), rules.target)
    elif key == "empty":
        options["empty_stock"] = _next(EMPTY_STOCK, rules.empty_stock)
    elif key == "end":  # the scoring follows the hand end (engine.follow_suit.rules)
        options.pop("scoring", None)
        options["hand_end"] = _next(HAND_ENDS, rules.hand_end)
    elif key == "suits":
        options["suit_style"] = "french" if rules.suit_style == "spanish" else "spanish"
    elif key == "timeout":
        settings.turn_timeout = _next(TIMEOUTS, settings.turn_timeout)
    elif key == "ontimeout":
        settings.timeout_action = "remove" if settings.timeout_action == "bot" else "bot"
    else:
        return cycle_shared(settings, key)
    return True


def cycle_shared(settings: RoomSettings, key: str) -> bool:
    """The settings both families have: reminders, language, bots, quiet hours."""
    if key == "remind":
        settings.reminder_after = _next(REMINDERS, settings.reminder_after)
    elif key == "lang":
        choices: tuple[Any, ...] = (None, *LANGUAGES)
        settings.language = _next(choices, settings.language)
    elif key == "bot":
        settings.bot_level = _next(BOT_LEVELS, settings.bot_level)
    elif key == "quiet":
        settings.quiet_hours = _next(WINDOWS, settings.quiet_hours)
    elif key == "tz":
        settings.timezone = _next(TIMEZONES, settings.timezone)
    else:
        return False
    return True


def _next(choices: tuple[Any, ...], current: Any) -> Any:
    """The value after `current` in `choices`, round and round (the first if unknown)."""
    if current not in choices:
        return choices[0]
    return choices[(choices.index(current) + 1) % len(choices)]
