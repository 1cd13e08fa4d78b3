"""Write the golden playthroughs: one record and its expected trace per preset (and a few
option mixes). Run `python -m tests.playthroughs.regenerate` only when a rule change is
meant to change them, and read the diff."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from engine.follow_suit.game import apply, legal_actions, new_game, to_move
from engine.follow_suit.records import hand_record, read_record
from engine.follow_suit.replay import trace
from engine.follow_suit.rules import make_rules

HERE = Path(__file__).resolve().parent

# name -> (preset, options, seats, seed)
GOLDEN: dict[str, tuple[str, dict[str, Any], int, int]] = {
    "spanish": ("spanish", {}, 4, 11),
    "spanish48": ("spanish48", {}, 6, 12),
    "brazilian": ("brazilian", {}, 4, 13),
    "portuguese": ("portuguese", {}, 4, 14),
    "burro_em_pe": ("burro_em_pe", {"topple_chance": 0.1}, 3, 15),
    "cangkul": ("cangkul", {}, 4, 16),
    "brazilian_take_the_table": ("brazilian", {"empty_stock": "take_the_table"}, 5, 17),
    "cangkul_joker": ("cangkul", {"deck": "french52_joker", "joker_play": "only_when_void"}, 4, 18),
}


def play_first_hand(preset: str, options: dict[str, Any], seats: int, seed: int) -> dict[str, Any]:
    game = new_game(make_rules(preset, options), seats, seed)
    moves = random.Random(seed)
    while (seat := to_move(game)) is not None and not game.past:
        game, _ = apply(game, seat, moves.choice(legal_actions(game, seat)))
    return hand_record(game, 0)


def main() -> None:
    for name, spec in GOLDEN.items():
        record = play_first_hand(*spec)
        (HERE / f"{name}.record.json").write_text(json.dumps(record, indent=1) + "\n")
        lines = trace(read_record(json.dumps(record)))
        (HERE / f"{name}.trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


if __name__ == "__main__":
    main()
