"""The follow-suit Burro as a `Game` of the Burro family (`engine.kernel.protocol`).

A thin wrapper over the package's own functions, which the service still calls
directly: a turn-based game with one seat to act, no clock of its own (`deadline` is
None, `expire` is refused) and `at` ignored.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from typing import Any

from engine.follow_suit import events as ev
from engine.follow_suit import game, records, replay, storage, tip, views
from engine.follow_suit.bots import LEVELS, arena, make_bot
from engine.follow_suit.game import GameState
from engine.follow_suit.records import Record
from engine.follow_suit.rules import ALIASES, PRESETS, Rules, make_rules
from engine.kernel import errors
from engine.kernel.arena import ArenaReport, ArenaRequest, Progress
from engine.kernel.presets import Preset
from engine.kernel.protocol import Bot, History, Result, TypedGame
from engine.kernel.tip import Tip


class FollowSuit:
    """`spanish`, `spanish48`, `brazilian`, `portuguese`, `burro_em_pe`, `cangkul`."""

    name: str = "follow_suit"
    state_type: type[GameState] = GameState
    presets: Mapping[str, Preset] = PRESETS
    aliases: Mapping[str, str] = ALIASES
    bot_levels: tuple[str, ...] = LEVELS
    thinking_levels: frozenset[str] = frozenset({"strong"})  # the search (bots.search)

    def make_rules(self, preset: str, options: Mapping[str, Any]) -> Rules:
        return make_rules(preset, dict(options))

    def new_game(
        self, rules: Rules, seats: int, seed: int, at: float, dealer: int = 0
    ) -> GameState:
        return game.new_game(rules, seats, seed, dealer=dealer)

    def to_act(self, state: GameState) -> tuple[int, ...]:
        seat = game.to_move(state)
        return () if seat is None else (seat,)

    def legal_actions(self, state: GameState, seat: int) -> list[str]:
        return game.legal_actions(state, seat)

    def apply(
        self, state: GameState, seat: int, action: str, at: float
    ) -> tuple[GameState, list[ev.Event]]:
        return game.apply(state, seat, action)

    def forced(self, state: GameState) -> tuple[int, str] | None:
        return game.forced(state)

    def phase(self, state: GameState) -> Hashable:
        return state.hand_no, len(state.hand.actions), state.over

    def deadline(self, state: GameState) -> float | None:
        return None

    def expire(self, state: GameState, at: float) -> tuple[GameState, list[ev.Event]]:
        raise errors.IllegalAction("the follow-suit game has no clock of its own")

    def hand(self, state: GameState, seat: int) -> tuple[str, ...]:
        return state.table.codec.codes(state.hand.hands[seat])

    def player_view(self, state: GameState, seat: int) -> views.PlayerView:
        return views.player_view(state, seat)

    def public_view(self, state: GameState) -> views.PublicView:
        return views.public_view(state)

    def result(self, state: GameState) -> Result | None:
        return Result(state.winners, state.losers) if state.over else None

    def finished_hands(self, state: GameState) -> int:
        return len(state.past)  # the last hand of a finished game is among them

    def burros(self, state: GameState, seat: int) -> int:
        return sum(1 for hand in state.past if hand.burro == seat)

    def hand_record(self, state: GameState, index: int) -> dict[str, Any]:
        if 0 <= index < len(state.past):
            return records.hand_record(state, index)
        if index == len(state.past) and not state.over:
            return records.hand_record(state)
        raise IndexError(f"no hand {index}: {len(state.past)} finished, the game is over")

    def history(self, state: GameState) -> History:
        return game.history(state)

    def read_record(self, text: str) -> Record:
        return records.read_record(text)

    def trace(self, record: Record) -> Iterator[dict[str, Any]]:
        return replay.trace(record)

    def story(self, record: Record) -> Iterator[str]:
        return replay.story(record)

    def dumps(self, state: GameState) -> bytes:
        return storage.dumps(state)

    def loads(self, data: bytes | str) -> GameState:
        return storage.loads(data)

    def tip(self, view: views.PlayerView) -> Tip | None:
        return tip.tip(view)

    def bot(self, level: str, seed: int) -> Bot:
        return make_bot(level, seed)

    def arena(self, request: ArenaRequest, progress: Progress | None) -> ArenaReport:
        return arena.arena(request, progress)


GAME: TypedGame[GameState, Rules] = FollowSuit()
