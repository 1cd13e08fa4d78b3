"""Each game's own ways at the table (`games.TableGame`), by the engine game's name.
A game that is not listed here plays with `games.PlainTable`'s defaults; a game added
elsewhere (a test's) registers its own with `register_table`."""

from __future__ import annotations

from service.table import follow_suit
from service.table.cuartetos import table as cuartetos
from service.table.games import PlainTable, TableGame, game_of

_tables: dict[str, TableGame] = {
    "follow_suit": follow_suit.TABLE,
    "cuartetos": cuartetos.TABLE,
}
_PLAIN = PlainTable()


def register_table(game_name: str, table: TableGame) -> None:
    """Give the game named `game_name` its own ways at the table."""
    _tables[game_name] = table


def table_of(preset: str) -> TableGame:
    """The table ways of a preset's game (PlainTable's if it has none of its own)."""
    return _tables.get(game_of(preset).name, _PLAIN)
