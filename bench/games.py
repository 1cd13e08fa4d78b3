"""Games for the load benchmarks: made in Redis through the service's own code, and
mirrored in the load generator so that it always sends the next legal move.

Every game is a group table of human players only (no bot or timer moves while the
webhook is measured): seats are users `USER0 + 10 * n + seat` in group chat
`GROUP0 - n`. A move is the callback query Telegram sends when the player to move taps
a card in their private chat: `<room>.<version>.<action>` as the hand keyboard has it.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import redis

from engine.follow_suit.game import GameState, apply, legal_actions, to_move
from service.infra import commit, trips
from service.infra.store import Store, decode_room, room_key
from service.infra.store.writes import Recorders
from service.platforms.telegram import callbacks
from service.table import lobby
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings

USER0 = 300_000_000
GROUP0 = -1_003_000_000_000
BOT_USER = {"id": 100000001, "is_bot": True, "first_name": "Burro", "username": "burro_bot"}


def follow_suit(room: Room) -> GameState:
    """The room's game, a follow-suit one (every game these benchmarks make is)."""
    assert isinstance(room.game, GameState), f"room {room.id} holds no follow-suit game"
    return room.game


def user_id(game_no: int, seat: int) -> int:
    return USER0 + 10 * game_no + seat


def new_group_room(game_no: int, preset: str = "spanish", seats: int = 4) -> tuple[Room, Any]:
    """A started group game of `seats` humans, and the Outcome its start produced."""
    now = time.time()
    names = ("Ana", "Ben", "Carla", "Dan", "Eve", "Fay", "Gil", "Hal")
    actors = [Actor(user_id(game_no, s), names[s], "en") for s in range(seats)]
    room = lobby.create_room(
        GROUP0 - game_no, None, actors[0], now, settings=RoomSettings(preset=preset)
    )
    for actor in actors[1:]:
        lobby.join(room, actor)
    outcome = lobby.start(room, actors[0], now, 0.0)
    return room, outcome


def make_games(
    client: redis.Redis | redis.RedisCluster,
    count: int,
    first: int = 0,
    preset: str = "spanish",
    batch: int = 200,
    jobs: redis.Redis | None = None,
) -> list[str]:
    """Create `count` playing group games with the store's own write (`Store._write`:
    room, chat index, due-set entry, pending syncs and RQ jobs), `batch` per round trip.
    Each game's own slot is written by one script, as `Store.create` writes it, so this
    holds on a cluster too (`client` a cluster's, `jobs` RQ's Redis)."""
    store = Store(client, 7 * 24 * 3600, 24 * 3600, jobs=jobs)
    ids: list[str] = []
    for start in range(first, first + count, batch):
        made = [new_group_room(n, preset) for n in range(start, min(first + count, start + batch))]
        recorded = []
        for room, outcome in made:
            recorded.append(store.recorders())
            store._write(recorded[-1], room, outcome, None)
        _send(store, recorded)
        ids += [room.id for room, _ in made]
    return ids


def _send(store: Store, recorded: list[Recorders]) -> None:
    """The games' recorded writes: each room's slot in one script, the state's other
    keys and RQ's jobs (where apart) after them, one pipeline each."""
    source = (trips.SHEBANG if trips.shebang(store.redis) else "") + commit.WRITE_ALL
    with store.redis.pipeline(transaction=False) as pipe:
        for rec in recorded:
            keys = commit.keys_of(rec.room)
            pipe.execute_command("EVAL", source, len(keys), *keys, *commit.as_args(rec.room))
        for rec in recorded:
            if rec.side is not rec.room:
                for command in commit.as_commands(rec.side):
                    pipe.execute_command(*command)
        pipe.execute()
    if store.jobs_inside:
        return
    with store.jobs.pipeline(transaction=True) as pipe:
        for rec in recorded:
            for command in commit.as_commands(rec.jobs):
                pipe.execute_command(*command)  # type: ignore[no-untyped-call]
        pipe.execute()


