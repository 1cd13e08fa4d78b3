"""Keys per room and how long they live (issue #13): a four-player group game played
to its end through the service's own code (lobby, moves, the store's writes, the
outbox's sync with a null Bot API), and a second table left idle until the sweeper ends
it. Prints, at each stage, the keys in Redis by kind with their count, bytes
(MEMORY USAGE) and time to live. RQ's keys (queued jobs, registries) are counted apart;
the flood limits are off (their keys live 2 minutes), so every sync goes out at once.

    python -m bench.keys [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from pydantic import SecretStr

from engine.follow_suit.game import GameState, legal_actions, to_move
from service.infra import indexes
from service.infra.keys import PENDING_SYNC
from service.infra.redis_server import RedisServer, connect
from service.infra.store import Store, text
from service.platforms.telegram import limits
from service.services import Services
from service.settings import Settings
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings
from workers import expiry, outbox
from workers.runtime import Runtime

GROUP = -1_009_000_000_001
PEOPLE = [Actor(500_000_001 + n, name, "en") for n, name in enumerate(("Ana", "Ben", "Cy", "Di"))]
DAY = 86400.0


class NullApi:
    """A Bot API that accepts everything: each message gets the next id."""

    def __init__(self) -> None:
        self.calls = 0

    def call(self, method: str, **params: Any) -> Any:
        self.calls += 1
        return {"message_id": self.calls}


def kind_of(key: str) -> str:
    """`game:{id}:room` -> `game:room`, `user:5:rooms` -> `user:rooms` …"""
    parts = key.replace("{", "").replace("}", "").split(":")
    named = [p for p in parts if not p.lstrip("-").isdigit() and not is_room_id(p)]
    return ":".join(named) or key


def is_room_id(part: str) -> bool:
    """A room's id (8 letters and digits) or a notice's (16 hex digits)."""
    room = len(part) == 8 and part.isalnum() and part.islower() and not part.isalpha()
    return room or (len(part) == 16 and all(c in "0123456789abcdef" for c in part))


def census(client: redis.Redis) -> dict[str, dict[str, Any]]:
    """Per kind of key: how many, bytes, and the shortest and longest TTL (-1: none)."""
    found: dict[str, dict[str, Any]] = defaultdict(lambda: {"keys": 0, "bytes": 0, "ttl": []})
    for raw in client.scan_iter(count=1000):
        key = text(raw)
        kind = "rq:*" if key.startswith("rq:") else kind_of(key)
        entry = found[kind]
        entry["keys"] += 1
        entry["bytes"] += int(client.memory_usage(raw) or 0)
        entry["ttl"].append(int(client.ttl(raw)))
    for entry in found.values():
        ttls = entry.pop("ttl")
        entry["ttl_min"], entry["ttl_max"] = min(ttls), max(ttls)
    return dict(sorted(found.items()))


def flush_outbox(rt: Runtime) -> None:
    """Run the syncs waiting, as workers would."""
    for member in indexes.members(rt.redis, PENDING_SYNC):
        room_id, target = member.split("|", 1)
        outbox.sync(rt, room_id, target)


def play_to_the_end(rt: Runtime, room: Room, rnd: random.Random) -> int:
    """Random legal moves of the player to move, each as a person's update; moves made."""
    store, count = rt.svc.store, 0
    update_id = 7_000_000
    while True:
        fresh = store.load(room.id)
        assert fresh is not None
        game = fresh.game
        if fresh.status != "playing" or not isinstance(game, GameState):
            return count
        seat = to_move(game)
        assert seat is not None
        action = rnd.choice(legal_actions(game, seat))
        update_id += 1
        store.update(room.id, playing(seat, action), update_id)
        flush_outbox(rt)
        count += 1


def playing(seat: int, action: str) -> Callable[[Room], Outcome]:
    return lambda room: play.act(room, seat, action, time.time(), 0.0)


def open_table(rt: Runtime, chat: int, players: list[Actor], start: bool) -> Room:
    store, now = rt.svc.store, time.time()
    room = lobby.create_room(chat, None, players[0], now, settings=RoomSettings())
    assert store.create(room, Outcome(changed=True, sync={"table"}), 1)
    for n, actor in enumerate(players[1:], start=2):

        def join(r: Room, actor: Actor = actor) -> Outcome:
            return lobby.join(r, actor)

        store.update(room.id, join, n)
    if start:
        store.update(room.id, lambda r: lobby.start(r, players[0], now), 9)
    flush_outbox(rt)
    for actor in players:
        store.remember_user(actor.user_id, actor.name, "en", started=True)
    loaded = store.load(room.id)
    assert loaded is not None
    return loaded


def stage(client: redis.Redis, name: str, results: dict[str, Any]) -> None:
    results[name] = census(client)
    print(f"\n## {name}")
    print(f"{'kind':<22}{'keys':>6}{'bytes':>9}{'ttl min':>12}{'ttl max':>12}")
    for kind, entry in results[name].items():
        ttl = [
            ("none" if t < 0 else f"{t / DAY:.2f} d") for t in (entry["ttl_min"], entry["ttl_max"])
        ]
        print(f"{kind:<22}{entry['keys']:>6}{entry['bytes']:>9}{ttl[0]:>12}{ttl[1]:>12}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    limits.ENABLED = False
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder, RedisServer(Path(folder), persist=False) as srv:
        client = connect(srv.url)
        settings = Settings(telegram_token=SecretStr("t"))
        rt = Runtime(
            Services(settings, Store.of(client, settings)), client, {"telegram": NullApi()}
        )
        open_table(rt, GROUP, PEOPLE, start=False)
        stage(client, "a lobby of four", results)
        client.flushall()
        room = open_table(rt, GROUP, PEOPLE, start=True)
        stage(client, "the game just started", results)
        moves_made = play_to_the_end(rt, room, random.Random(1))
        stage(client, f"the game over after {moves_made} moves", results)
        idle = open_table(rt, GROUP - 1, PEOPLE[:2], start=True)
        later = time.time() + settings.game_idle + 60
        rt.svc.clock = lambda: later
        assert expiry.expire_idle(rt, later) == [idle.id]
        flush_outbox(rt)
        stage(client, "and a second game, ended idle after 14 days", results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
