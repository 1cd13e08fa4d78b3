"""`burro local`: run Burro on this machine with no token and no installed Redis.

Until the chat service lands, this deals a hand of the chosen preset, plays it with
random legal moves and tells it, so a newcomer sees the game.
"""

from __future__ import annotations

import argparse
import json
import random
from typing import Any

from engine.game import apply, legal_actions, new_game, to_move
from engine.records import hand_record, read_record
from engine.replay import story
from engine.rules import PRESETS, make_rules


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("local", help="run Burro locally (for now: a sample hand)")
    parser.add_argument("--preset", default="spanish", choices=sorted(PRESETS))
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=None, help="fix the deal and the moves")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    game = new_game(make_rules(args.preset), args.seats, seed)
    moves = random.Random(seed)
    while (seat := to_move(game)) is not None and game.hand_no == 1:
        game, _ = apply(game, seat, moves.choice(legal_actions(game, seat)))
    record = hand_record(game, 0) if game.past else hand_record(game)
    for line in story(read_record(json.dumps(record))):
        print(line)
    print(f"(seed {seed}: `burro local --preset {args.preset} --seed {seed}` tells it again)")
    return 0
