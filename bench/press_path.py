"""The modules of ours a move's press passes through: in `serve` (the webhook's answer
to a card tapped in a group game of two) and in the worker (the press job that applies
it and the sync jobs that draw its screens), counted by tracing every call.

    python -m bench.press_path [--json out.json]

Each module of `service`, `workers` and `engine` that has a function called while the
press is handled counts once; the lists say which. The tracing slows everything down:
the counts are the figure, not the time.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from engine.follow_suit.game import GameState, legal_actions, to_move
from service.platforms.telegram import callbacks
from tests.service.inproc import ANA, BEN, Hook, command, press, running_hook

GROUP = -1009000000001
OURS = ("service", "workers", "engine")


class Modules:
    """The modules of ours with a function called while `on` is set, in any thread."""

    def __init__(self) -> None:
        self.on = False
        self.seen: set[str] = set()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.on and event == "call":
            name = frame.f_globals.get("__name__", "")
            if name.split(".", 1)[0] in OURS:
                self.seen.add(name)

    @contextmanager
    def counting(self) -> Iterator[set[str]]:
        self.seen = set()
        self.on = True
        try:
            yield self.seen
        finally:
            self.on = False


def a_legal_tap(hook: Hook) -> dict[str, Any]:
    room = hook.room(GROUP)
    game = room.game
    assert isinstance(game, GameState)
    seat = to_move(game)
    assert seat is not None
    user = ANA if room.seats[seat].user_id == ANA["id"] else BEN
    data = callbacks.encode(
        room.id, room.version, callbacks.game_token(legal_actions(game, seat)[0])
    )
    return press(user, data, GROUP)


def measure() -> dict[str, list[str]]:
    modules = Modules()
    threading.setprofile(modules)  # serve's thread starts after this
    sys.setprofile(modules)
    with tempfile.TemporaryDirectory() as folder, running_hook(Path(folder)) as hook:
        rt = hook.runtime()
        for update in (command("/start", ANA), command("/start", BEN)):
            hook.send(update)
        hook.send(command("/burro spanish", ANA, GROUP))
        lobby = hook.room(GROUP)
        hook.send(press(BEN, callbacks.encode(lobby.id, lobby.version, "J"), GROUP))
        started = hook.room(GROUP)
        hook.send(press(ANA, callbacks.encode(started.id, started.version, "S"), GROUP))
        hook.run_jobs(rt, ("sync", "press"))
        tap = a_legal_tap(hook)
        with modules.counting() as serve:
            assert hook.send(tap).status_code == 200
        with modules.counting() as worker:
            hook.run_jobs(rt, ("press", "sync"))
    sys.setprofile(None)
    threading.setprofile(None)
    return {"serve": sorted(serve), "worker": sorted(worker)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    found = measure()
    for side, names in found.items():
        print(f"{side}: {len(names)} modules")
        for name in names:
            print(f"  {name}")
    if args.json:
        args.json.write_text(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
