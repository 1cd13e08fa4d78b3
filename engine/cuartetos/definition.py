"""The passing Burro (`cuartetos`) as a `Game` of the Burro family
(`engine.kernel.protocol`).

A thin wrapper over the package's own functions, which the service still calls
directly: everyone chooses at once (`to_act` lists several seats), nothing is ever
forced, and the game has its own clock: at `deadline` the server's `close`
(`expire`) passes for the slow or resolves an open call.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from typing import Any

from engine.cuartetos import arena, game, records, replay, storage, tip, views
from engine.cuartetos import events as ev
from engine.cuartetos.bots import LEVELS, CuartetosBot, make_bot
from engine.cuartetos.records import CuartetosRecord
from engine.cuartetos.rules import ALIASES, PRESETS, CuartetosRules, make_rules
from engine.cuartetos.state import GameState
from engine.kernel.arena import ArenaReport, ArenaRequest, Progress
from engine.kernel.presets import Preset
from engine.kernel.protocol import History, Result, TypedGame
from engine.kernel.tip import Tip


class Cuartetos:
    """`cuartetos`: pass a card at once, collect four of a kind, shout ¡Burro!."""

    name: str = "cuartetos"
    state_type: type[GameState] = GameState
    presets: Mapping[str, Preset] = PRESETS
    aliases: Mapping[str, str] = ALIASES
    bot_levels: tuple[str, ...] = LEVELS
    thinking_levels: frozenset[str] = frozenset()  # every level is a style, not a search

    def make_rules(self, preset: str, options: Mapping[str, Any]) -> CuartetosRules:
        return make_rules(preset, dict(options))

    def new_game(
        self, rules: CuartetosRules, seats: int, seed: int, at: float, dealer: int = 0
    ) -> GameState:
        return game.new_game(rules, seats, seed, dealer=dealer, at=at)

    def to_act(self, state: GameState) -> tuple[int, ...]:
        return game.to_move(state)

    def legal_actions(self, state: GameState, seat: int) -> list[str]:
        return game.legal_actions(state, seat)

    def apply(
        self, state: GameState, seat: int, action: str, at: float
    ) -> tuple[GameState, list[ev.Event]]:
        return game.apply(state, seat, action, at)

    def forced(self, state: GameState) -> tuple[int, str] | None:
        return None  # a choice made at once by everyone, or a call one may let go

    def phase(self, state: GameState) -> Hashable:
        # As service/table/cuartetos/moves.py's phase_key: a new pass, a call opening
        # or settled, the game's end.
        hand = state.hand
        return state.hand_no, hand.rotation, hand.phase_at, hand.call is not None, state.over

    def deadline(self, state: GameState) -> float | None:
        return game.deadline(state)

    def expire(self, state: GameState, at: float) -> tuple[GameState, list[ev.Event]]:
        return game.close_window(state, at)

    def hand(self, state: GameState, seat: int) -> tuple[str, ...]:
        return state.hand.hands[seat]

    def player_view(self, state: GameState, seat: int) -> views.PlayerView:
        return views.player_view(state, seat)

    def public_view(self, state: GameState) -> views.PublicView:
        return views.public_view(state)

    def result(self, state: GameState) -> Result | None:
        return Result(state.winners, state.losers) if state.over else None

    def finished_hands(self, state: GameState) -> int:
        # The last hand of a finished game stays the hand in play, ended.
        return len(state.past) + (1 if state.hand.end else 0)

    def burros(self, state: GameState, seat: int) -> int:
        """The burro of a hand is who took its last letter (the slowest, or fewest
        matching cards)."""
        return sum(1 for hand in (*state.past, state.hand) if hand.end and seat in hand.losers)

    def hand_record(self, state: GameState, index: int) -> dict[str, Any]:
        if 0 <= index < len(state.past):
            return records.hand_record(state, index)
        if index == len(state.past):
            return records.hand_record(state)
        raise IndexError(f"no hand {index}: the game has had {len(state.past) + 1}")

    def history(self, state: GameState) -> History:
        return game.history(state)

    def read_record(self, text: str) -> CuartetosRecord:
        return records.read_record(text)

    def trace(self, record: CuartetosRecord) -> Iterator[dict[str, Any]]:
        return replay.trace(record)

    def story(self, record: CuartetosRecord) -> Iterator[str]:
        return replay.story(record)

    def dumps(self, state: GameState) -> bytes:
        return storage.dumps(state)

    def loads(self, data: bytes | str) -> GameState:
        return storage.loads(data)

    def tip(self, view: views.PlayerView) -> Tip | None:
        return tip.tip(view)

    def bot(self, level: str, seed: int) -> CuartetosBot:
        return make_bot(level, seed)

    def arena(self, request: ArenaRequest, progress: Progress | None) -> ArenaReport:
        return arena.arena(request, progress)  # rollouts, cap and jobs do not apply


GAME: TypedGame[GameState, CuartetosRules] = Cuartetos()
