"""Write the passing game's golden playthroughs: a record and its expected trace each.
Run `python -m tests.cuartetos.playthroughs.regenerate` only when a rule change is meant
to change them, and read the diff.

Each is one hand of a game played by the seeded random player of `tests.cuartetos.tables`
(it builds fours, calls, fakes, falls for fakes, idles and lets the server close):
- cuartetos: Ludoteka's five players; a false call, a fake call four fall for, a real
  call.
- cuartetos_cap: eight players on the French deck, the rotation cap at 5.
- cuartetos_removed: the second hand of a four-player game (passing to the left, letters
  carried in), ended by a player removed for absence.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from engine.cuartetos.game import new_game
from engine.cuartetos.records import hand_record, read_record
from engine.cuartetos.replay import trace
from engine.cuartetos.rules import make_rules
from tests.cuartetos.tables import play_out

HERE = Path(__file__).resolve().parent
START = 1_746_115_200.0  # 2025-05-01T16:00:00Z

# name -> (options, seats, seed, hand index). Games deal from a keyed one-way draw of the
# seed, so a change there needs new seeds that show the same things (see legacy/ for the
# goldens of the earlier draw, which must still replay unchanged).
GOLDEN: dict[str, tuple[dict[str, Any], int, int, int]] = {
    "cuartetos": ({}, 5, 2, 0),
    "cuartetos_cap": ({"max_rotations": 5, "deck": "french52"}, 8, 1, 0),
    "cuartetos_removed": ({"absent_after": 2}, 4, 417, 1),
}


def play_hand(options: dict[str, Any], seats: int, seed: int, index: int) -> dict[str, Any]:
    game = new_game(make_rules("cuartetos", options), seats, seed, at=START)
    game = play_out(game, random.Random(seed), 3000)
    return hand_record(game, index)


def main() -> None:
    for name, spec in GOLDEN.items():
        record = play_hand(*spec)
        (HERE / f"{name}.record.json").write_text(
            json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        lines = trace(read_record(json.dumps(record)))
        (HERE / f"{name}.trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


if __name__ == "__main__":
    main()
