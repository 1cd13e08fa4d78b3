"""A whole game in a byte or two a move: how an ended game is kept (the service stores
an ended room's game so, for the retention period).

A game is its start (rules, seats, seed, first dealer, start time) and its moves
(`Game.history`). Each move is packed as its index among the moves possible at that
point: the legal actions of each seat to act, in that order, then the game's own
deadline if it has one. An index under 128 is one byte; a move without a choice (a
forced one) takes none. A game that keeps times adds each move's receive time, as the
microseconds since the move before.

Unpacking replays the game. Packing replays it too, and gives up (None) unless the
replay is the very state it was given: a game the packing cannot reproduce is kept
whole, so nothing is ever lost.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from engine.kernel.errors import IllegalAction, RecordError, RulesError
from engine.kernel.protocol import SYSTEM, Game, History


@dataclass(frozen=True)
class Packed:
    """An ended game as stored: its start as data, its moves as base64 of bytes."""

    preset: str
    options: dict[str, Any]  # those that differ from the preset's own
    seats: int
    seed: int
    dealer: int
    start: int  # µs
    count: int  # moves in all, those with no choice included
    moves: str  # base64: each move's index (a varint, none without a choice), its time
    timed: bool = False  # the game keeps times: each move's is packed too


def pack(game: Game, state: Any) -> Packed | None:
    """`state` packed, or None when replaying its history does not give it back."""
    history = game.history(state)
    timed = bool(history.start) or any(at for _, _, at in history.moves)
    options = _changed_options(game, history)
    start, count = micros(history.start), len(history.moves)
    packed = Packed(
        history.preset,
        options,
        history.seats,
        history.seed,
        history.dealer,
        start,
        count,
        "",
        timed,
    )
    data = bytearray()
    try:
        current, last = _new_game(game, packed), start
        for seat, action, at in history.moves:
            possible = _possible(game, current)
            index = possible.index((seat, "" if seat == SYSTEM else action))
            if len(possible) > 1:  # a move without a choice (a forced one) needs no index
                _varint(index, data)
            if timed:  # replayed at the time unpacking will give it
                _varint(_zigzag(micros(at) - last), data)
                last = micros(at)
            current = _step(game, current, seat, action, last / 1_000_000 if timed else 0.0)
    except (ValueError, IllegalAction, RulesError):  # an action not possible then
        return None
    if current != state:
        return None
    return replace(packed, moves=base64.b64encode(bytes(data)).decode())


def unpack(game: Game, packed: Packed) -> Any:
    """The game `pack` packed, replayed; RecordError if it is not one of `game`'s."""
    failures = (ValueError, IndexError, StopIteration, binascii.Error, IllegalAction, RulesError)
    try:
        state, at = _new_game(game, packed), packed.start
        numbers = _varints(base64.b64decode(packed.moves, validate=True))
        for _ in range(packed.count):
            possible = _possible(game, state)
            seat, action = possible[next(numbers) if len(possible) > 1 else 0]
            if packed.timed:
                at += _unzigzag(next(numbers))
            state = _step(game, state, seat, action, at / 1_000_000 if packed.timed else 0.0)
        if next(numbers, None) is not None:
            raise ValueError("more moves than counted")
    except failures as exc:
        raise RecordError(f"not a packed {game.name} game: {exc!r}") from None
    return state


def micros(seconds: float) -> int:
    """A receive time in whole microseconds (the passing game keeps them so)."""
    return round(seconds * 1_000_000)


def _new_game(game: Game, packed: Packed) -> Any:
    rules = game.make_rules(packed.preset, packed.options)
    at = packed.start / 1_000_000 if packed.timed else 0.0
    return game.new_game(rules, packed.seats, packed.seed, at, packed.dealer)


def _changed_options(game: Game, history: History) -> dict[str, Any]:
    """The options whose values are not the preset's own (the rest go without saying)."""
    base = game.make_rules(history.preset, {}).options()
    changed = {k: v for k, v in history.options.items() if k not in base or base[k] != v}
    return dict(sorted(changed.items()))  # one order: the same game, the same bytes


def _possible(game: Game, state: Any) -> list[tuple[int, str]]:
    """Every move possible now, in a fixed order: what a packed index points into."""
    moves = [(seat, a) for seat in game.to_act(state) for a in game.legal_actions(state, seat)]
    if game.deadline(state) is not None:
        moves.append((SYSTEM, ""))
    return moves


def _step(game: Game, state: Any, seat: int, action: str, at: float) -> Any:
    if seat == SYSTEM:
        return game.expire(state, at)[0]
    return game.apply(state, seat, action, at)[0]


def _varint(value: int, out: bytearray) -> None:
    """`value` (0 or more) in 7-bit groups, low first; the high bit says more follow."""
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)


def _varints(data: bytes) -> Iterator[int]:
    value = shift = 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            yield value
            value = shift = 0
    if shift:
        raise ValueError("the moves end inside a number")


def _zigzag(value: int) -> int:
    """A signed number as one of 0 or more (0, -1, 1, -2 … give 0, 1, 2, 3 …): a
    server's clock may step back a little between two moves."""
    return value * 2 if value >= 0 else -value * 2 - 1


def _unzigzag(value: int) -> int:
    return value // 2 if value % 2 == 0 else -(value + 1) // 2
