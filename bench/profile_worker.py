"""Where a worker's time goes under load: cProfile in one of the two workers while
bench.move_e2e plays its 20 games at once (issue #40).

    python -m bench.profile_worker [--games 20] [--kinds solo,group] [--seconds 15]
        [--top 10] [--clock cpu|wall] [--raw out.prof]

The stack of bench.move_e2e (one `serve`, two `burro worker`s, the null Bot API, Redis),
its first worker run as `python -m bench.profile_worker --child OUT worker`: `burro
worker` with cProfile on only while bench.move_e2e times (SIGUSR1 turns it on, SIGUSR2
off: warm-up, imports and game set-up left out), its stats written when it stops
(SIGTERM: RQ's warm shutdown).
Each kind of game is played `--seconds` (after bench.move_e2e's warm-up) with `--games`
games at once, one kind after the other. py-spy is not installed here (bench.profile_serve
needs it); cProfile sees the worker's main thread, which runs every job (SimpleWorker).

`--clock wall` (the default) times each function by the clock: a job's Redis and Bot
API round trips count, as they do in a move's time; `cpu` by the process's CPU time (a
system call per event here: it slows the worker several times over). Prints two
markdown tables: our functions (service, workers, engine) by cumulative time, those that
pass 90% of their time to one callee left out, and every function by its own time; each
as a share of the time in RQ's `perform_job` (all the jobs) and in ms per job.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.move_e2e import KINDS, measure, stack, table
from bench.procs import machine

OURS = ("/service/", "/workers/", "/engine/")
JOBS = "perform_job"  # rq.worker.base.BaseWorker.perform_job: one call a job, every job's time


def child(out: Path, clock: str, argv: list[str]) -> int:
    """Run `burro <argv>` under cProfile; write its stats to `out` however it ends."""
    from cli.main import main as burro

    timer = time.process_time if clock == "cpu" else time.perf_counter
    profile = cProfile.Profile(timer)
    signal.signal(signal.SIGUSR1, lambda _n, _f: profile.enable())
    signal.signal(signal.SIGUSR2, lambda _n, _f: profile.disable())
    try:
        return burro(argv)
    finally:
        profile.disable()
        profile.dump_stats(str(out))


Row = tuple[str, int, float, float]  # function, calls, own s, cumulative s
PASS_THROUGH = 0.9  # a function that spends this share of its time in one callee


def rows(stats: pstats.Stats) -> tuple[list[Row], int, float, set[str]]:
    """Every function's calls and times, the jobs' count and total time, and the
    functions that only pass the work on (one callee takes `PASS_THROUGH` of their
    time: a cumulative ranking would list each link of the chain)."""
    found: list[Row] = []
    jobs, total = 0, 0.0
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    largest: dict[Any, float] = {}  # caller -> the most time one callee took in its calls
    for (path, line, name), (_cc, calls, own, cumulative, callers) in raw.items():
        found.append((where(path, line, name), calls, own, cumulative))
        if name == JOBS and "/rq/" in path:
            jobs, total = calls, cumulative
        for caller, timing in callers.items():
            largest[caller] = max(largest.get(caller, 0.0), timing[3])
    passing = {
        where(*func)
        for func, spent in largest.items()
        if func in raw and spent >= PASS_THROUGH * raw[func][3]
    }
    return found, jobs, total, passing


def where(path: str, line: int, name: str) -> str:
    """`package/module.py:line name`, short: from the tree or site-packages down."""
    for marker in (*OURS, "/site-packages/", "/lib/python3"):
        if marker in path:
            tail = path.split(marker, 1)[1]
            path = (marker.strip("/") + "/" + tail) if marker in OURS else tail
            break
    return f"{path}:{line} {name}" if line else name


def ours(row: Row) -> bool:
    return row[0].startswith(tuple(marker.strip("/") + "/" for marker in OURS))


def markdown(title: str, found: list[Row], jobs: int, total: float) -> str:
    lines = [
        f"| {title} | calls | own s | cumulative s | share of the jobs' time | ms a job |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, calls, own, cumulative in found:
        spent = cumulative if "cumulative" in title else own
        lines.append(
            f"| `{name}` | {calls} | {own:.2f} | {cumulative:.2f} "
            f"| {100 * spent / total:.1f}% | {1000 * spent / max(1, jobs):.2f} |"
        )
    return "\n".join(lines)


def report(stats: pstats.Stats, top: int) -> str:
    found, jobs, total, passing = rows(stats)
    if not jobs:
        return "no job ran in the profiled worker"
    costs = (r for r in found if ours(r) and r[0] not in passing)
    by_cumulative = sorted(costs, key=lambda r: -r[3])[:top]
    by_own = sorted(found, key=lambda r: -r[2])[:top]
    return "\n".join(
        [
            f"{jobs} jobs, {total:.2f} s in them ({1000 * total / jobs:.2f} ms a job)",
            "",
            markdown("our function, by cumulative time (¹)", by_cumulative, jobs, total),
            "",
            markdown("function, by own time", by_own, jobs, total),
            "",
            f"(¹) leaving out those that spend {PASS_THROUGH:.0%} of their time in one callee "
            "(execute_job → press → streak → …): each link of a chain would be listed.",
        ]
    )


def parser() -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    found.add_argument("--games", type=int, default=20, help="games at once")
    found.add_argument("--kinds", default=",".join(KINDS), help="solo, group or both")
    found.add_argument("--seconds", type=float, default=15.0, help="timed, per kind")
    found.add_argument("--warmup", type=float, default=3.0)
    found.add_argument("--top", type=int, default=10)
    found.add_argument("--clock", choices=("cpu", "wall"), default="wall")
    found.add_argument("--raw", type=Path, default=None, help="keep the stats file")
    found.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    return found


def main() -> None:
    args, rest = parser().parse_known_args()
    if args.child is not None:  # the profiled worker itself
        sys.exit(child(args.child, args.clock, rest))
    cells = [(kind, args.games) for kind in args.kinds.split(",") if kind]
    header = machine()
    with tempfile.TemporaryDirectory(prefix="burro-profile-") as tmp:
        out = Path(tmp) / "worker0.prof"
        first = ["-m", "bench.profile_worker", "--child", str(out), "--clock", args.clock]
        with stack(Path(tmp), first_worker=first) as found:
            pid = found.running.pid("worker0")
            found.timed = lambda on: os.kill(pid, signal.SIGUSR1 if on else signal.SIGUSR2)
            results = asyncio.run(measure(found, cells, args.seconds, args.warmup, [], 0))
            found.running.stop("worker0")  # SIGTERM: the job in hand ends, stats written
        stats = pstats.Stats(str(out))
        if args.raw:
            args.raw.write_bytes(out.read_bytes())
    results["machine"] = header
    print(header)
    print(table(results))
    print()
    print(f"clock: {args.clock}")
    print(report(stats, args.top))


if __name__ == "__main__":
    main()
