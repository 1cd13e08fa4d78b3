"""Rooms in Redis, changed by compare-and-set: the only state the service has.

Keys (the `{…}` hash tags keep a room's keys together if Redis is ever sharded):
  game:{<room>}:room          the room, JSON (expires `retention` after the game ends)
  game:{<room>}:msgs, :sent   the outbox's messages of the room, as long as the room
  game:{<room>}:live          hash: when each player last acted or was prompted, the
                              turn they were last prompted for, the room's newest
                              message in each chat (workers.outbox)
  game:{<room>}:presses       list: the presses queued for a worker, not applied yet
  game:{<room>}:moves         hash: the phase the room is in, and each human yet to act
                              with their moves that may wait for a worker, one a line
                              (play.waiting_moves); '' once they pressed one (aclaim)
  chat:<chat>:<thread>        the room open in a chat (or forum topic)
  user:<id>                   hash: lang, name, started (the user opened a private chat)
  user:<id>:rooms, user:<id>:chats   the rooms a person sat in, the chats they have stats in
  update:<update_id>          the dedupe mark of a handled update (expires)
  update:<update_id>:busy     an update being handled now (expires)
  stats:chat:<chat>, stats:user:<id>   hashes of counters
  open:chat:<chat>, open:user:<id>     rooms opened in a chat / by a person (for the caps)
  rooms:due                   playing rooms by when their next timer or bot move is due
  rooms:timers                playing rooms by when their phase's next timer is due
                              (service.infra.timers: the timers are not RQ jobs)
  rooms:idle                  open rooms by when they end if nobody acts (workers.expiry)
  sync:pending                chat messages waiting for the outbox, by since when
  presses:pending             presses answered and queued, not applied yet, by since when

Every key expires: a room and its chat's pointer `live_ttl` after its last change (the
sweeper ends an idle room well before: workers.expiry), or `retention` after it ended;
what is kept about a person `people_ttl` after they last played or wrote. The sorted
sets are the exception: one key each, their members removed as rooms end.

`update()` runs a change on the room as read and commits the room, the update's dedupe
mark, the chat index and the jobs in one Lua compare-and-set (service.infra.commit): a
concurrent writer makes it start again from a fresh read, so two presses at once apply
exactly one move. A press's room is read with its claim (`claim`, read_ahead), so a
press applied in `serve` costs two round trips.

A move's press that its phase's `moves` hash lists is not applied in `serve` at all: its
claim checks it against that hash and puts it on the room's `presses` list, with a job
for a worker, in the same script (`aclaim` with a press), one round trip, and the press
is answered at once. Every change (`update`, whoever makes it: that job, a timer, a
bot, another press) applies the room's queued presses first, and its commit compares
the list too and empties it, so no change ever overtakes an answered press. Every
commit writes the `moves` hash anew from the room.
"""

from __future__ import annotations

import contextvars
import time
import zlib
from collections.abc import Callable, Iterable
from typing import Literal, TypeVar

import redis
import redis.asyncio
from redis.typing import EncodableT

from engine.kernel.protocol import Result
from service.infra import commit, logs, metrics, read_ahead, timers, trips
from service.infra.keys import DUE_KEY, IDLE_KEY, PENDING_PRESSES, PENDING_SYNC
from service.infra.queue import enqueue_now, schedule
from service.settings import Settings
from service.table import targets as targets_of
from service.table.games import DEFAULT_DELAY, game_of
from service.table.outcome import PHASE_TIMERS, Job, JobKind, Outcome, QueuedPress
from service.table.play import queued as queued_press
from service.table.play import waiting_moves
from service.table.room import LIVE, Room

T = TypeVar("T")
MAX_ATTEMPTS = 20
BUSY_MS = 30_000  # an update's claim while it is handled (longer than serve's grace)


def text(value: object) -> str:
    """A Redis reply as text (the client answers bytes)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def room_key(room_id: str) -> str:
    return f"game:{{{room_id}}}:room"


def encode_room(room: Room) -> bytes:
    """A room as stored: its JSON, deflated (a third of the size: its keys repeat); an
    ended room's game as its packed moves (Room.stored_json)."""
    return zlib.compress(room.stored_json())


def decode_room(data: bytes | str) -> Room:
    """A room as stored; one saved as plain JSON (by older releases) too."""
    raw = data.encode() if isinstance(data, str) else data
    return Room.model_validate_json(raw if raw[:1] == b"{" else zlib.decompress(raw))


