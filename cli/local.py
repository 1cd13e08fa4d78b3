"""`burro local`: the whole product on this machine, no token and no installed Redis.

Starts an embedded Redis (its files in the data folder, so games survive a restart),
the local Telegram emulator with its web chat, `burro serve` and a worker; prints the
URL to open; Ctrl-C stops it all. Running it again resumes the games.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import threading
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "local", help="run the whole product locally (open the printed URL)"
    )
    parser.add_argument("--data", type=Path, default=Path("data"), help="where Redis keeps games")
    parser.add_argument("--port", type=int, default=8081, help="the web chat's port")
    parser.add_argument("--bot-delay", type=float, default=1.5, help="seconds bots think")
    parser.add_argument(
        "--no-flood-limits",
        action="store_true",
        help="let the local Telegram accept messages faster than Telegram",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cli.stack import Stack

    stack = Stack(
        args.data,
        emulator_port=args.port,
        flood_limits=not args.no_flood_limits,
        bot_delay=args.bot_delay,
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print("Starting Burro (Redis, local Telegram, serve, worker)…", flush=True)
    with stack:
        print(f"\n  🫏 Burro is running: open {stack.emulator_url}/ in your browser.", flush=True)
        print(
            "  Play as the family (switch users at the top): in the group “Family”, send "
            "/burro;\n  in a private chat with the bot, send /play. Ctrl-C stops.\n",
            flush=True,
        )
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()
        print("Stopping…", flush=True)
    return 0
