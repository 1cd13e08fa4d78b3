"""What every game is to the rest of Burro: the `Game` and `Bot` protocols.

The table core, the screens, the workers and the tools hold a game only through these
(found by preset in `engine.registry`); nothing outside a game's own package asks which
game it is. Modelled on OpenSpiel's `State` and boardgame.io's `Game`: a game is a set
of pure functions over a frozen state, and who may act is a set of seats (one seat in
turn-based games, several when everyone acts at once).

Times are the server's receive times in float seconds; a game never reads a clock.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias, TypeVar

from engine.kernel.arena import ArenaReport, ArenaRequest, Progress
from engine.kernel.presets import Preset
from engine.kernel.tip import Tip

SYSTEM = -1  # the seat the server acts as (a game's own deadline: see Game.expire)

S = TypeVar("S")  # a game's states
R = TypeVar("R")  # a game's rule sets


@dataclass(frozen=True)
class History:
    """A whole game as its start and every move since, oldest first: what replays it
    exactly (engine.kernel.packing keeps an ended game so)."""

    preset: str
    options: dict[str, Any]  # the rule set's option values, as `make_rules` takes them
    seats: int
    seed: int
    dealer: int  # the first hand's dealer
    start: float  # when the game began (`new_game`'s `at`)
    moves: tuple[tuple[int, str, float], ...]  # (seat, action, at); SYSTEM: `expire`


@dataclass(frozen=True)
class Result:
    """A finished game: who won and who lost (ties share; either may be empty)."""

    winners: tuple[int, ...]
    losers: tuple[int, ...]


class Bot(Protocol):
    """A bot of any game: a pure function of its seed and one seat's view."""

    @property
    def level(self) -> str:
        """The level it plays at, one of its game's `bot_levels`."""
        ...

    def choose(self, view: Any) -> str | None:
        """One of the view's legal actions, or None to let this phase go by (only where a
        game allows not acting, as a response window does)."""
        ...


class TypedGame(Protocol[S, R]):
    """One game of the Burro family: its presets, its rules and its pure state machine,
    over its own states `S` and rule sets `R` (a game's `GAME` is declared with them, so
    its own code needs no narrowing).

    Views and records are the game's own types too; callers pass them back to the same
    game untouched."""

    name: str  # the game's package name: follow_suit, cuartetos
    state_type: type[S]  # the frozen dataclass of its states (the service stores them so)
    presets: Mapping[str, Preset]  # by name, in the order menus list them
    aliases: Mapping[str, str]  # other names for presets (donkey -> cangkul)
    bot_levels: tuple[str, ...]  # weakest first
    # The levels whose bots think (a search, up to 200 ms a decision): the service runs
    # their decisions on the bots' own queue and workers, so that they hold up no other
    # table; every other level must decide within a millisecond or so.
    thinking_levels: frozenset[str]

    # ----- rules and a new game -----------------------------------------------------
    def make_rules(self, preset: str, options: Mapping[str, Any]) -> R:
        """A preset's rule set with a table's options on top (RulesError if it cannot be)."""
        ...

    def new_game(self, rules: R, seats: int, seed: int, at: float, dealer: int = 0) -> S:
        """A new game dealt by `dealer` from the secret `seed` at time `at` (RulesError on
        bad seats)."""
        ...

    # ----- who acts, and how ----------------------------------------------------------
    def to_act(self, state: S) -> tuple[int, ...]:
        """The seats that may still act in this phase: one in turn, several at once;
        empty when the game is over or only the server can move it on."""
        ...

    def legal_actions(self, state: S, seat: int) -> list[str]:
        """`seat`'s legal actions now, sorted (empty when it has nothing to do)."""
        ...

    def apply(self, state: S, seat: int, action: str, at: float) -> tuple[S, list[Any]]:
        """The state after `seat`'s action received at `at`, and the events it caused;
        a typed `IllegalAction` (nothing changed) if refused."""
        ...

    def forced(self, state: S) -> tuple[int, str] | None:
        """A move nobody has to decide (the only legal action of the only seat to act),
        as (seat, action); None when there is a choice to make."""
        ...

    def phase(self, state: S) -> Hashable:
        """What names the current decision: a button drawn for one phase is stale once
        the phase changes (every move in a turn-based game; in a game where everyone acts
        at once, the presses of several players in one phase all count)."""
        ...

    # ----- time ---------------------------------------------------------------------
    def deadline(self, state: S) -> float | None:
        """When the game itself moves on without the players (a response window that
        closes), or None: then the table's turn timer is the only clock."""
        ...

    def expire(self, state: S, at: float) -> tuple[S, list[Any]]:
        """What the game does at its own deadline (the server acts as `SYSTEM`)."""
        ...

    # ----- what players may know ------------------------------------------------------
    def hand(self, state: S, seat: int) -> tuple[str, ...]:
        """The cards `seat` holds now, as card codes (what every other seat must not see;
        the contract tests check views against it)."""
        ...

    def player_view(self, state: S, seat: int) -> Any:
        """Everything `seat` may know: their own cards, never another's."""
        ...

    def public_view(self, state: S) -> Any:
        """Everything the whole table may know."""
        ...

    def result(self, state: S) -> Result | None:
        """Who won and who lost, once the game is over; None before."""
        ...

    # ----- records and storage ----------------------------------------------------------
    def finished_hands(self, state: S) -> int:
        """How many hands of the game are over."""
        ...

    def burros(self, state: S, seat: int) -> int:
        """How many finished hands `seat` lost as the burro (0 in a game without one):
        the players' statistics count them."""
        ...

    def hand_record(self, state: S, index: int) -> dict[str, Any]:
        """Hand `index` (0-based, finished or in play) as a `burro-record/1` document."""
        ...

    def history(self, state: S) -> History:
        """The game so far as its start and its moves: `new_game`, then each move
        applied (or, for SYSTEM, `expire`) at its time, gives `state` back."""
        ...

    def read_record(self, text: str) -> Any:
        """A checked record of this game from its JSON text (RecordError if it is not)."""
        ...

    def trace(self, record: Any) -> Iterator[dict[str, Any]]:
        """The machine trace of a record's replay (docs/interfaces.md section 4)."""
        ...

    def story(self, record: Any) -> Iterator[str]:
        """The same replay told for people."""
        ...

    def dumps(self, state: S) -> bytes:
        """The whole state as compact JSON, lossless."""
        ...

    def loads(self, data: bytes | str) -> S:
        """A state from `dumps` output (RecordError if it is not one)."""
        ...

    def tip(self, view: Any) -> Tip | None:
        """The move the seed texts' tips suggest to the view's seat now, and why (from
        the view alone: what the seat may see); None when it has no choice to make."""
        ...

    # ----- bots -----------------------------------------------------------------------
    def bot(self, level: str, seed: int) -> Bot:
        """A bot of `level` drawing its choices from `seed` (ValueError: unknown level)."""
        ...

    def arena(self, request: ArenaRequest, progress: Progress | None) -> ArenaReport:
        """Its bots play each other as `request` asks (`burro arena`), calling `progress`
        with (games done, games in all) as they go. ValueError or RulesError, before any
        game is played, when the request cannot be run (an unknown level, a bot count
        that is not the seats', bad seats or options)."""
        ...


# Any game, as the registry, the table and the tools hold one (found by preset).
Game: TypeAlias = TypedGame[Any, Any]