def live_key(room_id: str) -> str:
    """When each player last acted or was prompted (`<user>`), and for which turn
    (`<user>:turn`): whether their next turn comes as a new, notifying message."""
    return f"game:{{{room_id}}}:live"


def moves_key(room_id: str) -> str:
    """The moves each human may press and have queued in the room's phase (aclaim)."""
    return f"game:{{{room_id}}}:moves"


def presses_key(room_id: str) -> str:
    """The room's presses queued for a worker, oldest first (QueuedPress.arg): every
    change applies them first, and its commit takes them off (service.infra.commit)."""
    return f"game:{{{room_id}}}:presses"


def chat_key(chat_id: int, thread_id: int | None) -> str:
    return f"chat:{chat_id}:{thread_id or 0}"


# What names an inbound update once, for its dedupe mark: Telegram's update_id, or a
# platform's own message id as text (WhatsApp's wamid, prefixed with its platform), which
# that platform may redeliver for longer (`Store.text_mark_ttl`).
UpdateId = int | str


def user_key(user_id: int) -> str:
    return f"user:{user_id}"


def update_key(update_id: UpdateId) -> str:
    return f"update:{update_id}"


# "accepted": a move's press was checked and queued for a worker, its update marked
# handled; "pressed": the presser's move in this phase is queued already (ditto).
Claim = Literal["claimed", "duplicate", "busy", "accepted", "pressed"]
CLAIMS: tuple[Claim, ...] = ("claimed", "duplicate", "busy", "accepted", "pressed")
# KEYS: the update's mark, its busy mark, then (ARGV[2] on) the rooms and people to read
# if claimed (ARGV[3]: how many rooms). The answer: the claim (an index of CLAIMS), then
# each room's bytes (false: none) and each person's hash as its field, value list.
_CLAIM_FIRST = """
if redis.call('EXISTS', KEYS[1]) == 1 then return {1} end
if not redis.call('SET', KEYS[2], 1, 'NX', 'PX', ARGV[1]) then return {2} end
local first, rooms = tonumber(ARGV[2]), tonumber(ARGV[3])
local function reads(code, from)
  local found = {code}
  for i = from, #KEYS do
    found[#found + 1] = redis.call(i - first < rooms and 'GET' or 'HGETALL', KEYS[i])
  end
  return found
end
"""
_CLAIM = _CLAIM_FIRST + "return reads(0, first)"
# A move's press, claimed as above unless its room's moves hash (KEYS[3]) lists it for
# the presser in the button's phase: then it is queued (on the room's list KEYS[5], its
# mark in KEYS[4], the job's writes from ARGV[11]) and the update marked handled.
# ARGV[4..10]: the phase, the user, the action, the mark's TTL, the press's pending
# member and its score, the press as the list keeps it.
_PRESS = (
    _CLAIM_FIRST
    + """
local known = redis.call('HMGET', KEYS[3], 'phase', ARGV[5])
local lines = known[2] and '\\n' .. known[2] .. '\\n'
local listed = lines and string.find(lines, '\\n' .. ARGV[6] .. '\\n', 1, true)
if known[1] ~= ARGV[4] or not (known[2] == '' or listed) then return reads(0, first) end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[1], 1, 'EX', ARGV[7])
if known[2] == '' then return reads(4, first + rooms) end
redis.call('HSET', KEYS[3], ARGV[5], '')
redis.call('ZADD', KEYS[4], ARGV[9], ARGV[8])
redis.call('RPUSH', KEYS[5], ARGV[10])
redis.call('EXPIRE', KEYS[5], ARGV[7])
"""
    + commit.write_from(11)
    + """
return {3}
"""
)


# The update whose dedupe mark this request (its context) committed with a change.
_committed: contextvars.ContextVar[UpdateId | None] = contextvars.ContextVar(
    "committed_mark", default=None
)


class Conflict(Exception):
    """The room kept changing under us: give up (Telegram will deliver again)."""


