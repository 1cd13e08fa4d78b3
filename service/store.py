"""Rooms in Redis, changed by compare-and-set: the only state the service has.

Keys (the `{…}` hash tags keep a room's keys together if Redis is ever sharded):
  game:{<room>}:room          the room, JSON (expires `retention` after the game ends)
  chat:<chat>:<thread>        the room open in a chat (or forum topic)
  user:<id>                   hash: lang, name, started (the user opened a private chat)
  update:<update_id>          the dedupe mark of a handled update (expires)
  stats:chat:<chat>, stats:user:<id>   hashes of counters
  rooms:due                   playing rooms by when their next timer or bot move is due
  sync:pending                chat messages waiting for the outbox, by since when

`update()` WATCHes the room and the update's dedupe mark, runs a change, and writes the
room, the mark, the chat index and the jobs in one MULTI/EXEC; a concurrent writer
makes it start again from a fresh read, so two presses at once apply exactly one move.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import redis

from engine.game import GameState
from engine.passing import GameState as PassingGame
from service import logs, metrics
from service.outcome import Job, Outcome
from service.room import Room
from workers.queue import schedule, unschedule_timers

MAX_ATTEMPTS = 20
DUE_KEY = "rooms:due"  # sorted set: playing room id -> when it next needs a job
PENDING_SYNC = "sync:pending"  # sorted set: "<room>|<target>" -> since when it waits


def text(value: object) -> str:
    """A Redis reply as text (the client answers bytes)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def room_key(room_id: str) -> str:
    return f"game:{{{room_id}}}:room"


def chat_key(chat_id: int, thread_id: int | None) -> str:
    return f"chat:{chat_id}:{thread_id or 0}"


def update_key(update_id: int) -> str:
    return f"update:{update_id}"


class Conflict(Exception):
    """The room kept changing under us: give up (Telegram will deliver again)."""


