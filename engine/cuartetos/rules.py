"""The cuartetos rule set (the passing game, docs/rules.md) and its presets.

The follow-suit presets (`engine.follow_suit.rules.PRESETS`) are apart: their code assumes
trick options (empty stock, drawing, ...) that mean nothing here; what both share is
`engine.kernel.rules`.

Ranks. A table of n players uses n ranks, four suits each: 4n cards, four per hand, so
every card is always in some hand. Rank order does not matter in this game (only
"four of the same"), so the ranks are taken from a list of the deck's most natural ones,
first n: for the Spanish deck A K Q J 7 6 5 4 (Ludoteka's five players: as, rey,
caballo, sota, siete; three players use A K Q, eight go down to the 4). The option
`ranks` replaces that list (the first n of it are used).

Time. `response_window` and `pass_window` are seconds of the server's clock. The engine
reads no clock: every action carries its receive time, and the server closes a window
with an explicit `close` action, which the engine refuses before the deadline.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import field_validator

from engine.kernel.cards import DECKS
from engine.kernel.errors import RulesError
from engine.kernel.presets import Preset
from engine.kernel.rules import (
    LETTERS,
    Count,
    GameRules,
    SuitStyle,
    check_option_names,
    find_preset,
)

PassDirection = Literal["alternate", "clockwise", "anticlockwise"]
CuartetosDeck = Literal["spanish40", "spanish48", "french52"]

MAX_WINDOW = 10_000_000.0  # seconds (some 115 days): slow games take hours, not years
REAL_WORD = "Burro"  # the word of a real call; `burro` in actions

# The deck's ranks in the order a table takes them (first n for n players).
NATURAL_RANKS: dict[str, tuple[str, ...]] = {
    "spanish40": ("A", "K", "Q", "J", "7", "6", "5", "4"),
    "spanish48": ("A", "K", "Q", "J", "7", "6", "5", "4"),
    "french52": ("A", "K", "Q", "J", "10", "9", "8", "7"),
}
FAKE_WORDS: tuple[str, ...] = ("Barro", "Burra", "Birra", "Berro", "Borro", "Perro")


class CuartetosRules(GameRules):
    """A complete, checked cuartetos rule set. Immutable and hashable."""

    # The cards.
    deck: CuartetosDeck  # where the ranks come from
    ranks: tuple[str, ...] | None  # ranks in the order a table takes them; None: natural
    hand_size: Literal[4]  # four of a kind: n ranks x 4 suits = n hands of 4
    # The hand.
    direction: PassDirection  # alternate: odd hands to the right, even to the left
    max_rotations: Count  # a hand with no call ends after this many passes
    # Time (seconds of the server's clock; the service schedules `close` with them).
    pass_window: float  # to choose a card; then `close` passes for the slow ones
    response_window: float  # to respond to a call; then `close` resolves it
    # Absence.
    absent_after: Count  # rotations without any action of one's own: a letter
    remove_after_absences: Count  # the absence that removes the player (counting all)
    # Fake calls.
    fakes_per_hand: int  # per player
    fakes_per_game: int  # per player
    fake_words: tuple[str, ...]  # one is drawn for each rotation from the game's seed
    # The game.
    target: Count  # letters that lose: 5 spells B-U-R-R-O
    suit_style: SuitStyle  # how a chat shows the cards

    @field_validator("fakes_per_hand", "fakes_per_game")
    @classmethod
    def _not_negative(cls, value: int) -> int:
        if value < 0:
            raise ValueError("must be 0 or more")
        return value

    @field_validator("pass_window", "response_window")
    @classmethod
    def _seconds(cls, value: float) -> float:
        if not 0 < value <= MAX_WINDOW:
            raise ValueError(f"must be a positive number of seconds, at most {MAX_WINDOW:.0f}")
        return value

    @field_validator("target")
    @classmethod
    def _letters(cls, value: int) -> int:
        if value > len(LETTERS):
            raise ValueError(f"letters go up to {len(LETTERS)} (B-U-R-R-O)")
        return value

    @field_validator("fake_words")
    @classmethod
    def _words(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("needs at least one word")
        for word in value:
            if not word.isalpha():
                raise ValueError(f"{word!r}: a word is letters only (the chat adds ¡ !)")
            if word.casefold() == REAL_WORD.casefold():
                raise ValueError(f"{REAL_WORD!r} is the real call, not a fake one")
        if len({w.casefold() for w in value}) != len(value):
            raise ValueError("a word is listed twice")
        return value

    @property
    def rank_choice(self) -> tuple[str, ...]:
        return self.ranks or NATURAL_RANKS[self.deck]

    def ranks_for(self, players: int) -> tuple[str, ...]:
        """The ranks in play for a table of `players`."""
        return self.rank_choice[:players]

    def check_seats(self, seats: int) -> None:
        """Raise RulesError if this rule set cannot be played by `seats` players."""
        super().check_seats(seats)
        if len(self.rank_choice) < seats:
            raise RulesError(
                f"{seats} players need {seats} ranks; option 'ranks' lists {len(self.rank_choice)}"
            )


_CUARTETOS: dict[str, Any] = {
    "deck": "spanish40",
    "ranks": None,
    "hand_size": 4,
    "direction": "alternate",
    "max_rotations": 40,
    "pass_window": 30.0,
    "response_window": 10.0,
    "absent_after": 3,
    "remove_after_absences": 2,
    "fakes_per_hand": 1,
    "fakes_per_game": 3,
    "fake_words": FAKE_WORDS,
    "target": len(LETTERS),
    "suit_style": "spanish",
}

PRESETS: dict[str, Preset] = {
    "cuartetos": Preset("cuartetos", (3, 8), _CUARTETOS, source="seed 003 (Ludoteka, Spain)"),
}
ALIASES: dict[str, str] = {a: p.name for p in PRESETS.values() for a in p.aliases}
OPTION_NAMES: tuple[str, ...] = tuple(_CUARTETOS)
DEFAULT_PRESET = "cuartetos"


def make_rules(
    preset: str = DEFAULT_PRESET, options: dict[str, Any] | None = None
) -> CuartetosRules:
    """The preset's rules with a table's options on top, checked as a whole."""
    base = find_preset(PRESETS, ALIASES, preset)
    options = dict(options or {})
    check_option_names(options, OPTION_NAMES)
    rules = CuartetosRules.of(base, {**base.options, **options})
    if rules.ranks is not None:
        deck_ranks = DECKS[rules.deck][0]
        strange = [r for r in rules.ranks if r not in deck_ranks]
        if strange:
            raise RulesError(
                f"option 'ranks': {strange[0]!r} is not a rank of the {rules.deck} deck"
            )
        if len(set(rules.ranks)) != len(rules.ranks):
            raise RulesError("option 'ranks': a rank is listed twice")
    return rules
