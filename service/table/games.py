"""Which game a table holds, and all the table asks of it: the one registry of games on
the table side.

- A preset (or alias) names an engine game (`engine.registry`): `game_of`, and the chat's
  words for presets, `preset_names` and `preset_named`; `DEFAULT_PRESET` is a table's
  unless its opener names one.
- What a table does differently for a game is its `TableGame`: how its events are told
  in the table's log, its own lobby settings, its bots' pace, its refusals in players'
  words. `table_of` finds it; a game without one plays with `PlainTable`'s defaults.
- What a room's game gives the rest of the service: `rules_of` (the rule set a room's
  settings choose), `rules_for`, `initial_options`, `finished_hands`, `hand_record`.

A new game is its engine package, a line in `engine.registry` and, if it needs one, a
`TableGame` below (or `register_table` for a game added elsewhere, a test's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from engine import registry
from engine.kernel.errors import RulesError
from engine.kernel.protocol import Game
from service.table import follow_suit
from service.table.cuartetos import table as cuartetos
from service.table.kernel import DEFAULT_DELAY as DEFAULT_DELAY  # until store takes kernel's
from service.table.kernel import next_of as next_of  # until lobby takes kernel's
from service.table.kernel import too_few
from service.table.outcome import Outcome
from service.table.room import DEFAULT_PRESET as DEFAULT_PRESET  # RoomSettings needs it there
from service.table.room import RoomSettings

if TYPE_CHECKING:
    from service.settings import Settings
    from service.table.room import Room

S = TypeVar("S", contravariant=True)  # the game's states
R = TypeVar("R", contravariant=True)  # the game's rule sets


class TableGame(Protocol[S, R]):
    """A game's own ways at the table, over its states `S` and rule sets `R` (every
    method has a plain default in PlainTable)."""

    refusals: Mapping[str, str]  # an IllegalAction's code -> what the player is told
    hands_show_table: bool  # each hand's screen shows the others' progress: sync them all

    def rules(self, settings: RoomSettings) -> Any:
        """The rule set a room's settings choose, with the game's own looks for the preset
        beneath them (RulesError if they cannot be)."""
        ...

    def initial_options(self, settings: Settings | None, group: bool) -> dict[str, Any]:
        """Rule options a new table starts with (in a group, or a private chat), with the
        environment's `settings` (None: the game's own defaults)."""
        ...

    def cycle(self, settings: RoomSettings, key: str) -> bool | None:
        """Cycle the game's own setting `key`: True when done, False for a setting that
        means nothing in this game, None for one every game shares."""
        ...

    def unplayable(self, rules: R, seats: int) -> Outcome | None:
        """Why these rules cannot be dealt to this many seats, in the players' words."""
        ...

    def chronicle(
        self, room: Room, state: S, events: list[Any], outcome: Outcome, actor: int
    ) -> None:
        """Keep the public events in the room's log (never a card still in a hand),
        and tell what must be told (`outcome`): `state` is the room's game after them,
        `actor` the seat that acted, -1 for the server."""
        ...

    def think_time(self, room: Room, state: S, seat: int) -> float:
        """Seconds a bot in `seat` seems to think before acting now, at the default bot
        delay (the service's `bot_delay` scales it)."""
        ...

    def tells_forced(self, action: str) -> bool:
        """Whether a forced move played for an absent human is said in their chat."""
        ...

    def may_wait(self, action: str) -> bool:
        """Whether a press of `action`, legal when pressed, may be answered at once and
        applied by a worker a moment later: it stays legal while its phase lasts (its
        time does not matter) and its answer says nothing of what it did."""
        ...

    def rings(self, state: S) -> bool:
        """Whether a phase just begun comes as a new message (it notifies) to each
        human who must act in it, rather than as an edit."""
        ...


class PlainTable:
    """The defaults: no log of its own, no settings of its own, bots at the bot delay."""

    refusals: Mapping[str, str] = {}
    hands_show_table = False

    def rules(self, settings: RoomSettings) -> Any:
        return game_of(settings.preset).make_rules(settings.preset, settings.options)

    def initial_options(self, settings: Settings | None, group: bool) -> dict[str, Any]:
        return {}

    def cycle(self, settings: RoomSettings, key: str) -> bool | None:
        return None

    def unplayable(self, rules: Any, seats: int) -> Outcome | None:
        return too_few(seats, 2)

    def chronicle(
        self, room: Room, state: Any, events: list[Any], outcome: Outcome, actor: int
    ) -> None:
        return None

    def think_time(self, room: Room, state: Any, seat: int) -> float:
        return DEFAULT_DELAY

    def tells_forced(self, action: str) -> bool:
        return False

    def may_wait(self, action: str) -> bool:
        return False  # applied while its press waits for the answer, to be safe

    def rings(self, state: Any) -> bool:
        return False


_tables: dict[str, TableGame[Any, Any]] = {  # by the engine game's name
    "follow_suit": follow_suit.TABLE,
    "cuartetos": cuartetos.TABLE,
}
_PLAIN = PlainTable()


def register_table(game_name: str, table: TableGame[Any, Any]) -> None:
    """Give the game named `game_name` its own ways at the table."""
    _tables[game_name] = table


def game_of(preset: str) -> Game:
    """The engine's game a preset (or alias) belongs to (RulesError if none)."""
    return registry.find_game(preset)[0]


def table_of(preset: str) -> TableGame[Any, Any]:
    """The table ways of a preset's game (PlainTable's if it has none of its own)."""
    return _tables.get(game_of(preset).name, _PLAIN)


# ----- presets, as the chat names them ---------------------------------------------------


def preset_names() -> list[str]:
    """Every preset a table can choose, game by game."""
    return list(registry.preset_names())


def preset_named(name: str) -> str | None:
    """The preset a name or alias means (`donkey` -> `cangkul`), or None."""
    try:
        return registry.find_game(name)[1]
    except RulesError:
        return None


def initial_options(preset: str, settings: Settings, group: bool = True) -> dict[str, Any]:
    """Rule options a new table of `preset` starts with (in a group, or a private chat),
    from the environment."""
    return table_of(preset).initial_options(settings, group)


def new_settings(preset: str, settings: Settings, group: bool) -> RoomSettings:
    """A new table's settings: its rule options and the environment's timings (a turn's
    time, when to remind), in a group or a private chat alike."""
    return RoomSettings(
        preset=preset,
        options=initial_options(preset, settings, group),
        turn_timeout=settings.turn_timeout,
        reminder_after=settings.reminder_after,
    )


def rules_of(settings: RoomSettings) -> Any:
    """The rule set a room's settings choose, of their preset's game (RulesError if they
    cannot be)."""
    return table_of(settings.preset).rules(settings)


def rules_for(preset: str) -> Any:
    """The rule set a new table of `preset` plays by."""
    return rules_of(RoomSettings(preset=preset))


# ----- a room's game ---------------------------------------------------------------------


def finished_hands(room: Room) -> int:
    """How many hands of the room's game are over."""
    if room.game is None:
        return 0
    return game_of(room.settings.preset).finished_hands(room.game)


def hand_record(room: Room, index: int) -> dict[str, Any]:
    """The `burro-record/1` record of hand `index` (0-based) of the room's game."""
    return game_of(room.settings.preset).hand_record(room.game, index)