class Store:
    def __init__(self, client: redis.Redis, retention: int, dedupe_ttl: int) -> None:
        self.redis = client
        self.retention = retention
        self.dedupe_ttl = dedupe_ttl

    # ----- reads -------------------------------------------------------------------

    def load(self, room_id: str) -> Room | None:
        logs.bind_game(room_id)
        data = self.redis.get(room_key(room_id))
        if not data:
            return None
        room = Room.model_validate_json(data)
        room._loaded_from = data
        return room

    def room_in_chat(self, chat_id: int, thread_id: int | None) -> Room | None:
        room_id = self.redis.get(chat_key(chat_id, thread_id))
        return self.load(text(room_id)) if room_id else None

    def overdue(self, before: float, limit: int = 1000) -> list[str]:
        """Playing rooms whose next timer or bot move was due before `before`."""
        return [text(r) for r in self.redis.zrangebyscore(DUE_KEY, "-inf", before, 0, limit)]

    def seen(self, update_id: int | None) -> bool:
        return update_id is not None and bool(self.redis.exists(update_key(update_id)))

    # ----- writes ------------------------------------------------------------------

    def create(self, room: Room, outcome: Outcome, update_id: int | None) -> bool:
        """Save a new room as its chat's game, unless the chat has a live game already."""
        chat = chat_key(room.chat_id, room.thread_id)
        with self.redis.pipeline() as pipe:
            pipe.watch(chat, *self._mark(update_id))  # type: ignore[no-untyped-call]
            current = pipe.get(chat)
            if current and self._live(text(current)):
                pipe.reset()
                return False
            pipe.multi()
            self._write(pipe, room, outcome, update_id)
            try:
                pipe.execute()
            except redis.WatchError:
                metrics.conflict("create", retried=False)
                return False
        logs.bind(game_id=room.id)  # the update is about the new game from here on
        return True

    def _live(self, room_id: str) -> bool:
        room = self.load(room_id)
        return room is not None and room.status in ("lobby", "playing")

    def update(
        self,
        room_id: str,
        change: Callable[[Room], Outcome],
        update_id: int | None = None,
        loaded: Room | None = None,
    ) -> tuple[Room, Outcome] | None:
        """Run `change` on a fresh copy of the room and commit what it did, atomically.
        None when the room does not exist or the update was handled already. `loaded`:
        the room as the caller loaded it and left it; if it is still current it is used
        (and given up) instead of parsing the same bytes again."""
        key = room_key(room_id)
        logs.bind_game(room_id)
        for attempt in range(1, MAX_ATTEMPTS + 1):
            with self.redis.pipeline() as pipe:
                pipe.watch(key, *self._mark(update_id))  # type: ignore[no-untyped-call]
                if update_id is not None and pipe.exists(update_key(update_id)):
                    pipe.reset()
                    return None
                data = pipe.get(key)
                if data is None:
                    pipe.reset()
                    return None
                room = _fresh(data, loaded)
                loaded = None  # changed now: a retry parses
                before = room.version
                outcome = change(room)
                pipe.multi()
                self._write(pipe, room, outcome, update_id)
                if outcome.changed and room.version != before and not room.settings.passing:
                    unschedule_timers(pipe, room.id, before)  # moot now: see workers.queue
                try:
                    pipe.execute()
                except redis.WatchError:
                    metrics.conflict("update", retried=attempt < MAX_ATTEMPTS)
                    continue  # someone else changed the room first: read it again
                return room, outcome
        raise Conflict(room_id)

    def _mark(self, update_id: int | None) -> list[str]:
        return [] if update_id is None else [update_key(update_id)]

    def _write(
        self, pipe: redis.client.Pipeline, room: Room, outcome: Outcome, update_id: int | None
    ) -> None:
        if update_id is not None:
            pipe.set(update_key(update_id), 1, ex=self.dedupe_ttl)
        if not outcome.changed:
            return
        ended = room.status in ("over", "cancelled")
        pipe.set(room_key(room.id), room.model_dump_json(), ex=self.retention if ended else None)
        chat = chat_key(room.chat_id, room.thread_id)
        if room.status == "cancelled":
            pipe.delete(chat)
        else:
            pipe.set(chat, room.id, ex=self.retention if ended else None)
        if room.status == "playing":
            pipe.zadd(DUE_KEY, {room.id: room.next_due()})
        else:
            pipe.zrem(DUE_KEY, room.id)
        if outcome.finished:
            self._count_finished(pipe, room)
        for target in sorted(outcome.sync):
            outcome.jobs.append(_sync_job(room, target))
            # Since now, not since the room's last move: a reminder's re-post, marked with
            # the move's older time, looked lost to the sweeper at once and went out twice.
            pipe.zadd(PENDING_SYNC, {f"{room.id}|{target}": time.time()}, nx=True)
        for job in outcome.jobs:
            schedule(self.redis, pipe, job)

    def _count_finished(self, pipe: redis.client.Pipeline, room: Room) -> None:
        assert room.game is not None
        pipe.hincrby(f"stats:chat:{room.chat_id}", "games", 1)
        for seat, info in enumerate(room.seats):
            if info.user_id is None:
                continue
            key = f"stats:user:{info.user_id}"
            pipe.hincrby(key, "games", 1)
            if seat in room.game.winners:
                pipe.hincrby(key, "wins", 1)
            if seat in room.game.losers:
                pipe.hincrby(key, "lost", 1)
            burros = burro_count(room.game, seat)
            if burros:
                pipe.hincrby(key, "burro", burros)
                pipe.hincrby(f"stats:chat:{room.chat_id}", f"burro:{info.user_id}", burros)

    # ----- users -------------------------------------------------------------------

    def remember_user(self, user_id: int, name: str, lang: str, started: bool = False) -> None:
        key = f"user:{user_id}"
        with self.redis.pipeline() as pipe:
            pipe.hset(key, "name", name)
            pipe.hset(key, "lang_tg", lang)
            if started:
                pipe.hset(key, "started", "1")
            pipe.execute()

    def user(self, user_id: int) -> dict[str, str]:
        raw = self.redis.hgetall(f"user:{user_id}")
        return {text(k): text(v) for k, v in raw.items()}

    def set_user_language(self, user_id: int, lang: str) -> None:
        self.redis.hset(f"user:{user_id}", "lang", lang)

    def stats(self, key: str) -> dict[str, int]:
        raw = self.redis.hgetall(key)
        return {text(k): int(v) for k, v in raw.items()}


def _fresh(data: bytes | str, loaded: Room | None) -> Room:
    """The room stored as `data`: `loaded` if it was read from these very bytes."""
    if loaded is not None and loaded._loaded_from == data:
        loaded._loaded_from = None  # given up to this update: never reused twice
        return loaded
    return Room.model_validate_json(data)


def burro_count(game: GameState | PassingGame, seat: int) -> int:
    """Hands a seat was the burro of: the follow-suit burro, or in the passing game the
    one who took the hand's last letter (the slowest, or fewest matching cards)."""
    if isinstance(game, PassingGame):
        return sum(1 for hand in (*game.past, game.hand) if hand.end and seat in hand.losers)
    return sum(1 for hand in game.past if hand.burro == seat)


def _sync_job(room: Room, target: str) -> Job:
    return Job("sync", room.id, target, 0.0)
