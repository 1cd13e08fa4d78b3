"""What every game's rule set shares: the preset it came from, its player range, the
checks of a table's options, and the words for what every Burro game has (its letters,
its suit styles).

A game's rule set subclasses `GameRules` with its own options as fields and builds
itself with `GameRules.of`, so an unknown option, a bad value or a seat count out of
range is refused in the same words in every game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from engine.kernel.errors import RulesError
from engine.kernel.presets import Preset, check_players

SuitStyle = Literal["french", "spanish"]  # how a chat shows the cards

LETTERS = "BURRO"  # a game lost letter by letter spells it


def _at_least_one(value: int) -> int:
    if value < 1:
        raise ValueError("must be at least 1")
    return value


Count = Annotated[int, AfterValidator(_at_least_one)]  # an option that counts: 1 or more


class GameRules(BaseModel):
    """A complete, checked rule set: a preset's, with a table's options on top.
    Immutable and hashable."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    preset: str
    min_players: int
    max_players: int

    @classmethod
    def of(cls, preset: Preset, values: Mapping[str, Any]) -> Self:
        """The rule set of `preset` with these option values (RulesError naming the
        first bad one)."""
        try:
            return cls(
                preset=preset.name,
                min_players=preset.players[0],
                max_players=preset.players[1],
                **values,
            )
        except ValidationError as exc:
            raise RulesError(_first_error(exc)) from None

    def options(self) -> dict[str, Any]:
        """The option values, as a record or a settings screen names them."""
        return self.model_dump(mode="json", exclude={"preset", "min_players", "max_players"})

    def check_seats(self, seats: int) -> None:
        """Raise RulesError if this rule set cannot be played by `seats` players (a game
        adds its own checks)."""
        check_players(self.preset, self.min_players, self.max_players, seats)


def find_preset(presets: Mapping[str, Preset], aliases: Mapping[str, str], name: str) -> Preset:
    """The preset of a name or alias, or RulesError listing the known ones."""
    preset = presets.get(aliases.get(name, name))
    if preset is None:
        known = ", ".join([*presets, *aliases])
        raise RulesError(f"unknown preset {name!r}; known presets: {known}")
    return preset


def check_option_names(options: Iterable[str], names: tuple[str, ...]) -> None:
    """RulesError naming the first option that is not one of `names`."""
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise RulesError(f"unknown option {unknown[0]!r}; options are: {', '.join(names)}")


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    name = ".".join(str(part) for part in error["loc"]) or "options"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"option {name!r}: {message} (got {error.get('input')!r})"
