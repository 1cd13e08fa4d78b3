"""One-line hints on a newcomer's own hand, where a decision is new to them (issue #37).

A game's painter says which hints its reader's hand is due now (`hints_due`: the
decision in front of them, from their own view); the outbox asks the store which of
those this person has not met yet (service.infra.hints: a hint is shown through the
first phase its decision came in, then never again) and gives them to the painter as
`shown_hints` before it paints the hand. A painter nobody gave hints to shows none (the
group's table, a screen painted for someone else).

Each hint is kept per person and per game family (`follow_suit:…`, `cuartetos:…`): a
person who learnt to follow suit in Spanish Burro is not told again in Cangkul, but is
told the goal of cuartetos the first time they play it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from service.i18n import Translator, _

MARK = "💡"  # before each hint, so it reads as help and not as the game's news

# follow-suit games
BURRO = "follow_suit:burro"  # their first turn: what the burro is
FOLLOW = "follow_suit:follow"  # the first trick they must follow
DIG = "follow_suit:dig"  # the first time they have no card of the suit led
# the passing game
GOAL = "cuartetos:goal"  # their first choice: what to collect, and ¡Burro!
FAKE = "cuartetos:fake"  # a fake call, once the first choice is behind them
RESPOND = "cuartetos:respond"  # the first call they may answer
FOUR = "cuartetos:four"  # the first time they hold four of a kind

TEXTS: dict[str, str] = {
    BURRO: _("Players out of cards are safe; the last one holding cards is the burro."),
    FOLLOW: _("A card of the suit led must be played if you have one: your buttons show which."),
    DIG: _(
        "No card of the suit led: draw from the stock until one turns up. "
        "The cards drawn stay in your hand."
    ),
    GOAL: _(
        "Collect four cards of one rank, then tap ¡Burro!: the others must put a hand "
        "down at once, and the slowest takes a letter. ¡Burro! without four costs you one."
    ),
    FAKE: _(
        "🎭 A fake call shouts another word: whoever taps it takes a letter; "
        "if nobody does, you take it."
    ),
    RESPOND: _(
        "Is the word ¡Burro!? Tap quick: the last hand down takes a letter. "
        "Any other word is a fake: tapping it costs a letter."
    ),
    FOUR: _("Four of a kind! Tap ¡Burro! now, before anyone else."),
}
ORDER = tuple(TEXTS)  # the order hints are told in, when several are due at once


@runtime_checkable
class Hinted(Protocol):
    """A painter that tells hints on a reader's hand."""

    shown_hints: frozenset[str]

    def hints_due(self, seat: int) -> list[str]:
        """The hints the decision in front of `seat` calls for, met or not."""
        ...


def hint_lines(names: Iterable[str], tr: Translator) -> list[str]:
    """The hints given, each on a line of its own, in `tr`'s language."""
    given = set(names)
    return [f"{MARK} {tr.gettext(TEXTS[n])}" for n in ORDER if n in given]
