"""`burro arena`: bots play each other; print each level's rate with its 95% confidence
interval, its decision times, and the rate pure chance would give.

    burro arena --preset spanish --seats 4 --bots strong,heuristic,heuristic,heuristic \\
        --games 2000 --seed 1 [--json]

Any registered game's preset: the game runs its own arena (`Game.arena`, what a game of
it is and how its bots meet) and every report has the same JSON shape
(engine/kernel/arena.py). A searching bot thinks for a fixed number of rollouts
(`--rollouts`), with no clock cap unless `--cap-ms` is given, so a run is reproducible
for its seed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, TextIO

from engine import registry
from engine.kernel.arena import ArenaRequest
from engine.kernel.errors import RulesError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "arena",
        help="bots play each other: rates with confidence intervals",
        description="Play duplicate deals between bot levels and report their rates.",
    )
    parser.add_argument("--preset", default="spanish", choices=sorted(registry.known_names()))
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument(
        "--bots",
        default="heuristic,random,random,random",
        help=f"one level per seat, comma-separated ({levels_help()})",
    )
    parser.add_argument(
        "--games", type=int, default=400, help="games to play (whole rotations of the bots)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--options", default="{}", help="rule options as JSON, e.g. '{\"hand_size\": 5}'"
    )
    parser.add_argument(
        "--rollouts",
        type=int,
        default=None,
        help="a searching bot's rollouts per decision (default: its own)",
    )
    parser.add_argument(
        "--cap-ms",
        type=float,
        default=None,
        help="also cap a searching bot's thinking time (not reproducible)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes sharing the games (same results, sooner)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def levels_help() -> str:
    """Each game's bot levels, weakest first: `follow_suit: random, …; cuartetos: …`."""
    return "; ".join(f"{g.name}: {', '.join(g.bot_levels)}" for g in registry.games())


def run(args: argparse.Namespace) -> int:
    game, preset = registry.find_game(args.preset)
    bar = None if args.quiet else ProgressBar(sys.stderr)
    try:
        report = game.arena(request(args, preset), bar)
    except (ValueError, RulesError) as exc:  # refused before any game is played
        print(f"burro arena: {exc}", file=sys.stderr)
        return 2
    if bar:
        bar.done()
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print("\n".join(report.lines()))
    return 0


def request(args: argparse.Namespace, preset: str) -> ArenaRequest:
    """The arena the arguments ask for (ValueError if `--options` is not a JSON object)."""
    options = json.loads(args.options)
    if not isinstance(options, dict):
        raise ValueError("--options must be a JSON object")
    return ArenaRequest(
        preset=preset,
        seats=args.seats,
        bots=tuple(b.strip() for b in args.bots.split(",")),
        games=args.games,
        seed=args.seed,
        options=options,
        rollouts=args.rollouts,
        cap_seconds=None if args.cap_ms is None else args.cap_ms / 1000,
        jobs=args.jobs,
    )


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
