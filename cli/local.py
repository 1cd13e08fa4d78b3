"""`burro local`: run Burro on this machine with no token and no installed Redis.

Until the chat service lands, this replays a sample hand so a newcomer sees the game.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

SAMPLE = Path(__file__).resolve().parent.parent / "engine" / "playthroughs" / "spanish.json"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("local", help="run Burro locally (for now: replay a sample hand)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cli.replay import replay_file

    return replay_file(SAMPLE, trace=False)
