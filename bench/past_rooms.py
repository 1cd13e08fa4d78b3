"""A screen's cost against the games its reader played before (issue #40): a hand's
screen asks whether its reader sits at another open table (to name its table), and a
family that plays every evening has sat in hundreds of rooms within the year the people
index keeps them.

    python -m bench.past_rooms [--past 0,100,1000] [--screens 200]

For each count of past games (played with the service's own code, each ended as its
last move ends it), on a throwaway Redis and a null Bot API: a game of two, and its hand
screen for one player drawn and sent `--screens` times, each after a change it shows.
Prints the CPU time (this process) and the Redis commands a screen, and the time Redis
spent (its INFO commandstats). Run it from the source tree to measure (`cd <worktree>
&& python -m bench.past_rooms`).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import redis
from pydantic import SecretStr

from bench.keys import NullApi
from service.infra import indexes
from service.infra.keys import PENDING_SYNC
from service.infra.redis_server import RedisServer, connect
from service.infra.store import Store
from service.platforms.telegram import limits
from service.services import Services
from service.settings import Settings
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings
from workers import outbox
from workers.runtime import Runtime

ANA, BEN = Actor(600_000_001, "Ana", "en"), Actor(600_000_002, "Ben", "en")
GROUP = -1_006_000_000_000


def started(rt: Runtime, chat: int) -> Room:
    """A game of Ana and Ben in a group, dealt."""
    now = time.time()
    room = lobby.create_room(chat, None, ANA, now, settings=RoomSettings(preset="spanish"))
    lobby.join(room, BEN)
    assert rt.svc.store.create(room, lobby.start(room, ANA, now, 0.0), None)
    return room


def over(fresh: Room) -> Outcome:
    fresh.status = "over"
    return Outcome(changed=True, finished=True)


def renamed(n: int) -> Callable[[Room], Outcome]:
    """A change every screen of the game shows: the first seat renamed."""

    def change(fresh: Room) -> Outcome:
        fresh.seats[0].name = f"Ana {n}"
        return Outcome(changed=True)

    return change


def commands(client: redis.Redis) -> tuple[int, float]:
    """Commands Redis ran so far, and the microseconds it spent on them (INFO aside)."""
    stats = client.info("commandstats")
    kept = [v for k, v in stats.items() if k != "cmdstat_info"]
    return sum(int(v["calls"]) for v in kept), sum(float(v["usec"]) for v in kept)


def measure(rt: Runtime, client: redis.Redis, past: int, screens: int) -> dict[str, float]:
    client.flushall()
    for n in range(past):
        old = started(rt, GROUP - 1 - n)
        assert rt.svc.store.update(old.id, over) is not None
    room = started(rt, GROUP)
    indexes.clear(client, PENDING_SYNC)
    outbox.sync(rt, room.id, f"hand:{BEN.user_id}")  # his first screen
    cpu, calls, usec = 0.0, 0, 0.0
    for n in range(screens):
        assert rt.svc.store.update(room.id, renamed(n)) is not None
        calls0, usec0 = commands(client)
        start = time.process_time()
        outbox.sync(rt, room.id, f"hand:{BEN.user_id}")
        cpu += time.process_time() - start
        calls1, usec1 = commands(client)
        calls, usec = calls + calls1 - calls0, usec + usec1 - usec0
    return {"cpu_ms": 1000 * cpu / screens, "commands": calls / screens, "redis_us": usec / screens}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--past", default="0,100,1000")
    parser.add_argument("--screens", type=int, default=200)
    args = parser.parse_args()
    limits.ENABLED = False
    print("| past games | CPU a screen | Redis commands a screen | Redis's time a screen |")
    print("| ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as folder, RedisServer(Path(folder), persist=False) as srv:
        client = connect(srv.url)
        settings = Settings(telegram_token=SecretStr("t"))
        rt = Runtime(
            Services(settings, Store.of(client, settings)), client, {"telegram": NullApi()}
        )
        for past in (int(p) for p in args.past.split(",")):
            row = measure(rt, client, past, args.screens)
            print(
                f"| {past:,} | {row['cpu_ms']:.2f} ms | {row['commands']:.1f} "
                f"| {row['redis_us']:.0f} µs |",
                flush=True,
            )


if __name__ == "__main__":
    main()
