"""Rooms: loaded, created, and changed by compare-and-set (`update`)."""

from __future__ import annotations

from collections.abc import Callable

from redis.typing import EncodableT

from service.infra import commit, indexes, logs, metrics, timers, trips
from service.infra.keys import (
    DUE_KEY,
    chat_key,
    chat_open_key,
    presses_key,
    room_key,
    user_open_key,
)
from service.infra.store.base import MISSING, Conflict, UpdateId, decode_room, text
from service.infra.store.writes import Recorders, Writes, forget_writes
from service.table.outcome import Job, Outcome, QueuedPress
from service.table.play import queued as queued_press
from service.table.room import LIVE, Room

MAX_ATTEMPTS = 20


class Rooms(Writes):
    # ----- reads -------------------------------------------------------------------

    def load(self, room_id: str) -> Room | None:
        logs.bind_game(room_id)
        data = self._take(room_key(room_id))
        return self.parse(self.redis.get(room_key(room_id)) if data is MISSING else data)

    def parse(self, data: bytes | str | None, known: Room | None = None) -> Room | None:
        """The room stored as `data` (read with other keys in one trip), if any: `known`
        itself if it is these very bytes (the room a commit of this process just wrote:
        not parsed again)."""
        if not data:
            return None
        if known is not None and known._loaded_from == data:
            return known
        room = decode_room(data)
        room._loaded_from = data
        return room

    def room_in_chat(self, chat_id: int, thread_id: int | None) -> Room | None:
        room_id = self.redis.get(chat_key(chat_id, thread_id))
        return self.load(text(room_id)) if room_id else None

    def wake(self, room: Room, at: float | None) -> None:
        """The room's timer to come due at `at` (None: it has none), unless the room
        changed since it was loaded (service.infra.timers)."""
        if room._loaded_from:
            timers.wake_if_same(self.redis, room_key(room.id), room._loaded_from, room.id, at)

    def overdue(self, before: float, limit: int = 1000) -> list[str]:
        """Playing rooms whose next timer or bot move was due before `before`."""
        return [room for room, _at in indexes.due(self.redis, DUE_KEY, before, limit)]

    def open_rooms(self, key: str, user_id: int | None = None) -> int:
        """How many rooms of an `open:` set are still open (and opened by `user_id`, if
        given); the others are dropped from it."""
        count = 0
        for member in self.redis.smembers(key):
            room = self.load(text(member))
            if room is not None and room.status in LIVE and user_id in (None, room.creator):
                count += 1
            else:
                self.redis.srem(key, member)
        return count

    def open_in_chat(self, chat_id: int) -> int:
        """How many rooms are open in a chat, any topic (its cap)."""
        return self.open_rooms(chat_open_key(chat_id))

    def opened_by(self, user_id: int) -> int:
        """How many open rooms a person opened (their cap)."""
        return self.open_rooms(user_open_key(user_id), user_id)

    def keep_for(self, key: str, value: str, seconds: int) -> None:
        """Keep `value` at `key` for `seconds`."""
        self.redis.set(key, value, ex=seconds)

    def first_in(self, key: str, seconds: int) -> bool:
        """True once per `seconds` for a key (a cooldown), False within it."""
        return bool(self.redis.set(key, 1, nx=True, ex=seconds))

    # ----- changes -----------------------------------------------------------------

    def create(self, room: Room, outcome: Outcome, update_id: UpdateId | None) -> bool:
        """Save a new room as its chat's game, unless the chat has a live game already:
        the room first (its id is new: nobody else writes it), then the chat's pointer
        to it, only if the pointer is still as read (else the room goes again), then
        its jobs (a job run before the pointer was won could show a room about to go)."""
        chat = chat_key(room.chat_id, room.thread_id)
        current = self.redis.get(chat)
        if current and self._live(text(current)):
            return False
        rec = self.recorders(jobs_apart=True)
        self._write(rec, room, outcome, update_id, point_chat=False)
        self._opened(rec.side, room)
        self._run(self._create(room, rec))
        if not self._run(self._point(chat, current, room)):
            self._run(self._undo(room, outcome))
            metrics.conflict("create", retried=False)
            return False
        self._run(rec.queued())
        self._committed_with(update_id)
        logs.bind(game_id=room.id)  # the update is about the new game from here on
        return True

    def _create(self, room: Room, rec: Recorders) -> trips.Steps[None]:
        """The new room's writes: its own slot's in one script, then the others."""
        keys = commit.keys_of(rec.room)
        yield trips.Script(commit.WRITE_ALL, keys, commit.as_args(rec.room), self.durable)
        yield from rec.others()

    def _point(self, chat: str, was: bytes | None, room: Room) -> trips.Steps[bool]:
        """The chat's pointer set to the room, if it is still `was`."""
        args: list[EncodableT] = [b"" if was is None else was, room.id, self.ttl_of(room)]
        found = yield trips.Script(_REPOINT, [chat], args)
        return bool(found)

    def _undo(self, room: Room, outcome: Outcome) -> trips.Steps[None]:
        """A room that lost its chat to another: its keys and index entries go (its jobs
        find no room: they do nothing)."""
        rec = self.recorders()
        forget_writes(rec.room, room, sorted(outcome.sync))
        yield trips.Script(commit.WRITE_ALL, commit.keys_of(rec.room), commit.as_args(rec.room))

    def _live(self, room_id: str) -> bool:
        room = self.load(room_id)
        return room is not None and room.status in LIVE

    def update(
        self,
        room_id: str,
        change: Callable[[Room], Outcome],
        update_id: UpdateId | None = None,
        loaded: Room | None = None,
        sync_job: bool = True,
        here: Callable[[Job], bool] | None = None,
    ) -> tuple[Room, Outcome] | None:
        """Run `change` on a fresh copy of the room and commit what it did, atomically.
        None when the room does not exist or the update was handled already. `loaded`:
        the room as the caller loaded it and left it; if it is still current it is used
        (and given up) instead of parsing the same bytes again. `sync_job` False: the
        caller (a worker's job) brings the outcome's chats up to date itself; they are
        marked pending all the same, for the sweeper should it die first. `here`: the
        outcome's jobs the caller runs itself instead (the sweeper's, should it die)."""
        steps = self._update(room_id, change, update_id, loaded, sync_job, here)
        return self._run(steps)

    async def aupdate(
        self,
        room_id: str,
        change: Callable[[Room], Outcome],
        update_id: UpdateId | None = None,
        loaded: Room | None = None,
    ) -> tuple[Room, Outcome] | None:
        """`update` on the asyncio client (a webhook's change)."""
        return await self._arun(self._update(room_id, change, update_id, loaded))

    def _update(
        self,
        room_id: str,
        change: Callable[[Room], Outcome],
        update_id: UpdateId | None,
        loaded: Room | None,
        sync_job: bool = True,
        here: Callable[[Job], bool] | None = None,
    ) -> trips.Steps[tuple[Room, Outcome] | None]:
        key, queue = room_key(room_id), presses_key(room_id)
        logs.bind_game(room_id)
        for attempt in range(1, MAX_ATTEMPTS + 1):
            data = loaded._loaded_from if loaded is not None else None
            queued: list[bytes] = []  # none with a room read ahead; if some, it is "changed"
            if not data:
                read = yield from self._read_for_update(key, queue)
                if read is None:
                    return None
                data, queued = read
            room = _fresh(data, loaded)
            loaded = None  # changed now: a retry reads again
            if update_id is not None and room.has_handled(update_id):
                return None  # a redelivery of an update whose change the room holds
            outcome = (
                self._apply_queued(room, queued).then(change(room)) if queued else change(room)
            )
            rec = self.recorders()
            stored = self._write(rec, room, outcome, update_id, sync_job, here)
            durable = self.durable if update_id is not None else None
            found = yield from commit.commit(key, queue, len(queued), data, rec.room, durable)
            if found == "gone":
                return None
            if found == "changed":  # someone else changed the room first: read it again
                metrics.conflict("update", retried=attempt < MAX_ATTEMPTS)
                continue
            yield from rec.after()
            self._committed_with(update_id)
            self._forget(key)
            if stored is not None:  # the room is what Redis now holds (see `parse`)
                room._loaded_from = stored
            return room, outcome
        raise Conflict(room_id)

    def _apply_queued(self, room: Room, queued: list[bytes]) -> Outcome:
        """The room's queued presses applied, oldest first (each if its phase is still on)."""
        outcome = Outcome()
        for raw in queued:
            pressed = QueuedPress.parse(room.id, text(raw))
            if pressed is not None:
                outcome = outcome.then(queued_press(room, pressed, self.bot_delay))
        return outcome

    def _read_for_update(
        self, key: str, queue: str
    ) -> trips.Steps[tuple[bytes | str, list[bytes]] | None]:
        """The room's bytes and its queued presses, in one round trip (one slot); None
        if it is gone."""
        data, queued = yield trips.Commands([("GET", key), ("LRANGE", queue, 0, -1)])
        if data is None:
            return None
        return data, queued


# KEYS[1]: a chat's pointer. ARGV: what it was read as ('': none), the new room, its
# lifetime. The pointer is set only if it is still as read.
_REPOINT = """
local now = redis.call('GET', KEYS[1]) or ''
if now ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
"""


def _fresh(data: bytes | str, loaded: Room | None) -> Room:
    """The room stored as `data`: `loaded` if it was read from these very bytes."""
    if loaded is not None and loaded._loaded_from == data:
        loaded._loaded_from = None  # given up to this update: never reused twice
        return loaded
    return decode_room(data)
