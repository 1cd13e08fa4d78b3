"""Where `burro serve` spends its time under load: py-spy samples a saturated `serve`.

    python -m bench.profile_serve [--games 1000] [--seconds 15] [--top 40] [--raw out.txt]
                                  [--tree DIR]

The same setup as bench.webhook (real Redis, the null Bot API, the load generator in
its own process, 40 connections), with `py-spy record` attached to the `serve` process.
Prints the functions by inclusive share of the samples (a function counts once per
sample however deep it recurses) and by self share. Needs `pip install py-spy`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

from bench.games import make_games
from bench.procs import loadgen, procs, start_servers, start_sink
from service.infra.redis_server import RedisServer, connect

# Where an update's time goes, by the function that spends it (inclusive shares).
PARTS: dict[str, tuple[str, ...]] = {
    "HTTP server (uvicorn h11)": ("RequestResponseCycle.run_asgi",),
    "  Starlette (routing, request and response objects)": ("Starlette.__call__",),
    "  the Telegram webhook": ("webhook.<locals>.app", "webhook.<locals>.receive"),
    "    parse: Update.de_json": ("Update.de_json",),
    "    the claim (with the room and the person; a queued press's whole check)": (
        "Store.claim",
        "Store.aclaim",
    ),
    "    PTB process_update": ("Application.process_update",),
    "      Store.load (the room read with the claim, parsed)": ("Store.load",),
    "      the change and its commit": ("Store.update", "Store.aupdate"),
    "        the move: table and engine (play.act)": ("act",),
    "        the room's JSON out (encode_room)": ("encode_room",),
    "        RQ jobs onto the recorded writes (queue.schedule)": ("schedule",),
    "    log line (structlog)": ("BoundLogger.info",),
    "Redis round trips (redis-py, either client)": (
        "Pipeline.execute",
        "Script.__call__",
        "_asend",
    ),
    "socket writes (HTTP answers, asyncio client)": ("_SelectorSocketTransport.write",),
}


def parts(raw: str) -> str:
    inclusive: Counter[str] = Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        total += int(count_text)
        names = {frame.split(" (")[0] for frame in stack.split(";")}
        names |= {name.rsplit(".", 1)[-1] for name in names}  # methods by their own name too
        for label, wanted in PARTS.items():
            if names.intersection(wanted):
                inclusive[label] += int(count_text)
    rows = [f"{100 * inclusive[label] / max(1, total):6.1f}%  {label}" for label in PARTS]
    return "\n".join(["share of serve's samples, by part", *rows])


def summarize(raw: str, top: int) -> str:
    """Inclusive and self shares from py-spy's collapsed stacks ("a;b;c count")."""
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        frames = [f.split(" (")[0] + " (" + f.split(" (")[-1].split(":")[0].rsplit("/", 1)[-1]
                  + ")" if " (" in f else f for f in stack.split(";")]  # fmt: skip
        for frame in set(frames):
            inclusive[frame] += count
        own[frames[-1]] += count
    lines = [f"{total} samples", "", "inclusive %  function"]
    for frame, count in inclusive.most_common(top):
        lines.append(f"{100 * count / total:10.1f}  {frame}")
    lines += ["", "self %       function"]
    for frame, count in own.most_common(top):
        lines.append(f"{100 * count / total:10.1f}  {frame}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40000)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--raw", type=Path, default=None, help="keep py-spy's raw output")
    parser.add_argument("--tree", type=Path, default=None, help="serve from this source tree")
    args = parser.parse_args()
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    with tempfile.TemporaryDirectory(prefix="burro-profile-") as tmp:
        folder = Path(tmp)
        with RedisServer(folder / "redis", persist=False) as redis, procs(folder) as running:
            api_url = start_sink(running)
            games_file = folder / "games.json"
            games_file.write_text(json.dumps(make_games(connect(redis.url), args.games)))
            kind = "base" if args.tree else "ours"  # base: as bench.webhook --baseline-tree
            targets = start_servers(running, kind, 1, redis.url, api_url, args.tree)
            out = folder / "raw.txt"
            record = [spy, "record", "--pid", str(running.pid(f"{kind}0")), "--format", "raw",
                      "--duration", str(int(args.seconds)), "--rate", "200", "--nonblocking",
                      "-o", str(out)]  # fmt: skip
            result: dict[str, object] = {}

            window = ["--warmup", "1", "--seconds", str(args.seconds + 1)]

            queued = ["--queued"] if kind == "ours" else []  # one move a game (bench.webhook)

            def load() -> None:
                result.update(
                    loadgen(targets, redis.url, games_file, "--mode", "saturate", *window, *queued)
                )

            thread = threading.Thread(target=load)
            cpu = running.cpu_seconds(f"{kind}0")
            thread.start()
            subprocess.run(record, check=True, capture_output=True)
            thread.join()
            cpu = running.cpu_seconds(f"{kind}0") - cpu
            moves = result.get("moves_sent")
            raw = out.read_text()
            if args.raw:
                args.raw.write_text(raw)
    print(f"load: {result.get('per_second')} updates/s, latency {result.get('latency_ms')}")
    if isinstance(moves, int) and moves:  # warm-up included, as in bench.webhook
        print(f"serve's CPU per update: {1000 * cpu / moves:.2f} ms (py-spy's sampling included)")
    print(parts(raw))
    print()
    print(summarize(raw, args.top))


if __name__ == "__main__":
    main()
