"""One-line hints on a newcomer's own hand, where a decision is new to them (issue #37).

A game's painter says which hints its reader's hand is due now (`hints_due`: the
decision in front of them, from their own view, most pressing first); the outbox asks
the store for the first of those this person has not met yet (service.infra.hints: a
hint is shown through the first phase its decision came in, then never again) and gives
it to the painter as `shown_hints` before it paints the hand. A painter nobody gave
hints to shows none (the group's table, a screen painted for someone else).

One hint at a time, and only on a screen it leaves short enough (`ROOM`): a hint must
never push the story of what was done for the reader off a screen, and the tightest
body a platform shows is an interactive WhatsApp message's 1,024 characters (its
oldest lines are cut to fit). A hint left out stays due for the next screen.

Each hint is kept per person and per game family (`follow_suit:…`, `cuartetos:…`): a
person who learnt to follow suit in Spanish Burro is not told again in Cangkul, but is
told the goal of cuartetos the first time they play it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

from service.i18n import Translator, _
from service.ui import spans

MARK = "💡"  # before each hint, so it reads as help and not as the game's news
ROOM = 900  # characters a screen may reach with its hint (see above: 1,024 and a margin)

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
    # most pressing first: the order hints are offered in when several are due
    FOUR: _("Four of a kind! Tap ¡Burro! now, before anyone else."),
    RESPOND: _(
        "Is the word ¡Burro!? Tap quick: the last hand down takes a letter. "
        "Any other word is a fake: tapping it costs a letter."
    ),
    GOAL: _(
        "Collect four cards of one rank, then tap ¡Burro!: the others must put a hand "
        "down at once, and the slowest takes a letter. ¡Burro! without four costs you one."
    ),
    FAKE: _(
        "🎭 A fake call shouts another word: whoever taps it takes a letter; "
        "if nobody does, you take it."
    ),
    DIG: _(
        "No card of the suit led: draw from the stock until one turns up. "
        "The cards drawn stay in your hand."
    ),
    FOLLOW: _("A card of the suit led must be played if you have one: your buttons show which."),
    BURRO: _("Players out of cards are safe; the last one holding cards is the burro."),
}
ORDER = tuple(TEXTS)


@runtime_checkable
class Hinted(Protocol):
    """A painter that tells hints on a reader's hand."""

    shown_hints: frozenset[str]

    def hints_due(self, seat: int, met: frozenset[str] = frozenset()) -> list[str]:
        """The hints the decision in front of `seat` calls for, most pressing first,
        but those in `met` (met in another phase: never shown again); those that fit
        on their screen only (the screen is drawn only if any is left)."""
        ...


def hint_line(name: str, tr: Translator) -> str:
    return f"{MARK} {tr.gettext(TEXTS[name])}"


def hint_lines(names: Iterable[str], tr: Translator) -> list[str]:
    """The first of the hints given (in `ORDER`) on a line, in `tr`'s language."""
    given = set(names)
    return [hint_line(n, tr) for n in ORDER if n in given][:1]


def fitting_hand(
    names: Iterable[str], met: frozenset[str], hand_text: Callable[[], str], tr: Translator
) -> list[str]:
    """`fitting` beside a hand's text (without hints), those in `met` left out; the hand
    drawn only if a hint is left."""
    left = [name for name in names if name not in met]
    return fitting(left, spans.plain(hand_text()), tr) if left else []


def fitting(names: Iterable[str], screen: str, tr: Translator) -> list[str]:
    """Of the hints `names`, most pressing first, those whose line leaves `screen`
    (its text without hints) within `ROOM`."""
    given = set(names)
    room = ROOM - len(screen) - 1
    return [n for n in ORDER if n in given and len(hint_line(n, tr)) <= room]
