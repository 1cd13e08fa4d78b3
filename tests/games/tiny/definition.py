"""Tiny as a `Game` of the Burro family, and its bots: what `engine.registry` holds."""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engine.kernel import errors
from engine.kernel.arena import ArenaReport, ArenaRequest, Progress
from engine.kernel.presets import Preset
from engine.kernel.protocol import History, Result, TypedGame
from engine.kernel.rng import derive
from engine.kernel.storage import JsonCodec
from engine.kernel.tip import Tip
from tests.games.tiny import arena, game, records
from tests.games.tiny.game import PACK, PlayerView, Rules, State

_CODEC = JsonCodec(State, "tiny game")


@dataclass(frozen=True)
class TinyBot:
    """`random`: any legal card; `greedy`: the lowest card that beats the table, else the
    lowest card. A pure function of its seed and the view."""

    level: str
    seed: int

    def choose(self, view: PlayerView) -> str | None:
        if not view.legal:
            return None
        rnd = random.Random(derive(self.seed, view.hand_no, view.seat, len(view.history)))
        if self.level == "random":
            return rnd.choice(view.legal)
        best = min((PACK.index(card) for _, card in view.table), default=len(PACK))
        mine = sorted(view.legal, key=strength)  # strongest first
        winning = [a for a in mine if strength(a) < best]
        return winning[-1] if winning else mine[-1]


def strength(action: str) -> int:
    """The rank in the pack of the card a `play:` action plays (0 is the strongest)."""
    return PACK.index(action.removeprefix("play:"))


class Tiny:
    name: str = "tiny"
    state_type: type[State] = State
    presets: Mapping[str, Preset] = game.PRESETS
    aliases: Mapping[str, str] = game.ALIASES
    bot_levels: tuple[str, ...] = ("random", "greedy")
    thinking_levels: frozenset[str] = frozenset()  # both decide at once

    def make_rules(self, preset: str, options: Mapping[str, Any]) -> Rules:
        return game.make_rules(preset, dict(options))

    def new_game(self, rules: Rules, seats: int, seed: int, at: float, dealer: int = 0) -> State:
        return game.new_game(rules, seats, seed, dealer)  # no clock: `at` is not needed

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.over else (state.turn,)

    def legal_actions(self, state: State, seat: int) -> list[str]:
        return game.legal_actions(state, seat)

    def apply(self, state: State, seat: int, action: str, at: float) -> tuple[State, list[Any]]:
        return game.apply(state, seat, action)

    def forced(self, state: State) -> tuple[int, str] | None:
        legal = game.legal_actions(state, state.turn) if not state.over else []
        return (state.turn, legal[0]) if len(legal) == 1 else None

    def phase(self, state: State) -> Hashable:
        return state.hand.hand_no, len(state.hand.actions), state.over

    def deadline(self, state: State) -> float | None:
        return None

    def expire(self, state: State, at: float) -> tuple[State, list[Any]]:
        raise errors.IllegalAction("tiny has no clock of its own")

    def hand(self, state: State, seat: int) -> tuple[str, ...]:
        return state.held[seat]

    def player_view(self, state: State, seat: int) -> game.PlayerView:
        return game.player_view(state, seat)

    def public_view(self, state: State) -> game.PublicView:
        return game.public_view(state)

    def result(self, state: State) -> Result | None:
        return Result(state.winners, state.losers) if state.over else None

    def finished_hands(self, state: State) -> int:
        return len(state.past)

    def burros(self, state: State, seat: int) -> int:
        return 0  # high card has winners of tricks, no burro

    def hand_record(self, state: State, index: int) -> dict[str, Any]:
        hands = state.past if state.over else (*state.past, state.hand)
        return records.hand_record(state.rules, state.seats, hands[index])

    def history(self, state: State) -> History:
        hands = state.past if state.over else (*state.past, state.hand)
        moves = tuple((seat, action, 0.0) for hand in hands for seat, action in hand.actions)
        rules = state.rules
        return History(
            rules.preset, rules.options(), state.seats, state.seed, hands[0].dealer, 0.0, moves
        )

    def read_record(self, text: str) -> records.Record:
        return records.read_record(text)

    def trace(self, record: records.Record) -> Iterator[dict[str, Any]]:
        return records.trace(record)

    def story(self, record: records.Record) -> Iterator[str]:
        return records.story(record)

    def dumps(self, state: State) -> bytes:
        return _CODEC.dumps(state)

    def loads(self, data: bytes | str) -> State:
        return _CODEC.loads(data)

    def tip(self, view: PlayerView) -> Tip | None:
        """The greedy bot's card: the lowest that wins the table, else the lowest."""
        action = TinyBot("greedy", 0).choose(view)
        return None if action is None else Tip(action, "greedy", action.removeprefix("play:"))

    def bot(self, level: str, seed: int) -> TinyBot:
        if level not in self.bot_levels:
            raise ValueError(f"unknown bot level {level!r}; levels are: random, greedy")
        return TinyBot(level, seed)

    def arena(self, request: ArenaRequest, progress: Progress | None) -> ArenaReport:
        return arena.arena(request, self.bot, progress)


GAME: TypedGame[State, Rules] = Tiny()
