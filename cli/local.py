"""`burro local`: the whole product on this machine, no token and no installed Redis.

Starts an embedded Redis (its files in the data folder, so games survive a restart),
the local Telegram emulator with its web chat, `burro serve`, a worker and a bots'
worker (`burro worker --bots`, the thinking bots' own); prints the URL to open; Ctrl-C
stops it all. Running it again resumes the games. A worker or
`serve` that dies (a crash, an OOM kill) is started again (`Reviver`): nothing is lost,
as every process keeps its state in Redis.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cli.stack import Stack
    from service.table.outcome import Outcome
    from service.table.room import Room


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
        help="let the local Telegram and WhatsApp accept messages faster than they do",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cli.stack import Stack

    stack = Stack(
        args.data,
        emulator_port=args.port,
        flood_limits=not args.no_flood_limits,
        bot_delay=args.bot_delay,
        view=True,
    )
    stop = threading.Event()
    # Ctrl-C and SIGTERM stop it, even when it was started with SIGINT ignored (as a
    # parent that handles Ctrl-C itself may leave it: Python then installs no handler)
    for stopping in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stopping, lambda *_: stop.set())
    remembered = (args.data / "emulator.json").exists()  # the web chat's history (Stack)
    print("Starting Burro (Redis, local Telegram, serve, workers)…", flush=True)
    with stack:
        if not remembered and (count := post_open_tables(stack)):
            print(f"  {count} open table(s) posted again in the chats.", flush=True)
        print(f"\n  🫏 Burro is running: open {stack.emulator_url}/ in your browser.", flush=True)
        print(
            "  Play as the family (switch users at the top): in the group “Family”, send "
            "/burro;\n  in a private chat with the bot, send /play; 🖼 Table opens the table's "
            "picture.\n  Ctrl-C stops.\n",
            flush=True,
        )
        reviver = Reviver(stack)
        with contextlib.suppress(KeyboardInterrupt):
            while not stop.wait(LOOK_EVERY):
                for name in reviver.revive():
                    print(f"  {name} stopped; started again (see its log in {args.data}).")
        print("Stopping…", flush=True)
    return 0


LOOK_EVERY = 1.0  # seconds between looks at the processes
FIRST_PAUSE = 1.0  # seconds before starting a process that died again; doubled each time
MAX_PAUSE = 60.0  # a process that dies as it starts is not started in a tight loop


@dataclass
class Reviver:
    """Starts a worker or `serve` of `stack` again when it has died."""

    stack: Stack
    clock: Callable[[], float] = time.monotonic
    pauses: dict[str, float] = field(default_factory=dict)  # the next pause, by process
    due: dict[str, float] = field(default_factory=dict)  # when a dead one starts again

    def revive(self) -> list[str]:
        """Start again those due; the names of those started."""
        from cli.stack import is_worker

        started = []
        for name, process in list(self.stack.processes.items()):
            if process.poll() is None or not (name == "serve" or is_worker(name)):
                continue
            pause = self.pauses.get(name, FIRST_PAUSE)
            due = self.due.setdefault(name, self.clock() + pause)
            if self.clock() < due:
                continue
            self.start(name)
            self.pauses[name] = min(pause * 2, MAX_PAUSE)
            del self.due[name]
            started.append(name)
        return started

    def start(self, name: str) -> None:
        from cli.stack import BOTS

        if name == "serve":
            self.stack.start_serve()
        elif name.startswith(BOTS):
            self.stack.start_bot_worker(int(name.removeprefix(BOTS) or 0))
        else:
            self.stack.start_worker(int(name.removeprefix("worker") or 0))


def post_open_tables(stack: Stack) -> int:
    """Post every open table (and its players' hands) anew: the local Telegram starts
    without the history that showed them (a data folder from before it kept one)."""
    from service.infra import indexes
    from service.infra.keys import IDLE_KEY
    from service.infra.redis_server import connect
    from service.infra.store import Store
    from service.settings import Settings

    store = Store.of(connect(stack.redis.url), Settings(redis_url=stack.redis.url))
    rooms = indexes.members(store.redis, IDLE_KEY)
    shown = [store.update(room_id, posted_anew) for room_id in rooms]
    return sum(1 for result in shown if result is not None)


def posted_anew(room: Room) -> Outcome:
    from service.table.outcome import Outcome

    sync = {"table:new"}
    if room.game is not None and not room.private:
        sync |= {f"hand:{user_id}:new" for user_id in room.humans()}
    return Outcome(changed=True, sync=sync)
