"""`burro replay RECORD.json [--trace]`: replay a `burro-record/1` game record.

Exit status: 0 replayed, 1 an illegal action (named on stderr), 2 a malformed record.
Never a traceback (docs/interfaces.md section 4).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.kernel.errors import RecordError, ReplayStop
from engine.records import read_game_record


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay a burro-record/1 game record",
        description="Replay a game record: the hand told step by step, or a JSON trace.",
    )
    parser.add_argument("record", type=Path, help="the record, a burro-record/1 JSON file")
    parser.add_argument(
        "--trace", action="store_true", help="print one JSON object per step (docs/interfaces.md 4)"
    )
    parser.set_defaults(run=lambda args: replay_file(args.record, args.trace))


def replay_file(path: Path, trace_mode: bool) -> int:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"burro replay: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    try:
        game, record = read_game_record(text)
    except RecordError as exc:
        print(f"burro replay: malformed record: {exc}", file=sys.stderr)
        return 2
    if trace_mode:
        lines: Iterator[str] = (json.dumps(line) for line in game.trace(record))
    else:
        lines = game.story(record)
    try:
        for line in lines:
            print(line, flush=trace_mode)
    except ReplayStop as exc:
        print(f"burro replay: illegal action at {exc}", file=sys.stderr)
        return 1
    return 0
