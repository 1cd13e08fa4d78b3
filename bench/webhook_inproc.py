"""The webhook's own CPU per tap, without HTTP: two source trees side by side, in process.

    python -m bench.webhook_inproc --baseline-tree /tmp/base30 [--games 6000] [--runs 6]
                                   [--concurrency 8] [--profile DIR] [--json out.json]

bench.webhook measures `serve` through uvicorn and a load generator sharing two cores,
where a difference of a few hundredths of a millisecond per update drowns in the
machine's noise. Here each tree's `serve` app (service.web.create_app, set up as `burro
serve` sets it up: its log lines to a file, the start-up heap frozen) is called
directly, in a process of its own run with that tree's Python and sources, by ASGI
calls carrying the same bodies: each game's first move, a card tapped by the player to
move (bench.games), which the claim queues for a worker (no worker runs). Each update
is its own asyncio task, as uvicorn makes it, `--concurrency` at a time, against one
real Redis (a throwaway server, restored to the games as made before each run) and the
null Bot API (bench.sink, for the start-up's calls).

The trees take turns, `--runs` each; the figure is the median CPU (process time) per
update of each, the first 10% of a run's updates left out as warm-up. Every answer must
be a 200 carrying answerCallbackQuery. With `--profile DIR`, one more run of each tree
under cProfile: each function's calls per update, side by side, and the functions whose
counts differ (what one tree does per tap that the other does not).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
WARMUP = 0.1  # share of a run's updates not timed

# ----- the child: one tree's app, called directly (stdlib and that tree's `service` only)


def child(args: argparse.Namespace) -> None:
    import asyncio
    import cProfile
    import gc
    import resource
    import time

    bodies = [body.encode() for body in json.loads(Path(args.bodies).read_text())]
    result: dict[str, Any] = {}

    async def main() -> None:
        from service.infra import heap, logs
        from service.settings import Settings
        from service.web import create_app

        settings = Settings()
        secret = os.environ["BURRO_WEBHOOK_SECRET"].encode()
        log_file = Path(args.log).open("a")  # noqa: SIM115 (open for the whole run)
        logs.setup("serve", settings.log_format, settings.log_level, stream=log_file)
        app = create_app(settings, aclient=stubbed(settings.redis_url) if args.stub_redis else None)
        heap.freeze_startup()  # as `burro serve` does before uvicorn starts the app
        life = Lifespan(app)
        await life.tell("startup")
        answers: dict[str, int] = {}

        async def one(body: bytes) -> None:
            status, answer = await call(app, body, secret)
            key = f"{status} {answer[:60]!r}" if status != 200 else f"{status} {kind(answer)}"
            answers[key] = answers.get(key, 0) + 1

        async def lane(share: list[bytes]) -> None:
            for body in share:
                await asyncio.create_task(one(body))  # a task per request, as uvicorn's

        async def run(part: list[bytes]) -> None:
            lanes = [part[i :: args.concurrency] for i in range(args.concurrency)]
            await asyncio.gather(*(lane(share) for share in lanes))

        warm = int(len(bodies) * WARMUP)
        first = time.process_time()
        await run(bodies[:warm])  # the first taps: each first use's cost (imports, caches)
        result["warmup_cpu_ms"] = 1000 * (time.process_time() - first)
        collecting = Collections()
        gc.callbacks.append(collecting)
        profiler = cProfile.Profile() if args.profile else None
        counting = ["callgrind_control", "-i"] if args.instructions else None
        if counting:  # instructions counted from here (the child runs under callgrind)
            subprocess.run([*counting, "on", str(os.getpid())], check=True, capture_output=True)
        cpu, wall = time.process_time(), time.perf_counter()
        if profiler is not None:
            profiler.enable()
        await run(bodies[warm:])
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        if counting:
            subprocess.run([*counting, "off", str(os.getpid())], check=True, capture_output=True)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        gc.callbacks.remove(collecting)
        timed = len(bodies) - warm
        result.update(
            updates=timed,
            cpu_ms_per_update=1000 * cpu / timed,
            wall_ms_per_update=1000 * wall / timed,
            gc_ms_per_update=1000 * collecting.seconds / timed,
            collections=collecting.counts,
            max_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
            source=str(Path(sys.modules["service"].__file__ or "").parent.parent),
            answers=answers,
        )
        await life.tell("shutdown")
        log_file.close()

    asyncio.run(main())
    print(json.dumps(result))


def kind(answer: bytes) -> str:
    """An answer as the report counts it: the Bot API method it carries, and whether it
    has a popup."""
    if not answer.startswith(b"{"):
        return answer.decode()[:40]
    method = re.search(rb'"method": ?"(\w+)"', answer)
    popup = re.search(rb'"text": ?"', answer)
    return (method.group(1).decode() if method else "?") + (" with a popup" if popup else "")


class Collections:
    """The garbage collector's passes while timed (a gc callback): how many of each
    generation, and their time."""

    def __init__(self) -> None:
        self.counts = [0, 0, 0]
        self.seconds = 0.0
        self.started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        import time

        if phase == "start":
            self.started = time.perf_counter()
        else:
            self.counts[info["generation"]] += 1
            self.seconds += time.perf_counter() - self.started


async def call(app: Any, body: bytes, secret: bytes) -> tuple[int, bytes]:
    """One POST of `body` to the webhook, as uvicorn hands it to the app."""
    headers = [
        (b"host", b"127.0.0.1:8080"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"x-telegram-bot-api-secret-token", secret),
    ]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8080),
        "client": ("127.0.0.1", 40000),
        "scheme": "http",
        "method": "POST",
        "root_path": "",
        "path": "/telegram/webhook",
        "raw_path": b"/telegram/webhook",
        "query_string": b"",
        "headers": headers,
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def stubbed(url: str | None) -> Any:
    """The asyncio client, its scripts answered at once with "accepted" (a queued
    press's claim) without a round trip: the app's own CPU alone."""
    from service.infra.redis_server import aconnect

    assert url is not None
    client = aconnect(url)

    async def evalsha(*args: Any) -> list[int]:
        return [3]

    client.evalsha = evalsha  # type: ignore[method-assign,assignment]
    return client


class Lifespan:
    """The app's ASGI lifespan, started and later shut down."""

    def __init__(self, app: Any) -> None:
        import asyncio

        self.app = app
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.said: asyncio.Queue[str] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    async def receive(self) -> dict[str, Any]:
        return await self.queue.get()

    async def send(self, message: dict[str, Any]) -> None:
        await self.said.put(message["type"])

    async def tell(self, event: str) -> None:
        """Start up or shut down, and wait for the app to say it did."""
        import asyncio

        if self.task is None:
            scope = {"type": "lifespan", "asgi": {"version": "3.0"}}
            self.task = asyncio.ensure_future(self.app(scope, self.receive, self.send))
        await self.queue.put({"type": f"lifespan.{event}"})
        said = await self.said.get()
        if said != f"lifespan.{event}.complete":
            raise RuntimeError(f"the app's {event}: {said}")
        if event == "shutdown":
            await self.task


# ----- the parent: Redis, the games, the trees taking turns ---------------------------


def tree_run(
    tree: Path | None,
    bodies: Path,
    env: dict[str, str],
    folder: Path,
    args: argparse.Namespace,
    profile: Path | None = None,
) -> dict[str, Any]:
    """One run of a tree's app in its own process (`tree` None: this one)."""
    from bench.procs import python_of

    cwd = tree or HERE.parents[1]
    options = [
        "--child", "--bodies", str(bodies), "--log", str(folder / "serve.log"),
        "--concurrency", str(args.concurrency), *(["--profile", str(profile)] if profile else []),
        *(["--stub-redis"] if args.stub_redis else []),
        *(["--instructions"] if args.instructions else []),
    ]  # fmt: skip
    # `-c` puts the tree's own directory first on sys.path: its `service` is the one run.
    run = f"runpy.run_path({str(HERE)!r}, run_name='__main__')"
    command = [python_of(tree), "-c", f"import runpy, sys; sys.argv[1:] = {options!r}; {run}"]
    if args.instructions:  # counted only while the child says so (--instr-atstart=no)
        out = f"--callgrind-out-file={folder / 'callgrind.out'}"
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", out, *command]
    done = subprocess.run(
        command, cwd=cwd, env={**os.environ, "PYTHONHASHSEED": "0", **env},
        capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"{cwd}: {done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if args.instructions:
        counted = re.search(r"Collected : (\d+)", done.stderr)
        assert counted is not None, done.stderr[-2000:]
        result["instructions_per_update"] = int(counted.group(1)) / result["updates"]
    return result


def first_moves(client: Any, room_ids: list[str]) -> list[str]:
    """Each game's first move, as the callback query of its player to move."""
    from bench.games import Mirror

    bodies = []
    for number, room_id in enumerate(room_ids):
        mirror = Mirror.load(client, room_id)
        assert mirror is not None and not mirror.over
        bodies.append(mirror.next_update(10_000_000 + number, 20_000_000 + number).decode())
    return bodies


def where(file: str, trees: list[Path]) -> str:
    """A profiled function's file, named the same in either tree."""
    if "site-packages/" in file:
        return file.split("site-packages/")[-1]
    for tree in trees:
        if file.startswith(str(tree) + "/"):
            return file[len(str(tree)) + 1 :]
    return file.split("/lib/python3")[-1]


def calls_per_update(stats_file: Path, updates: int, trees: list[Path]) -> dict[str, float]:
    import pstats

    stats = pstats.Stats(str(stats_file)).stats  # type: ignore[attr-defined]
    counts: dict[str, float] = {}
    for (file, _line, name), (_prim, calls, *_rest) in stats.items():
        label = f"{where(file, trees)}:{name}"
        counts[label] = counts.get(label, 0) + calls / updates
    return counts


def own_time(stats_file: Path, updates: int, trees: list[Path], top: int) -> list[str]:
    import pstats

    stats = pstats.Stats(str(stats_file)).stats  # type: ignore[attr-defined]
    rows = sorted(stats.items(), key=lambda item: -item[1][2])[:top]
    return [
        f"{1e6 * tottime / updates:8.1f} µs  {calls / updates:6.2f}/update  "
        f"{where(file, trees)}:{name}"
        for (file, _line, name), (_prim, calls, tottime, *_rest) in rows
    ]


def compare_profiles(ours: Path, base: Path, updates: int, trees: list[Path], top: int) -> str:
    mine, theirs = (calls_per_update(f, updates, trees) for f in (ours, base))
    differ = [
        (mine.get(name, 0.0) - theirs.get(name, 0.0), name)
        for name in set(mine) | set(theirs)
        if abs(mine.get(name, 0.0) - theirs.get(name, 0.0)) >= 0.05
    ]
    differ.sort(key=lambda item: (-abs(item[0]), item[1]))
    lines = ["calls per update that differ (ours, base, function):"]
    lines += [
        f"{mine.get(name, 0.0):7.2f} {theirs.get(name, 0.0):7.2f}  {name}"
        for _diff, name in differ[:top]
    ]
    lines += ["", f"own time per update, ours (top {top}):"]
    lines += own_time(ours, updates, trees, top)
    lines += ["", f"own time per update, base (top {top}):"]
    lines += own_time(base, updates, trees, top)
    total = [sum(mine.values()), sum(theirs.values())]
    lines += ["", f"function calls per update: ours {total[0]:.0f}, base {total[1]:.0f}"]
    return "\n".join(lines)


def parent(args: argparse.Namespace) -> dict[str, Any]:
    from bench.games import make_games, restore, snapshot
    from bench.procs import machine, procs, serve_env, start_sink
    from service.infra.redis_server import RedisServer, connect

    base = args.baseline_tree.resolve()
    ours = args.ours_tree.resolve() if args.ours_tree else None
    trees: list[tuple[str, Path | None]] = [("ours", ours), ("base", base)]
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in trees}
    report: dict[str, Any] = {"machine": machine(), "load_at_start": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="burro-inproc-") as tmp:
        folder = Path(tmp)
        with RedisServer(folder / "redis", persist=False) as server, procs(folder) as running:
            client = connect(server.url)
            bodies = folder / "bodies.json"
            bodies.write_text(json.dumps(first_moves(client, make_games(client, args.games))))
            games = snapshot(client)
            env = serve_env(server.url, start_sink(running))
            for number in range(args.runs):
                order = trees if number % 2 == 0 else trees[::-1]
                for name, tree in order:
                    restore(client, games)
                    runs[name].append(tree_run(tree, bodies, env, folder, args))
                    print(name, json.dumps(runs[name][-1]), file=sys.stderr)
            if args.profile is not None:
                args.profile.mkdir(parents=True, exist_ok=True)
                for name, tree in trees:
                    restore(client, games)
                    profiled = tree_run(
                        tree, bodies, env, folder, args, args.profile / f"{name}.prof"
                    )
                    report["profiled_updates"] = profiled["updates"]
    for name, results in runs.items():
        if results:  # none with --runs 0: a profile alone
            report[name] = summary(results)
    if args.runs:
        for figure in ("cpu_ms_per_update", "instructions_per_update"):
            if figure in report["ours"]:  # base's figure over ours: above 1, ours is cheaper
                ratio = report["base"][figure] / report["ours"][figure]
                report[f"base_over_ours_{figure.split('_')[0]}"] = round(ratio, 3)
    report["load_at_end"] = os.getloadavg()
    return report


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """A tree's runs: the median of each figure, the last run's counts."""
    figures = ["cpu_ms_per_update", "wall_ms_per_update", "gc_ms_per_update"]
    figures += ["instructions_per_update"] if "instructions_per_update" in results[0] else []
    found: dict[str, Any] = {f: round(statistics.median(r[f] for r in results), 4) for f in figures}
    found["cpu_runs"] = [round(r["cpu_ms_per_update"], 4) for r in results]
    last = results[-1]
    return found | {key: last[key] for key in ("collections", "max_rss_mb", "source", "answers")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bodies", help=argparse.SUPPRESS)
    parser.add_argument("--log", help=argparse.SUPPRESS)
    parser.add_argument("--baseline-tree", type=Path)
    parser.add_argument("--ours-tree", type=Path, help="ours from here (default: this tree)")
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument(
        "--instructions", action="store_true",
        help="count each update's machine instructions under valgrind's callgrind "
        "(slow, but the same on a busy machine)",
    )  # fmt: skip
    parser.add_argument(
        "--stub-redis", action="store_true", help="claims answered without Redis (CPU alone)"
    )
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.baseline_tree is None:
        parser.error("--baseline-tree is required")
    report = parent(args)
    print(json.dumps(report, indent=2))
    if args.profile is not None:
        timed = report["profiled_updates"]
        trees = [(args.ours_tree or HERE.parents[1]).resolve(), args.baseline_tree.resolve()]
        print(compare_profiles(args.profile / "ours.prof", args.profile / "base.prof",
                               timed, trees, args.top))  # fmt: skip
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
