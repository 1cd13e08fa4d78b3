"""`burro arena`: bots play many duplicate deals; print each level's rate with its 95%
confidence interval, its decision times, and the rate pure chance would give.

    burro arena --preset spanish --seats 4 --bots strong,heuristic,heuristic,heuristic \\
        --games 2000 --seed 1 [--json]

The strong bot thinks for a fixed number of rollouts (`--rollouts`), with no clock cap
unless `--cap-ms` is given, so a run is reproducible for its seed.

A passing preset (`--preset cuartetos`) plays whole games instead and reports each
level's loser rate, in the same JSON shape: see engine/cuartetos/arena.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, TextIO

from engine.cuartetos.rules import PASSING_PRESETS, is_passing
from engine.follow_suit.bots.arena import ArenaConfig, run_arena
from engine.follow_suit.bots.base import Budget
from engine.follow_suit.bots.registry import LEVELS
from engine.follow_suit.rules import ALIASES, PRESETS
from engine.kernel.errors import RulesError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "arena",
        help="bots play each other: rates with confidence intervals",
        description="Play duplicate deals between bot levels and report their rates.",
    )
    parser.add_argument(
        "--preset", default="spanish", choices=sorted([*PRESETS, *ALIASES, *PASSING_PRESETS])
    )
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument(
        "--bots",
        default="heuristic,random,random,random",
        help=f"one level per seat, comma-separated ({', '.join(LEVELS)})",
    )
    parser.add_argument("--games", type=int, default=400, help="hands to play (whole rotations)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--options", default="{}", help="rule options as JSON, e.g. '{\"hand_size\": 5}'"
    )
    parser.add_argument(
        "--rollouts",
        type=int,
        default=Budget().rollouts,
        help="the strong bot's rollouts per decision",
    )
    parser.add_argument(
        "--cap-ms",
        type=float,
        default=None,
        help="also cap the strong bot's thinking time (not reproducible)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes sharing the deals (same results, sooner)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if is_passing(args.preset):  # whole games of the passing Burro: engine/cuartetos/arena.py
        from engine.cuartetos.arena import run_command

        bar = None if args.quiet else ProgressBar(sys.stderr)
        status = run_command(
            args.preset, args.seats, args.bots, args.games, args.seed, args.options, args.json, bar
        )
        if bar:
            bar.done()
        return status
    try:
        options = json.loads(args.options)
        if not isinstance(options, dict):
            raise ValueError("--options must be a JSON object")
        bots = tuple(b.strip() for b in args.bots.split(","))
        unknown = [b for b in bots if b not in LEVELS]
        if unknown:
            raise ValueError(f"unknown bot level {unknown[0]!r}; levels are: {', '.join(LEVELS)}")
        if args.games < 1 or args.rollouts < 1 or args.jobs < 1:
            raise ValueError("--games, --rollouts and --jobs must be at least 1")
        cap = None if args.cap_ms is None else args.cap_ms / 1000
        config = ArenaConfig(
            preset=args.preset,
            seats=args.seats,
            bots=bots,
            games=args.games,
            seed=args.seed,
            options=options,
            budget=Budget(rollouts=args.rollouts, seconds=cap),
        )
        config.rules()
    except (ValueError, RulesError) as exc:
        print(f"burro arena: {exc}", file=sys.stderr)
        return 2
    bar = None if args.quiet else ProgressBar(sys.stderr)
    report = run_arena(config, progress=bar, jobs=args.jobs)
    if bar:
        bar.done()
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print("\n".join(report.lines()))
    return 0


class ProgressBar:
    """A one-line bar on a terminal; on a file (nohup), a line every 10%."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.start = time.monotonic()
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        tenth = done * 10 // total
        if not self.tty and tenth == self.shown:
            return
        self.shown = tenth
        filled = done * self.WIDTH // total
        elapsed = time.monotonic() - self.start
        eta = elapsed / done * (total - done)
        line = (
            f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total} games"
            f"  {elapsed:.0f}s, {eta:.0f}s to go"
        )
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
