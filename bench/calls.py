"""A human's chance in a cuartetos call against bots (issue #37).

    python -m bench.calls [--calls 20000] [--seed 1] [--responders 2] [--latency 0.5]
        [--window 5] [--json]

When someone calls ¡Burro!, everyone else must put a hand down; the last one (or anyone
later than the response window) takes a letter (docs/rules.md, Passing Burro). Each
simulated call has a caller, the human and `responders` bots of one level answering it:
the bots after their level's own delay, drawn as the service draws it
(`engine.cuartetos.bots.STYLES`, `CuartetosTable.think_time`, at the default bot
delay), the human after a simulated reaction time plus `latency` (the call's way to
their phone and their tap's way back: a bot's delay counts from the call itself). The
figure is the human's chance of not being last.

The human: someone looking at the table when the call comes (no notification to wait
for) notices it, reads the word and taps the button on a phone. Their reaction time is
log-normal, spread by `SIGMA` (a tenth of people under 0.65 times their median, a tenth
over 1.5 times), around a median of 1.2 s (quick), 1.7 s (typical) or 2.4 s (slow):
about 1 to 3 s, as people take to answer a message on screen. The row `before #37`
has every bot answer as they all did before (0.35 s to 1.6 s, whatever the level).
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.cuartetos.bots import LEVELS, make_bot
from engine.kernel.stats import wilson

MEDIANS = {"quick": 1.2, "typical": 1.7, "slow": 2.4}  # the human's median reaction, s
SIGMA = 0.33  # of the log-normal: 10% under median x 0.65, 10% over median x 1.52
BEFORE = (0.35, 1.6)  # every bot's reaction before issue #37, seconds
WINDOW = 5.0  # the shortest live response window (service.table.cuartetos.lobby.PACES)
LATENCY = 0.5  # seconds: the call's message to the phone, and the tap back to the service

Draw = Callable[[random.Random], float]


def human(median: float, latency: float = LATENCY) -> Draw:
    """A human's answer, from the call: a reaction time around `median` seconds, and
    `latency` on the way."""
    return lambda rnd: latency + rnd.lognormvariate(math.log(median), SIGMA)


def bot(spread: tuple[float, float]) -> Draw:
    """A bot's reaction: uniform over its spread, as the service draws it."""
    return lambda rnd: rnd.uniform(*spread)


def level_spread(level: str) -> tuple[float, float]:
    return make_bot(level).react


def not_last(person: Draw, bots: Draw, responders: int, rnd: random.Random, window: float) -> bool:
    """One call: whether the human answered in time and before at least one bot."""
    mine = person(rnd)
    theirs = [bots(rnd) for _ in range(responders)]
    return mine <= window and any(t > mine for t in theirs)


@dataclass(frozen=True)
class Chance:
    """The human's chance of not being last, with its 95% interval."""

    rate: float
    low: float
    high: float


def chance(
    person: Draw, bots: Draw, calls: int, seed: int, responders: int = 2, window: float = WINDOW
) -> Chance:
    """The human's chance of not being last over `calls` calls (seeded)."""
    rnd = random.Random(seed)
    wins = sum(not_last(person, bots, responders, rnd, window) for _ in range(calls))
    low, high = wilson(wins, calls)
    return Chance(wins / calls, low, high)


def table(
    calls: int, seed: int, responders: int = 2, window: float = WINDOW, latency: float = LATENCY
) -> dict[str, dict[str, Chance]]:
    """Every bot level (and the bots of before) against each kind of human."""
    rows: dict[str, tuple[float, float]] = {level: level_spread(level) for level in LEVELS}
    rows["before #37"] = BEFORE
    return {
        row: {
            kind: chance(human(median, latency), bot(spread), calls, seed, responders, window)
            for kind, median in MEDIANS.items()
        }
        for row, spread in rows.items()
    }


def render(
    results: dict[str, dict[str, Chance]], calls: int, responders: int, latency: float
) -> str:
    head = f"{'bots':<12}{'spread s':<12}" + "".join(
        f"{kind} ({MEDIANS[kind]} s)".ljust(22) for kind in MEDIANS
    )
    lines = [
        f"{calls} calls each; the human (+{latency} s on the way) and {responders} bots "
        "answer; the human's chance of not being last (95% interval)",
        head,
    ]
    for row, by_kind in results.items():
        spread = BEFORE if row == "before #37" else level_spread(row)
        cells = "".join(
            f"{c.rate:.3f} [{c.low:.3f}, {c.high:.3f}]".ljust(22) for c in by_kind.values()
        )
        lines.append(f"{row:<12}{f'{spread[0]}-{spread[1]}':<12}{cells}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--responders", type=int, default=2, help="bots answering each call")
    parser.add_argument("--window", type=float, default=WINDOW, help="seconds to respond")
    parser.add_argument("--latency", type=float, default=LATENCY, help="seconds on the way")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.calls < 1 or args.responders < 1 or args.latency < 0:
        parser.error("--calls and --responders must be at least 1, --latency at least 0")
    results = table(args.calls, args.seed, args.responders, args.window, args.latency)
    if args.json:
        print(json.dumps({r: {k: vars(c) for k, c in ks.items()} for r, ks in results.items()}))
    else:
        print(render(results, args.calls, args.responders, args.latency))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
