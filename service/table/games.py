"""The games as a table holds them: the engine's `Game` (engine.registry), and what a
table does differently for one game, its `TableGame`: how its events are told in the
table's log, its own lobby settings, its bots' pace, its refusals in players' words.

The table core (`service.table.play`, the lobby, the workers) asks only here and in
`service.table.tables` (each game's `TableGame`); a game without one of its own plays
with `PlainTable`'s defaults. A new game is its engine package, a line in
`engine.registry` and, if it needs one, a `TableGame` in `service.table.tables`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from engine.kernel.protocol import Game
from engine.registry import find_game
from service.i18n import _
from service.table.outcome import Outcome

if TYPE_CHECKING:
    from service.settings import Settings
    from service.table.room import Room, RoomSettings


class TableGame(Protocol):
    """A game's own ways at the table (every method has a plain default in PlainTable)."""

    refusals: Mapping[str, str]  # an IllegalAction's code -> what the player is told
    hands_show_table: bool  # each hand's screen shows the others' progress: sync them all

    def initial_options(self, settings: Settings | None, group: bool) -> dict[str, Any]:
        """Rule options a new table starts with (in a group, or a private chat), with the
        environment's `settings` (None: the game's own defaults)."""
        ...

    def cycle(self, settings: RoomSettings, key: str) -> bool | None:
        """Cycle the game's own setting `key`: True when done, False for a setting that
        means nothing in this game, None for one every game shares."""
        ...

    def unplayable(self, rules: Any, seats: int) -> Outcome | None:
        """Why these rules cannot be dealt to this many seats, in the players' words."""
        ...

    def chronicle(self, room: Room, events: list[Any], outcome: Outcome, actor: int) -> None:
        """Keep the public events in the room's log (never a card still in a hand),
        and tell what must be told (`outcome`): `actor` is the seat that acted, -1 for
        the server."""
        ...

    def think_time(self, room: Room, seat: int) -> float:
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

    def rings(self, room: Room) -> bool:
        """Whether a phase just begun comes as a new message (it notifies) to each
        human who must act in it, rather than as an edit."""
        ...


class PlainTable:
    """The defaults: no log of its own, no settings of its own, bots at the bot delay."""

    refusals: Mapping[str, str] = {}
    hands_show_table = False

    def initial_options(self, settings: Settings | None, group: bool) -> dict[str, Any]:
        return {}

    def cycle(self, settings: RoomSettings, key: str) -> bool | None:
        return None

    def unplayable(self, rules: Any, seats: int) -> Outcome | None:
        return too_few(seats, 2)

    def chronicle(self, room: Room, events: list[Any], outcome: Outcome, actor: int) -> None:
        return None

    def think_time(self, room: Room, seat: int) -> float:
        return DEFAULT_DELAY

    def tells_forced(self, action: str) -> bool:
        return False

    def may_wait(self, action: str) -> bool:
        return False  # applied while its press waits for the answer, to be safe

    def rings(self, room: Room) -> bool:
        return False


DEFAULT_DELAY = 1.5  # seconds: the service's default bot delay, which think times assume


def game_of(preset: str) -> Game:
    """The engine's game a preset (or alias) belongs to (RulesError if none)."""
    return find_game(preset)[0]


def too_few(seats: int, least: int) -> Outcome | None:
    """The refusal of a start with fewer than `least` players (two or three)."""
    if seats >= least:
        return None
    if least == 3:
        return Outcome().say(_("Three or more players are needed to start."), alert=True)
    return Outcome().say(_("Two or more players are needed to start."), alert=True)


def next_of(choices: tuple[Any, ...], current: Any) -> Any:
    """The value after `current` in `choices`, round and round (the first if unknown):
    every settings button is such a cycle."""
    if current not in choices:
        return choices[0]
    return choices[(choices.index(current) + 1) % len(choices)]