@dataclass
class Mirror:
    """The load generator's copy of one game: enough to send the next legal move."""

    room_id: str
    version: int
    game: GameState
    users: list[int]
    rnd: random.Random
    pending: tuple[int, str] | None = None
    moves: int = 0
    sent: list[int] = field(default_factory=list)

    @classmethod
    def load(cls, client: redis.Redis, room_id: str) -> Mirror | None:
        return cls.of(room_id, client.get(room_key(room_id)))

    @classmethod
    def of(cls, room_id: str, data: bytes | str | None) -> Mirror | None:
        """The mirror of a room as stored (None: gone, or not being played)."""
        if data is None:
            return None
        room = decode_room(data)
        if room.status != "playing" or room.game is None:
            return None
        users = [s.user_id or 0 for s in room.seats]
        return cls(room_id, room.version, follow_suit(room), users, random.Random(room.seed))

    @property
    def over(self) -> bool:
        return to_move(self.game) is None

    def next_update(self, update_id: int, query_id: int) -> bytes:
        """The JSON of the callback query that plays a legal move for the seat to move."""
        seat = to_move(self.game)
        assert seat is not None
        action = self.rnd.choice(legal_actions(self.game, seat))
        self.pending = (seat, action)
        data = callbacks.encode(self.room_id, self.version, callbacks.game_token(action))
        user = {
            "id": self.users[seat],
            "is_bot": False,
            "first_name": f"P{seat}",
            "language_code": "en",
        }
        update = {
            "update_id": update_id,
            "callback_query": {
                "id": str(query_id),
                "from": user,
                "chat_instance": str(self.users[seat]),
                "data": data,
                "message": {
                    "message_id": 2,
                    "date": int(time.time()),
                    "chat": {"id": self.users[seat], "type": "private", "first_name": "P"},
                    "from": BOT_USER,
                    "text": "Your cards",
                },
            },
        }
        return json.dumps(update).encode()

    def applied(self) -> None:
        """The pending move was committed: apply it and the forced moves after it, as
        `service.table.play.act` does, and bump the version."""
        assert self.pending is not None
        seat, action = self.pending
        self.game, _ = apply(self.game, seat, action)
        for _ in range(200):
            mover = to_move(self.game)
            if mover is None:
                break
            legal = legal_actions(self.game, mover)
            if len(legal) != 1:
                break
            self.game, _ = apply(self.game, mover, legal[0])
        self.version += 1
        self.moves += 1
        self.pending = None

    def queued(self) -> None:
        """The pending move was answered and queued for a worker (none runs in the
        benchmarks): the game stays where it is; its one move this phase is spent."""
        self.moves += 1
        self.pending = None


def load_mirrors(
    client: redis.Redis | redis.RedisCluster, room_ids: list[str], batch: int = 5_000
) -> list[Mirror]:
    """The mirrors of the rooms still played, read `batch` per round trip (a cluster's
    client sends each node its part)."""
    mirrors: list[Mirror] = []
    for start in range(0, len(room_ids), batch):
        chunk = room_ids[start : start + batch]
        with client.pipeline(transaction=False) as pipe:
            for room_id in chunk:
                pipe.get(room_key(room_id))
            found = (Mirror.of(r, d) for r, d in zip(chunk, pipe.execute(), strict=True))
            mirrors += [mirror for mirror in found if mirror is not None]
    return mirrors


Snapshot = list[tuple[bytes, bytes]]


def snapshot(client: redis.Redis | redis.RedisCluster) -> Snapshot:
    """Every key of the Redis (a cluster's: of every primary), dumped: the games as
    made, to `restore` before each phase of a benchmark, so that every server meets the
    same games."""
    keys = list(client.scan_iter(count=10_000))
    dumped: Snapshot = []
    for start in range(0, len(keys), 5_000):
        chunk = keys[start : start + 5_000]
        with client.pipeline(transaction=False) as pipe:
            for key in chunk:
                pipe.dump(key)
            dumped += [(k, d) for k, d in zip(chunk, pipe.execute(), strict=True) if d]
    return dumped


def restore(client: redis.Redis | redis.RedisCluster, dumped: Snapshot) -> None:
    """The Redis as `snapshot` found it (whatever a phase queued or changed is gone)."""
    client.flushdb()
    for start in range(0, len(dumped), 5_000):
        with client.pipeline(transaction=False) as pipe:
            for key, data in dumped[start : start + 5_000]:
                pipe.restore(key, 0, data)
            pipe.execute()
