"""An ended room kept as its packed moves (service.table.packed_games) against the same
room stored whole, side by side in one run: its stored bytes, the time of the save that
ends the game (packing replays the game to check it) and of its first load (a replay),
and of a load again in the same process (kept rebuilt). Games played to their end by
`easy` bots, a few seconds a move (the passing game keeps each move's time to the
microsecond, its records need it); medians over `--games` games per table.

    python -m bench.packing [--games 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.kernel.protocol import Bot, Game
from engine.registry import find_game
from service.infra.store import decode_room, encode_room
from service.table import games as table_games
from service.table import packed_games
from service.table.room import Room, RoomSettings, Seat

TABLES = [("spanish", 2), ("spanish", 4), ("cangkul", 4), ("burro_em_pe", 3), ("cuartetos", 4)]
T0 = 1_790_000_000.0
MAX_MOVES = 5000
REPEAT = 3


def ended_room(preset: str, seats: int, seed: int) -> tuple[Room, int]:
    """A room whose game `easy` bots played to its end, a few seconds a move; and its
    moves."""
    room = Room(
        id="b3nchr00",
        chat_id=-1001000000001,
        creator=1,
        settings=RoomSettings(preset=preset),
        seats=[Seat(user_id=n + 1, name=f"Player {n}") for n in range(seats)],
        status="over",
    )
    game = find_game(preset)[0]
    state = game.new_game(table_games.rules_of(room.settings), seats, room.seed, T0)
    bots = [game.bot("easy", seed * 10 + s) for s in range(seats)]
    rnd, at, moves = random.Random(seed), T0, 0
    while game.result(state) is None and moves < MAX_MOVES:
        at, moves = at + rnd.random() * 8, moves + 1
        move = choice(game, state, bots, rnd)
        due = game.deadline(state)
        if move is None or (due is not None and at >= due):
            assert due is not None, "nobody acts and the game has no deadline"
            at = max(at, due)
            state = game.expire(state, at)[0]
        else:
            state = game.apply(state, *move, at)[0]
    room.game = state
    return room, moves


def choice(game: Game, state: Any, bots: list[Bot], rnd: random.Random) -> tuple[int, str] | None:
    """The move of the first seat to act (in a random order) whose bot acts now."""
    for seat in rnd.sample(game.to_act(state), len(game.to_act(state))):
        action = bots[seat].choose(game.player_view(state, seat))
        if action is not None:
            return seat, action
    return None


def fresh_process() -> None:
    """Nothing packed or rebuilt lately, as in a process that never saw the room."""
    packed_games._recent.clear()


def ms(run: Callable[[], object], before: Callable[[], None] = lambda: None) -> float:
    """Milliseconds of one call of `run` (after `before`, which is not timed): the best
    of `REPEAT`, as the machine's other work only ever adds to it."""
    best = float("inf")
    for _ in range(REPEAT):
        before()
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def measure(preset: str, seats: int, seed: int) -> dict[str, float]:
    room, moves = ended_room(preset, seats, seed)
    whole = zlib.compress(room.model_dump_json().encode())
    stored = encode_room(room)
    first_load = ms(lambda: decode_room(stored), fresh_process)
    return {
        "moves": moves,
        "whole_bytes": len(whole),
        "packed_bytes": len(stored),
        "whole_save_ms": ms(lambda: zlib.compress(room.model_dump_json().encode())),
        "packed_save_ms": ms(lambda: encode_room(room), fresh_process),
        "whole_load_ms": ms(lambda: decode_room(whole)),
        "packed_first_load_ms": first_load,
        "replay_us_per_move": first_load * 1000 / moves,
        "packed_load_again_ms": ms(lambda: decode_room(stored)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results: dict[str, Any] = {}
    header = f"{'table':<16}" + "".join(f"{k:>22}" for k in measure("spanish", 2, 0))
    print(header)
    for preset, seats in TABLES:
        runs = [measure(preset, seats, seed) for seed in range(args.games)]
        medians = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        results[f"{preset}_{seats}"] = medians
        print(f"{preset + ' ' + str(seats):<16}" + "".join(f"{v:>22.2f}" for v in medians.values()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
