"""The screens of every game, found by the game's name (`engine.registry`).

Nothing outside a game's own screens module asks which game a room holds: the outbox,
the news, the handlers and the inline list ask here for the room's `Screens`, and each
game's module (`service.ui.follow_suit` for the follow-suit games, `service.ui.cuartetos`
for the passing game) keeps what it knows, its presets' names too. A new game registers
its screens with `register`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.registry import find_game
from service.i18n import Translator
from service.table.room import Room
from service.ui import cuartetos, follow_suit
from service.ui.intents import Choice
from service.ui.picture import Picture
from service.ui.screens import Screen, TablePainter, cancelled_screen, list_games
from service.ui.story import Public, Teller


class Screens(Protocol):
    """What the outbox, the news and the handlers ask a game's painter for: one room in
    one language."""

    tr: Translator

    def lobby(self) -> Screen: ...
    def settings(self) -> Screen: ...
    def table(self) -> Screen:
        """The group's table: everything public, nobody's cards."""
        ...

    def hand(self, seat: int, with_table: bool = False) -> Screen:
        """A player's private screen, with the buttons of their legal moves;
        `with_table`: the table's lines above it too (a one-to-one game's screen, and a
        chat that sees no table of its own, as a WhatsApp player's)."""
        ...

    def picture(self, seat: int | None) -> Picture:
        """The table drawn for a player (None: the public table, no hand, no taps), for a
        front end that draws cards (service.ui.picture; a playing or finished game)."""
        ...

    def nudge(self) -> Screen:
        """The group's reminder of whoever must act."""
        ...

    def news_lines(self) -> list[str]:
        """How the last hand ended and the scores (service.ui.news)."""
        ...

    def choices(self, seat: int) -> list[Choice]:
        """A player's hand as a list (Telegram's inline results)."""
        ...

    def card(self, code: str) -> str:
        """A card for people, in the room's suit style."""
        ...

    def tip_text(self, seat: int) -> str | None:
        """`seat`'s tip now in one sentence (None: no choice to make)."""
        ...

    def rules_text(self) -> str: ...


@dataclass(frozen=True)
class GameScreens:
    """A game's screens: its painter, its rules told without a room, and its presets by
    their names (marked for translation; a game without them is not listed)."""

    painter: Callable[[Room, str, str], Screens]
    rules_text: Callable[[Any, Translator], str]
    names: Mapping[str, str] = field(default_factory=dict)
    # The game's story told in its painter's words (service.ui.story), for a reader who
    # asks for a hand's whole story; None: the game tells none.
    teller: Callable[[Any], Teller] | None = None


_SCREENS: dict[str, GameScreens] = {}  # by the engine's game name
# Every registered game's presets by their names, game by game, as the chat lists them.
PRESET_NAMES: dict[str, str] = {}


def register(game_name: str, entry: GameScreens) -> None:
    _SCREENS[game_name] = entry
    PRESET_NAMES.update(entry.names)


def of_preset(preset: str) -> GameScreens:
    """The screens of the game a preset belongs to."""
    return _SCREENS[find_game(preset)[0].name]


def painter(room: Room, lang: str, bot_username: str = "burro_bot") -> Screens:
    """The screens of a room's game, in `lang`."""
    return of_preset(room.settings.preset).painter(room, lang, bot_username)


def rules_text(rules: Any, tr: Translator) -> str:
    """A game's rules (a preset's rule set, with its `preset`), short, in `tr`'s language."""
    return of_preset(rules.preset).rules_text(rules, tr)


def games_list(tr: Translator) -> str:
    """Every game by its name, with the word that opens it, in `tr`'s language."""
    return list_games(tr, PRESET_NAMES)


def follow_suit_teller(painter: follow_suit.FollowSuitPainter) -> Teller:
    return story_teller(painter, painter.event_text)


def cuartetos_teller(painter: cuartetos.CuartetosPainter) -> Teller:
    return story_teller(painter, painter.told)


def story_teller(painter: TablePainter, public: Public) -> Teller:
    """A painter's story teller: its words for public lines, cards and names."""
    game = painter.room.game
    hand_no = game.hand_no if game is not None else 0
    return Teller(painter.tr, public, painter.card, painter.name, hand_no)


def teller(room: Room, lang: str, bot_username: str = "burro_bot") -> Teller | None:
    """The story of a room's game, told in `lang` (None: its game tells no story)."""
    entry = of_preset(room.settings.preset)
    return None if entry.teller is None else entry.teller(entry.painter(room, lang, bot_username))


register(
    "follow_suit",
    GameScreens(
        follow_suit.FollowSuitPainter,
        follow_suit.rules_text,
        follow_suit.PRESET_NAMES,
        follow_suit_teller,
    ),
)
register(
    "cuartetos",
    GameScreens(
        cuartetos.CuartetosPainter, cuartetos.rules_text, cuartetos.PRESET_NAMES, cuartetos_teller
    ),
)


def room_screen(room: Room, painter: Screens) -> Screen:
    """What the room's own chat shows: its lobby or settings, the group's table, or a
    one-to-one game's hand; a cancelled game's word."""
    if room.status == "cancelled":
        return cancelled_screen(painter.tr)
    if room.status == "lobby":
        return painter.settings() if room.settings_open else painter.lobby()
    if room.private:
        human = next(i for i, s in enumerate(room.seats) if s.user_id is not None)
        return painter.hand(human)
    return painter.table()
