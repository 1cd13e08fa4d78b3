"""Every game of the Burro family, found by name, preset or alias.

    game, preset = find_game("Donkey")        # (the follow-suit game, "cangkul")
    rules = game.make_rules(preset, {})

The built-in games come first, in a fixed order (follow_suit, cuartetos); `register`
adds another (a test's game, a new one). A preset or alias names exactly one game:
`register` refuses a clash. Names are matched without regard to case.
"""

from __future__ import annotations

from engine.cuartetos.definition import GAME as CUARTETOS
from engine.follow_suit.definition import GAME as FOLLOW_SUIT
from engine.kernel.errors import RulesError
from engine.kernel.protocol import Game

_games: dict[str, Game] = {}  # by game name, in registration order
_presets: dict[str, tuple[Game, str]] = {}  # casefolded preset or alias -> (game, preset)


def register(game: Game) -> Game:
    """Add `game` (its presets and aliases) to the registry and return it. Registering the
    same game object again does nothing; ValueError if its name, a preset or an alias
    is already another game's."""
    if _games.get(game.name) is game:
        return game
    if game.name in _games:
        raise ValueError(f"a game named {game.name!r} is already registered")
    names = {p.casefold(): p for p in game.presets}
    for alias, preset in game.aliases.items():
        if preset not in game.presets:
            raise ValueError(f"{game.name}: alias {alias!r} names no preset ({preset!r})")
        if alias.casefold() in names:
            raise ValueError(f"{game.name}: {alias!r} is listed twice")
        names[alias.casefold()] = preset
    for key in names:
        if key in _presets:
            other = _presets[key][0].name
            raise ValueError(f"{game.name}: preset or alias {key!r} is already {other}'s")
    _games[game.name] = game
    _presets.update({key: (game, preset) for key, preset in names.items()})
    return game


def games() -> tuple[Game, ...]:
    """Every registered game, the built-in ones first."""
    return tuple(_games.values())


def preset_names() -> tuple[str, ...]:
    """Every game's presets (not aliases), game by game, as each game lists them."""
    return tuple(p for game in _games.values() for p in game.presets)


def known_names() -> tuple[str, ...]:
    """Every preset, then every alias."""
    aliases = (a for game in _games.values() for a in game.aliases)
    return (*preset_names(), *aliases)


def find_game(name: str) -> tuple[Game, str]:
    """The game a preset or alias belongs to, and the canonical preset name (any case:
    `Donkey` gives the follow-suit game and `cangkul`). RulesError (a ValueError)
    listing the known presets and aliases if it names none."""
    found = _presets.get(name.casefold()) if isinstance(name, str) else None
    if found is None:
        known = ", ".join(known_names())
        raise RulesError(f"unknown preset {name!r}; known presets: {known}")
    return found


register(FOLLOW_SUIT)
register(CUARTETOS)
