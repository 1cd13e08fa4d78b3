"""Bots for the passing game: pure functions of their own view and a seed.

A bot answers two questions, and keeps no memory between them (what it needs of the
hand it reads from the view: its own passes and receipts, the letters, who has fallen
for fake calls):
- `choose(view)`: while choosing, what to do now: `burro` (it holds four of a kind: at
  once), a fake call, or the card to pass. None when it has nothing to do.
- `reaction(view)`: a call is open: `"respond"` or None (let it go).
`act(view)` asks whichever fits the phase. The delay before a bot's action is the
service's business (a human-looking one); `pick_pace` is the bot's hint for the delay
before it picks a card (the easy bot picks slower: it multiplies the service's delay),
`react` the spread of its delay from a call to its hand down. The arena keeps one
reaction spread for every level (`arena.Delays`): there even 10% slower reactions made a
level lose about twice as often, which would drown the differences of play it measures.
At a table, the spreads are what let a quick human beat a slow bot (bench/calls.py).

Levels:
- `random`: passes any card; calls when it can; responds to real calls and to half the
  fake ones.
- `easy`: passes like `heuristic` but one time in three any card; picks slower;
  falls for one fake call in three.
- `heuristic`: passes a card of the rank it holds fewest of, so it keeps the rank
  closest to four; never fooled; now and then makes a blind fake call.
- `strong`: passes as `heuristic`, but makes fake calls only when they should pay: when
  the table's record says someone will likely fall for one, or as a rare first probe
  while it can afford a letter. (Breaking the fewest-held ties by the ranks seen coming
  this way, either way round, made no measurable difference in the arena: dropped.)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.cuartetos.cards import is_four_of_a_kind, plan_pass
from engine.cuartetos.rules import REAL_WORD
from engine.cuartetos.views import PlayerView
from engine.kernel.rng import derive

LEVELS: tuple[str, ...] = ("random", "easy", "heuristic", "strong")


@dataclass(frozen=True)
class Style:
    """What sets one level apart from another."""

    stray: float  # chance of passing any card instead of the planned one
    fooled: float  # chance of responding to a fake call
    fakes: str  # never, blind (now and then) or targeted (when it should pay)
    pick_pace: float  # hint for the service: times its human-looking delay to pick a card
    react: tuple[float, float]  # seconds from a call to its hand down, drawn uniformly


# A person who sees a call on the screen they are looking at (no notification to wait
# for) needs to notice it, read the word (¡Burro! or a fake?) and tap: about 1 to 3 s on
# a phone, a median near 1.7 s; the call reaches their phone and their tap comes back in
# about half a second more, while a bot's delay counts from the call itself. So the bots
# answer 1 s to 3.6 s after it: a strong one about as a quick person, a random one as a
# slow one. A quick human beats a slow bot; a typical one answering with two heuristic
# bots is not the last about half the time (bench/calls.py measures it).
STYLES: dict[str, Style] = {
    "random": Style(stray=1.0, fooled=0.5, fakes="never", pick_pace=1.0, react=(1.8, 3.6)),
    "easy": Style(stray=0.35, fooled=0.33, fakes="never", pick_pace=1.5, react=(1.5, 3.2)),
    "heuristic": Style(stray=0.0, fooled=0.0, fakes="blind", pick_pace=1.0, react=(1.2, 2.8)),
    "strong": Style(stray=0.0, fooled=0.0, fakes="targeted", pick_pace=1.0, react=(1.0, 2.2)),
}


BLIND_FAKE = 0.02  # per choosing decision
TARGETED_FAKE = 0.3  # per choosing decision, when a fake should pay
PROBE_FAKE = 0.04  # per choosing decision, before anyone has made a fake call
WORTH_IT = 0.2  # a fake should pay when nobody falling for it is less likely than this


@dataclass(frozen=True)
class CuartetosBot:
    level: str
    seed: int

    @property
    def style(self) -> Style:
        return STYLES[self.level]

    @property
    def pick_pace(self) -> float:
        return self.style.pick_pace

    @property
    def react(self) -> tuple[float, float]:
        return self.style.react

    def choose(self, view: PlayerView) -> str | None:
        """The bot's action in the current phase, or None (nothing to do, or let it go)."""
        if view.phase == "call":
            return self.reaction(view)
        if view.phase == "choose":
            return self.pick(view)
        return None

    def pick(self, view: PlayerView) -> str | None:
        """While choosing: `burro` with four of a kind, maybe a fake, else a card."""
        if view.phase != "choose" or not view.legal:
            return None
        if is_four_of_a_kind(view.hand) and "burro" in view.legal:
            return "burro"
        rnd = self._rng(view, 1)
        fake = next((a for a in view.legal if a.startswith("fake:")), None)
        if fake and self._wants_fake(view, rnd):
            return fake
        if rnd.random() < self.style.stray:
            return "pass:" + rnd.choice(view.hand)
        return "pass:" + plan_pass(view.hand, rnd)

    def reaction(self, view: PlayerView) -> str | None:
        """A call is open: respond to ¡Burro! always; to a fake as the level is fooled."""
        if view.phase != "call" or "respond" not in view.legal or view.call is None:
            return None
        if view.call.word == REAL_WORD:
            return "respond"
        return "respond" if self._rng(view, 2).random() < self.style.fooled else None

    def _wants_fake(self, view: PlayerView, rnd: random.Random) -> bool:
        spare = view.rules.target - view.letters[view.seat]
        if self.style.fakes == "never" or spare < 2:
            return False
        if self.style.fakes == "blind":
            return rnd.random() < BLIND_FAKE
        if sum(view.fakes_used) == 0:
            return spare > 2 and rnd.random() < PROBE_FAKE
        return unanswered_chance(view) < WORTH_IT and rnd.random() < TARGETED_FAKE

    def _rng(self, view: PlayerView, salt: int) -> random.Random:
        """The randomness of one decision: fixed by the seed and the decision point."""
        return random.Random(derive(self.seed, view.hand_no, view.seat, view.step, salt))


def unanswered_chance(view: PlayerView) -> float:
    """How likely nobody falls for a fake call now, from what the table has shown: each
    other player responds with their fooled share of the fakes they have heard (fakes made
    by others), pulled towards 1 in 4 while there is little to go on."""
    chance = 1.0
    for seat in view.players:
        if seat != view.seat:
            heard = sum(view.fakes_used) - view.fakes_used[seat]
            chance *= 1 - (view.fooled[seat] + 0.5) / (heard + 2)
    return chance


def make_bot(level: str, seed: int = 0) -> CuartetosBot:
    """A bot of a level (`random`, `easy`, `heuristic`, `strong`) with its seed."""
    if level not in STYLES:
        raise ValueError(f"unknown bot level {level!r}; levels are: {', '.join(LEVELS)}")
    return CuartetosBot(level, seed)