class Store:
    def __init__(
        self,
        client: redis.Redis,
        retention: int,
        dedupe_ttl: int,
        *,
        live_ttl: int = 16 * 24 * 3600,
        people_ttl: int = 365 * 24 * 3600,
        idle: tuple[int, int] = (2 * 24 * 3600, 14 * 24 * 3600),
        clock: Callable[[], float] = time.time,
        text_mark_ttl: int = 7 * 24 * 3600,
        aclient: redis.asyncio.Redis | None = None,
        bot_delay: float = DEFAULT_DELAY,
    ) -> None:
        self.redis = client
        self.bot_delay = bot_delay  # for the moves of the presses queued (_apply_queued)
        # The asyncio client of `serve`'s event loop, for the `a…` methods (without it
        # they use the synchronous one).
        self.aredis = aclient
        self.retention = retention
        self.dedupe_ttl = dedupe_ttl
        self.live_ttl = live_ttl  # an open room's keys outlive its last change by this
        self.people_ttl = people_ttl
        self.idle = idle  # (lobby, game): seconds an open room waits for a person
        self.clock = clock
        self.text_mark_ttl = text_mark_ttl  # WhatsApp redelivers a message for up to 7 days

    @classmethod
    def of(
        cls, client: redis.Redis, settings: Settings, aclient: redis.asyncio.Redis | None = None
    ) -> Store:
        """The store with the lifetimes the settings give."""
        idle = max(settings.game_idle, settings.lobby_idle)
        return cls(
            client,
            settings.retention,
            settings.dedupe_ttl,
            live_ttl=idle + settings.retention,
            people_ttl=settings.people_retention,
            idle=(settings.lobby_idle, settings.game_idle),
            aclient=aclient,
            bot_delay=settings.bot_delay,
        )

    async def _arun(self, steps: trips.Steps[T]) -> T:
        """Run `steps` on the asyncio client (the synchronous one if there is none)."""
        if self.aredis is None:
            return trips.run(self.redis, steps)
        return await trips.arun(self.aredis, steps)

    # ----- reads -------------------------------------------------------------------

    def load(self, room_id: str) -> Room | None:
        logs.bind_game(room_id)
        data = read_ahead.take(room_key(room_id))
        return self.parse(self.redis.get(room_key(room_id)) if data is read_ahead.MISSING else data)

    def parse(self, data: bytes | str | None) -> Room | None:
        """The room stored as `data` (read with other keys in one trip), if any."""
        if not data:
            return None
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
        return [text(r) for r in self.redis.zrangebyscore(DUE_KEY, "-inf", before, 0, limit)]

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

    def first_in(self, key: str, seconds: int) -> bool:
        """True once per `seconds` for a key (a cooldown), False within it."""
        return bool(self.redis.set(key, 1, nx=True, ex=seconds))

    # ----- each update once ----------------------------------------------------------

    def claim(
        self, update_id: UpdateId, rooms: Iterable[str] = (), users: Iterable[int] = ()
    ) -> Claim:
        """Take the update for this request: "duplicate" when it was handled already,
        "busy" while another request handles it. The rooms and people the update is
        about are read in the same round trip, for this request to use (read_ahead)."""
        return trips.run(self.redis, self._claim(update_id, rooms, users))

    async def aclaim(
        self,
        update_id: UpdateId,
        rooms: Iterable[str] = (),
        users: Iterable[int] = (),
        press: QueuedPress | None = None,
    ) -> Claim:
        """`claim` on the asyncio client. With a move's `press`: "accepted" if its room's
        phase lists the move for the presser (it is queued for a worker, the update done);
        "pressed" if their move of this phase is queued already (the people are read)."""
        return await self._arun(self._claim(update_id, rooms, users, press))

    def _claim(
        self,
        update_id: UpdateId,
        rooms: Iterable[str],
        users: Iterable[int],
        press: QueuedPress | None = None,
    ) -> trips.Steps[Claim]:
        mark = update_key(update_id)
        room_keys, user_keys = [room_key(r) for r in rooms], [user_key(u) for u in users]
        head = [mark, f"{mark}:busy"]
        args: list[EncodableT] = [BUSY_MS, 3, len(room_keys)]
        script = _CLAIM
        if press is not None:
            head += [moves_key(press.room), PENDING_PRESSES, presses_key(press.room)]
            args = [BUSY_MS, 6, len(room_keys), *self._press_args(update_id, press)]
            script = _PRESS
        found, *values = yield trips.Script(script, [*head, *room_keys, *user_keys], args)
        claim = CLAIMS[int(found)]
        if claim == "pressed":
            read_ahead.keep(dict(zip(user_keys, map(_pairs, values), strict=True)))
            return claim
        if claim != "claimed":
            read_ahead.keep({})
            return claim
        people = [_pairs(flat) for flat in values[len(room_keys) :]]
        keys = [*room_keys, *user_keys]
        read_ahead.keep(dict(zip(keys, values[: len(room_keys)] + people, strict=True)))
        return claim

    def _press_args(self, update_id: UpdateId, press: QueuedPress) -> list[EncodableT]:
        """_PRESS's arguments after the claim's: the press, and its job's writes."""
        writes = commit.recorder(self.redis)
        enqueue_now(writes, press.job())
        member = press.member
        ttl = self.mark_ttl(update_id)
        head: list[EncodableT] = [press.phase, press.user, press.action, ttl, member, press.at]
        return [*head, press.arg, *commit.as_args(writes)]

    def finish(self, update_id: UpdateId) -> None:
        """The update is handled: a redelivery is a duplicate. A change wrote the mark
        with itself (no round trip here); a command such as /help gets it here."""
        trips.run(self.redis, self._finish(update_id))

    async def afinish(self, update_id: UpdateId) -> None:
        """`finish` on the asyncio client."""
        await self._arun(self._finish(update_id))

    def _finish(self, update_id: UpdateId) -> trips.Steps[None]:
        read_ahead.clear()
        if _committed.get() == update_id:
            return
        marking = ("SET", update_key(update_id), 1, "EX", self.mark_ttl(update_id))
        yield trips.Commands([marking, ("DEL", f"{update_key(update_id)}:busy")], True)

    def mark_ttl(self, update_id: UpdateId) -> int:
        """How long an update's dedupe mark is kept."""
        return self.text_mark_ttl if isinstance(update_id, str) else self.dedupe_ttl

    def release(self, update_id: UpdateId) -> None:
        """The update was not handled: its redelivery is."""
        trips.run(self.redis, self._release(update_id))

    async def arelease(self, update_id: UpdateId) -> None:
        """`release` on the asyncio client."""
        await self._arun(self._release(update_id))

    def _release(self, update_id: UpdateId) -> trips.Steps[None]:
        read_ahead.clear()
        yield trips.Commands([("DEL", f"{update_key(update_id)}:busy")])

    # ----- writes ------------------------------------------------------------------

    def create(self, room: Room, outcome: Outcome, update_id: UpdateId | None) -> bool:
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
            self._opened(pipe, room)
            try:
                pipe.execute()
            except redis.WatchError:
                metrics.conflict("create", retried=False)
                return False
        _committed.set(update_id)
        logs.bind(game_id=room.id)  # the update is about the new game from here on
        return True

    def ttl_of(self, room: Room) -> int:
        """Seconds a room's keys outlive their last write: `retention` once it ended."""
        return self.live_ttl if room.status in LIVE else self.retention

    def _live(self, room_id: str) -> bool:
        room = self.load(room_id)
        return room is not None and room.status in LIVE

    def _opened(self, pipe: redis.client.Pipeline, room: Room) -> None:
        """Count a new room toward its chat's and its creator's caps, and index its
        people (a one-to-one rematch starts playing at once: no lobby write does it)."""
        for key in (f"open:chat:{room.chat_id}", f"open:user:{room.creator}"):
            pipe.sadd(key, room.id)
            pipe.expire(key, self.live_ttl)
        self._index_people(pipe, "rooms", room.id, room.humans())

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
        return trips.run(self.redis, steps)

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
                read = yield from self._read_for_update(key, queue, update_id)
                if read is None:
                    return None
                data, queued = read
            room = _fresh(data, loaded)
            loaded = None  # changed now: a retry reads again
            outcome = (
                self._apply_queued(room, queued).then(change(room)) if queued else change(room)
            )
            writes = commit.recorder(self.redis)
            self._write(writes, room, outcome, update_id, sync_job, here)
            mark = _mark_key(update_id)
            found = yield from commit.commit(key, queue, len(queued), mark, data, writes)
            if found == "gone":
                return None
            if found == "changed":  # someone else changed the room first: read it again
                metrics.conflict("update", retried=attempt < MAX_ATTEMPTS)
                continue
            _committed.set(update_id)
            read_ahead.forget(key)
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

    def _mark(self, update_id: UpdateId | None) -> list[str]:
        mark = _mark_key(update_id)
        return [] if mark is None else [mark]

    def _read_for_update(
        self, key: str, queue: str, update_id: UpdateId | None
    ) -> trips.Steps[tuple[bytes | str, list[bytes]] | None]:
        """The room's bytes and its queued presses, in one round trip with its update's
        dedupe mark; None if it is gone or the update was handled already."""
        marks = [("EXISTS", mark) for mark in self._mark(update_id)]
        data, queued, *marked = yield trips.Commands(
            [("GET", key), ("LRANGE", queue, 0, -1), *marks]
        )
        if data is None or any(marked):
            return None
        return data, queued

    def _write(
        self,
        pipe: redis.client.Pipeline,
        room: Room,
        outcome: Outcome,
        update_id: UpdateId | None,
        sync_job: bool = True,
        here: Callable[[Job], bool] | None = None,
    ) -> None:
        if update_id is not None:
            pipe.set(update_key(update_id), 1, ex=self.mark_ttl(update_id))
            pipe.delete(f"{update_key(update_id)}:busy")
        if outcome.presses:
            pipe.zrem(PENDING_PRESSES, *outcome.presses)
        if not outcome.changed:
            return
        ttl = self.ttl_of(room)
        pipe.set(room_key(room.id), encode_room(room), ex=ttl)
        self._write_moves(pipe, room, ttl)
        chat = chat_key(room.chat_id, room.thread_id)
        if room.status == "cancelled":
            pipe.delete(chat)
        else:
            pipe.set(chat, room.id, ex=ttl)
        self._mark_idle(pipe, room, by_person=update_id is not None)
        if room.status == "lobby" or outcome.finished:  # the seats are set in the lobby
            self._index_people(pipe, "rooms", room.id, room.humans())
        if room.status == "playing":
            pipe.zadd(DUE_KEY, {room.id: room.next_due()})
        else:
            pipe.zrem(DUE_KEY, room.id)
        self._set_timer(pipe, room, outcome)
        if outcome.finished:
            self._count_finished(pipe, room)
        if outcome.sync and sync_job:  # one job brings every target of the change up to date
            outcome.jobs.append(_sync_job(room, sorted(outcome.sync)))
        for target in sorted(outcome.sync):
            # Since now, not since the room's last move: a reminder's re-post, marked with
            # the move's older time, looked lost to the sweeper at once and went out twice.
            # Each change marks anew: the job serving an older one leaves this mark.
            pipe.zadd(PENDING_SYNC, {f"{room.id}|{target}": self.clock()})
        for user, when in outcome.acted.items():
            pipe.hset(live_key(room.id), str(user), when)
            pipe.expire(live_key(room.id), ttl)
        for job in outcome.jobs:
            if job.kind not in PHASE_TIMERS and (here is None or not here(job)):
                schedule(self.redis, pipe, job)

    def _write_moves(self, pipe: redis.client.Pipeline, room: Room, ttl: int) -> None:
        """The room's `moves` hash anew: its phase, and who may press what and have it
        queued (none once the game is not playing)."""
        key = moves_key(room.id)
        pipe.delete(key)
        moves = waiting_moves(room)
        if moves:
            lines: dict[EncodableT, EncodableT] = {"phase": room.phase_version}
            lines.update((str(user), "\n".join(actions)) for user, actions in moves.items())
            pipe.hset(key, mapping=lines)
            pipe.expire(key, ttl)

    def _set_timer(self, pipe: redis.client.Pipeline, room: Room, outcome: Outcome) -> None:
        """The room's place in rooms:timers: its phase's first timer the change made (a
        new phase's reminder, or its deadline once reminded); none once its phase has no
        deadline or the game is over. A change that made no timer leaves it."""
        if room.status != "playing" or room.deadline is None:
            timers.drop(pipe, room.id)
            return
        due = [job.at for job in outcome.jobs if job.kind in PHASE_TIMERS]
        if due:
            timers.wake_at(pipe, room.id, min(due))

    def _mark_idle(self, pipe: redis.client.Pipeline, room: Room, by_person: bool) -> None:
        """When an open room ends if nobody acts: counted from a person's update (a job's
        write, a bot's move, only makes sure the room is there)."""
        if room.status not in LIVE:
            pipe.zrem(IDLE_KEY, room.id)
            return
        wait = self.idle[0] if room.status == "lobby" else self.idle[1]
        pipe.zadd(IDLE_KEY, {room.id: self.clock() + wait}, nx=not by_person)

    def _index_people(
        self, pipe: redis.client.Pipeline, kind: str, member: object, users: Iterable[int]
    ) -> None:
        """Remember where each person has data (`user:<id>:rooms`/`:chats`), so that
        forgetting them (service.table.privacy) needs no scan of every key."""
        for user_id in users:
            key = f"user:{user_id}:{kind}"
            pipe.sadd(key, str(member))
            pipe.expire(key, self.people_ttl)

    def _count_finished(self, pipe: redis.client.Pipeline, room: Room) -> None:
        game = game_of(room.settings.preset)
        result = game.result(room.game) or Result((), ())  # ended early: nobody won
        self._index_people(pipe, "chats", room.chat_id, room.humans())
        pipe.hincrby(f"stats:chat:{room.chat_id}", "games", 1)
        pipe.expire(f"stats:chat:{room.chat_id}", self.people_ttl)
        for seat, info in enumerate(room.seats):
            if info.user_id is None:
                continue
            key = f"stats:user:{info.user_id}"
            pipe.hincrby(key, "games", 1)
            pipe.expire(key, self.people_ttl)
            if seat in result.winners:
                pipe.hincrby(key, "wins", 1)
            if seat in result.losers:
                pipe.hincrby(key, "lost", 1)
            burros = game.burros(room.game, seat)
            if burros:
                pipe.hincrby(key, "burro", burros)
                pipe.hincrby(f"stats:chat:{room.chat_id}", f"burro:{info.user_id}", burros)

    def note_message(self, chat_id: int, thread_id: int | None, message_id: int) -> None:
        """A message came in a chat (a command to us): the messages of the room open
        there are above it now, and its table is posted again at the bottom on its next
        change (workers.outbox.due_anew)."""
        room_id = self.redis.get(chat_key(chat_id, thread_id))
        if room_id is None:
            return
        key, field = live_key(text(room_id)), f"top:{chat_id}"
        top = self.redis.hget(key, field)
        if top is None or message_id > int(top):
            with self.redis.pipeline() as pipe:
                pipe.hset(key, field, message_id)
                pipe.expire(key, self.live_ttl)
                pipe.execute()

    # ----- users -------------------------------------------------------------------

    def remember_user(self, user_id: int, name: str, lang: str, started: bool = False) -> None:
        key = user_key(user_id)
        read_ahead.forget(key)
        with self.redis.pipeline() as pipe:
            pipe.hset(key, "name", name)
            pipe.hset(key, "lang_tg", lang)
            if started:
                pipe.hset(key, "started", "1")
            pipe.expire(key, self.people_ttl)
            pipe.execute()

    def rooms_of(self, user_id: int) -> list[str]:
        """The rooms a person has sat in lately (the people index)."""
        return sorted(text(member) for member in self.redis.smembers(f"user:{user_id}:rooms"))

    def user(self, user_id: int) -> dict[str, str]:
        raw = read_ahead.take(user_key(user_id))
        if raw is read_ahead.MISSING:
            raw = self.redis.hgetall(user_key(user_id))
        return {text(k): text(v) for k, v in raw.items()}

    def set_user_language(self, user_id: int, lang: str) -> None:
        read_ahead.forget(user_key(user_id))
        with self.redis.pipeline() as pipe:
            pipe.hset(user_key(user_id), "lang", lang)
            pipe.expire(user_key(user_id), self.people_ttl)
            pipe.execute()

    def stats(self, key: str) -> dict[str, int]:
        raw = self.redis.hgetall(key)
        return {text(k): int(v) for k, v in raw.items()}


def _fresh(data: bytes | str, loaded: Room | None) -> Room:
    """The room stored as `data`: `loaded` if it was read from these very bytes."""
    if loaded is not None and loaded._loaded_from == data:
        loaded._loaded_from = None  # given up to this update: never reused twice
        return loaded
    return decode_room(data)


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    """A hash as HGETALL gives it from a Lua script: its fields and values in turn."""
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _mark_key(update_id: UpdateId | None) -> str | None:
    return None if update_id is None else update_key(update_id)


def _sync_job(room: Room, targets: list[str]) -> Job:
    """The change's sync job: its id names the room's version, so the job of the next
    change is another job (a finished job's hash is deleted: service.infra.queue)."""
    return Job(JobKind.SYNC, room.id, targets_of.joined(targets), 0.0, tag=f"v{room.version}")
