"""One typed rule set for every follow-suit Burro, and the presets as data.

Option names are exactly those of docs/rules.md ("Follow-suit options"). A preset is a name, a
player range and a full set of option values; `make_rules` applies a table's own
options on top and checks the result as a whole.
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

Direction = Literal["clockwise", "anticlockwise"]
EmptyStock = Literal["pass", "pickup_after_trick", "take_the_table"]
Drawing = Literal["strict", "optional"]
HandEnd = Literal["last_holder_loses", "first_out_wins"]
SimultaneousOut = Literal["no_burro", "last_to_play_loses"]
JokerPlay = Literal["any_time", "only_when_void", "must_when_void"]
Scoring = Literal["penalty", "letters", "wins", "single"]
DeckName = Literal["spanish40", "spanish48", "portuguese40", "french52", "french52_joker"]


class Rules(GameRules):
    """A complete, checked follow-suit rule set. Immutable and hashable."""

    # Hand rules.
    deck: DeckName
    hand_size: Count  # cards dealt to each player
    direction: Direction  # clockwise: seat i -> i+1; anticlockwise: i -> i-1
    empty_stock: EmptyStock  # what a void player does once the stock is gone
    drawing: Drawing  # strict: draw only when void, play the first led-suit card found
    hand_end: HandEnd
    simultaneous_out: SimultaneousOut  # last_holder_loses: nobody left after a trick
    low_ace: bool  # the ace ranks below the 2
    rank_order: tuple[str, ...] | None  # ranks high to low; None: the deck's order
    joker_play: JokerPlay  # when the joker may be played (joker decks)
    tent: bool  # Burro em Pé: the stock stands in two halves, draw:left / draw:right
    topple_chance: float  # chance that a draw knocks the tent over
    trick_cap: Count  # a hand ends with no result after this many tricks
    # Game rules.
    scoring: Scoring
    target: Count  # penalty points that lose, letters that lose, or wins that win
    suit_style: SuitStyle

    @field_validator("topple_chance")
    @classmethod
    def _probability(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            raise ValueError("must be between 0 and 1")
        return value

    @property
    def ranks(self) -> tuple[str, ...]:
        """The rank order in force, high to low."""
        order = self.rank_order or DECKS[self.deck][0]
        if self.low_ace and "A" in order:
            order = (*(r for r in order if r != "A"), "A")
        return order

    @property
    def has_joker(self) -> bool:
        return DECKS[self.deck][1]

    @property
    def deck_size(self) -> int:
        return len(DECKS[self.deck][0]) * 4 + (1 if self.has_joker else 0)

    @property
    def needs_seed(self) -> bool:
        """Whether a hand draws on the game's randomness (the tent's topple)."""
        return self.tent and 0.0 < self.topple_chance < 1.0

    def check_seats(self, seats: int) -> None:
        """Raise RulesError if this rule set cannot be dealt to `seats` players."""
        super().check_seats(seats)
        if seats * self.hand_size >= self.deck_size:
            raise RulesError(
                f"{seats} players × {self.hand_size} cards need more than the "
                f"{self.deck_size} cards of the {self.deck} deck (the stock must keep one)"
            )


_COMMON: dict[str, Any] = {
    "simultaneous_out": "no_burro",
    "low_ace": False,
    "rank_order": None,
    "joker_play": "any_time",
    "tent": False,
    "topple_chance": 0.05,
    "trick_cap": 500,
    "suit_style": "french",
}
_SPANISH: dict[str, Any] = {
    **_COMMON,
    "deck": "spanish40",
    "hand_size": 4,
    "direction": "anticlockwise",
    "empty_stock": "pass",
    "drawing": "strict",
    "hand_end": "last_holder_loses",
    "scoring": "penalty",
    "target": 5,
}
_PORTUGUESE: dict[str, Any] = {
    **_COMMON,
    "deck": "portuguese40",
    "hand_size": 5,
    "direction": "anticlockwise",
    "empty_stock": "pass",
    "drawing": "optional",
    "hand_end": "first_out_wins",
    "scoring": "wins",
    "target": 5,
}

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("spanish", (2, 8), _SPANISH, source="seeds 000, 004 (Spain)"),
        Preset("spanish48", (2, 8), {**_SPANISH, "deck": "spanish48"}, source="seed 004"),
        Preset(
            "brazilian",
            (2, 10),
            {
                **_SPANISH,
                "deck": "french52",
                "hand_size": 5,
                "direction": "clockwise",
                "scoring": "letters",
                "target": len(LETTERS),
            },
            source="seed 001",
        ),
        Preset("portuguese", (2, 7), _PORTUGUESE, source="seeds 000, 004 (Burro Deitado)"),
        Preset("burro_em_pe", (2, 7), {**_PORTUGUESE, "tent": True}, source="seed 004"),
        Preset(
            "cangkul",
            (2, 7),
            {
                **_COMMON,
                "deck": "french52",
                "hand_size": 7,
                "direction": "clockwise",
                "empty_stock": "pickup_after_trick",
                "drawing": "strict",
                "hand_end": "first_out_wins",
                "scoring": "wins",
                "target": 5,
            },
            aliases=("donkey",),
            source="seed 004 (Indonesia, Goa)",
        ),
    )
}
ALIASES: dict[str, str] = {a: p.name for p in PRESETS.values() for a in p.aliases}
OPTION_NAMES: tuple[str, ...] = tuple(_SPANISH)
DEFAULT_PRESET = "spanish"


def preset_named(name: str) -> Preset:
    """The preset of a name or alias, or RulesError listing the known ones."""
    return find_preset(PRESETS, ALIASES, name)


def make_rules(preset: str = DEFAULT_PRESET, options: dict[str, Any] | None = None) -> Rules:
    """The preset's rules with a table's options on top, checked as a whole."""
    base = preset_named(preset)
    options = dict(options or {})
    check_option_names(options, OPTION_NAMES)
    rules = Rules.of(base, {**base.options, **_scoring_for_hand_end(base, options), **options})
    _check_coherent(rules)
    return rules


# The scoring a hand end implies when a table changes `hand_end` and says nothing of
# `scoring` (docs/rules.md, "Follow-suit options": cangkul's last_holder_loses scores penalty).
_SCORING_FOR_HAND_END = {"last_holder_loses": "penalty", "first_out_wins": "wins"}
_SCORINGS_OF_HAND_END = {
    "last_holder_loses": ("penalty", "letters", "single"),
    "first_out_wins": ("wins", "single"),
}


def _scoring_for_hand_end(base: Preset, options: dict[str, Any]) -> dict[str, Any]:
    """`{"scoring": ...}` when `options` set a hand end the preset's scoring cannot count
    and leave `scoring` to the preset; else nothing. Only an explicit contradictory pair
    is an error (see _check_coherent)."""
    hand_end = options.get("hand_end")
    if "scoring" in options or hand_end not in _SCORING_FOR_HAND_END:
        return {}
    if base.options["scoring"] in _SCORINGS_OF_HAND_END[hand_end]:
        return {}
    return {"scoring": _SCORING_FOR_HAND_END[hand_end]}


def _check_coherent(rules: Rules) -> None:
    deck_ranks = DECKS[rules.deck][0]
    if rules.rank_order is not None and sorted(rules.rank_order) != sorted(deck_ranks):
        raise RulesError(
            f"option 'rank_order' must list each rank of the {rules.deck} deck once: "
            f"{' '.join(deck_ranks)}"
        )
    fitting = _SCORINGS_OF_HAND_END[rules.hand_end]
    if rules.scoring not in fitting:
        (wanted,) = (end for end, ok in _SCORINGS_OF_HAND_END.items() if rules.scoring in ok)
        choices = " or ".join(", ".join(repr(s) for s in fitting).rsplit(", ", 1))
        raise RulesError(
            f"scoring {rules.scoring!r} needs hand_end {wanted!r}; with hand_end "
            f"{rules.hand_end!r} choose scoring {choices}"
        )
    if rules.scoring == "letters" and rules.target > len(LETTERS):
        raise RulesError(f"option 'target': letters go up to {len(LETTERS)} (B-U-R-R-O)")
