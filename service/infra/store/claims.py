"""Each update once: its claim (a dedupe mark and a busy mark, with what it is about read
in the same round trip), a move's press queued in that same script, and its mark.

The mark keeps how the update was answered, so that a redelivery (Telegram did not get
our first answer) is answered again the same way (`Claimed`): "1" (kept by older
releases, or an update that is not a press: not known), "=" and the popup's text ("="
alone: no popup), or "!" (a press of a move queued already: the out-of-date text)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from redis.typing import EncodableT

from service.infra import commit, queue, trips
from service.infra.keys import (
    PENDING_PRESSES,
    index_key,
    moves_key,
    presses_key,
    room_key,
    update_key,
    user_key,
)
from service.infra.store.base import StoreBase, UpdateId, text
from service.table.outcome import QueuedPress

BUSY_MS = 30_000  # an update's claim while it is handled (longer than serve's grace)
MAX_ANSWER = 300  # characters of an answer kept (a popup of 200 units, or a link)
_NOT_KEPT, _ANSWERED, _OUT_OF_DATE = "1", "=", "!"  # a mark's value (the docstring)
BUSY = "~"  # the mark's value while the update is handled

# "accepted": a move's press was checked and queued for a worker, its update marked
# handled; "pressed": the presser's move in this phase is queued already (ditto).
Claim = Literal["claimed", "duplicate", "busy", "accepted", "pressed"]
CLAIMS: tuple[Claim, ...] = ("claimed", "duplicate", "busy", "accepted", "pressed")


@dataclass(frozen=True)
class Claimed:
    """An update's claim; for a duplicate, how it was answered first (from its mark)."""

    claim: Claim
    answer: str | None = None  # the popup's text ("": none); None: not known
    out_of_date: bool = False  # answered as out of date (it was "pressed")


_CLAIMED = {claim: Claimed(claim) for claim in CLAIMS}  # made once: a claim per tap


def mark_of(answer: str | None) -> str:
    """A dedupe mark's value for an update answered with `answer` (None: not known)."""
    return _NOT_KEPT if answer is None else _ANSWERED + answer[:MAX_ANSWER]


def duplicate(mark: bytes | str) -> Claimed:
    """The claim of a redelivery whose mark is `mark`."""
    value = text(mark)
    if value == _OUT_OF_DATE:
        return Claimed("duplicate", out_of_date=True)
    if value.startswith(_ANSWERED):
        return Claimed("duplicate", value.removeprefix(_ANSWERED))
    return Claimed("duplicate")


# KEYS: the update's mark, then (ARGV[2] on) the rooms and people to read if claimed
# (ARGV[3]: how many rooms). While the update is handled its mark is BUSY, for BUSY_MS.
# The answer: the claim (an index of CLAIMS), then for a duplicate its mark, else each
# room's bytes (false: none) and each person's hash as its field, value list.
_CLAIM_FIRST = f"""
local mark = redis.call('GET', KEYS[1])
if mark == '{BUSY}' then return {{2}} end
if mark then return {{1, mark}} end
redis.call('SET', KEYS[1], '{BUSY}', 'PX', ARGV[1])
local first, rooms = tonumber(ARGV[2]), tonumber(ARGV[3])
local function reads(code, from)
  local found = {{code}}
  for i = from, #KEYS do
    found[#found + 1] = redis.call(i - first < rooms and 'GET' or 'HGETALL', KEYS[i])
  end
  return found
end
"""
_CLAIM = _CLAIM_FIRST + "return reads(0, first)"


def _queue_press(moves: int, pending: int, presses: int, argv: int) -> str:
    """Lua that queues a move's press if the room's moves hash (KEYS[moves]) lists it for
    the presser in the button's phase: on the room's list KEYS[presses], its pending
    mark in KEYS[pending]. It leaves `queues` (it queued it) and `pressed` (the presser's
    move of this phase was queued already). ARGV from `argv` on: the phase, the user,
    the action, the mark's TTL, the press's pending member and its score, the press as
    the list keeps it."""
    a = [f"ARGV[{argv + i}]" for i in range(7)]
    return f"""
local known = redis.call('HMGET', KEYS[{moves}], 'phase', {a[1]})
local lines = known[2] and '\\n' .. known[2] .. '\\n'
local listed = lines and string.find(lines, '\\n' .. {a[2]} .. '\\n', 1, true)
local queues = known[1] == {a[0]} and known[2] ~= '' and listed
if queues then
  redis.call('HSET', KEYS[{moves}], {a[1]}, '')
  redis.call('ZADD', KEYS[{pending}], {a[5]}, {a[4]})
  redis.call('RPUSH', KEYS[{presses}], {a[6]})
  redis.call('EXPIRE', KEYS[{presses}], {a[3]})
end
local pressed = known[1] == {a[0]} and known[2] == ''
"""


# A move's press, claimed as above, and queued (_queue_press: KEYS[2..4], ARGV[4..10])
# with its job's writes (from ARGV[11]), the update marked handled with its answer: none,
# or out of date if the presser's move is queued already. Else a claim as above.
_PRESS = (
    _CLAIM_FIRST
    + _queue_press(2, 3, 4, 4)
    + f"""
if not (queues or pressed) then return reads(0, first) end
redis.call('SET', KEYS[1], pressed and '{_OUT_OF_DATE}' or '{_ANSWERED}', 'EX', ARGV[7])
if pressed then return reads(4, first + rooms) end
"""
    + commit.write_from(11)
    + """
return {3}
"""
)
# The same on a cluster, in the room's slot alone (KEYS[1..3]); the mark and the job
# follow it (Claims._claim_apart). The answer: 0 not queued, 3 queued, 4 pressed.
_PRESS_ALONE = (
    _queue_press(1, 2, 3, 1)
    + """
if queues then return 3 end
return pressed and 4 or 0
"""
)


class Claims(StoreBase):
    def claim(
        self, update_id: UpdateId, rooms: Iterable[str] = (), users: Iterable[int] = ()
    ) -> Claim:
        """Take the update for this request: "duplicate" when it was handled already,
        "busy" while another request handles it. The rooms and people the update is
        about are read in the same round trip, kept for this request if the store is
        its view (`session`)."""
        return self.claimed(update_id, rooms, users).claim

    def claimed(
        self, update_id: UpdateId, rooms: Iterable[str] = (), users: Iterable[int] = ()
    ) -> Claimed:
        """`claim`, with a duplicate's first answer."""
        return self._run(self._claim(update_id, rooms, users))

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
        return (await self.aclaimed(update_id, rooms, users, press)).claim

    async def aclaimed(
        self,
        update_id: UpdateId,
        rooms: Iterable[str] = (),
        users: Iterable[int] = (),
        press: QueuedPress | None = None,
    ) -> Claimed:
        """`aclaim`, with a duplicate's first answer (same round trip)."""
        return await self._arun(self._claim(update_id, rooms, users, press))

    def _claim(
        self,
        update_id: UpdateId,
        rooms: Iterable[str],
        users: Iterable[int],
        press: QueuedPress | None = None,
    ) -> trips.Steps[Claimed]:
        if not self.jobs_inside:  # a cluster, or RQ on its own Redis
            return (yield from self._claim_apart(update_id, rooms, users, press))
        room_keys, user_keys = [room_key(r) for r in rooms], [user_key(u) for u in users]
        head = [update_key(update_id)]
        args: list[EncodableT] = [BUSY_MS, 2, len(room_keys)]
        script = _CLAIM
        if press is not None:
            head += _press_keys(press)
            job = queue.job_writes(press.job())
            head += commit.command_keys(job)
            args = [BUSY_MS, len(head) + 1, len(room_keys)]
            args += [*self._press_args(update_id, press), *commit.script_args(job)]
            script = _PRESS
        durable = self.durable if press is not None else None
        trip = trips.Script(script, [*head, *room_keys, *user_keys], args, durable)
        found, *values = yield trip
        claim = CLAIMS[int(found)]
        if claim == "duplicate":
            self._keep({})
            return duplicate(values[0])
        if claim == "pressed":
            self._keep(dict(zip(user_keys, map(_pairs, values), strict=True)))
        elif claim == "claimed":
            people = [_pairs(flat) for flat in values[len(room_keys) :]]
            keys = [*room_keys, *user_keys]
            self._keep(dict(zip(keys, values[: len(room_keys)] + people, strict=True)))
        else:
            self._keep({})
        return _CLAIMED[claim]

    def _claim_apart(
        self,
        update_id: UpdateId,
        rooms: Iterable[str],
        users: Iterable[int],
        press: QueuedPress | None,
    ) -> trips.Steps[Claimed]:
        """`_claim` where no script may span the update's mark, the room and RQ's queue:
        the mark first; then a press queued in the room's slot, and if it was, the mark
        set to its answer and its job queued; else the rooms and people read."""
        room_keys, user_keys = [room_key(r) for r in rooms], [user_key(u) for u in users]
        mark = update_key(update_id)
        found = yield trips.Script(_CLAIM, [mark], [BUSY_MS, 2, 0])
        if int(found[0]) != 0:
            self._keep({})
            return duplicate(found[1]) if int(found[0]) == 1 else _CLAIMED["busy"]
        claim: Claim = "claimed"
        if press is not None:
            args = self._press_args(update_id, press)
            queued = int((yield trips.Script(_PRESS_ALONE, _press_keys(press), args, self.durable)))
            if queued:
                answer = _ANSWERED if queued == 3 else _OUT_OF_DATE
                yield trips.Commands([("SET", mark, answer, "EX", self.mark_ttl(update_id))])
            if queued == 3:
                job = commit.recorder(self.jobs)
                queue.enqueue_now(job, press.job())
                yield trips.Commands(commit.as_commands(job), transaction=True, jobs=True)
                self._keep({})
                return _CLAIMED["accepted"]
            if queued == 4:  # its people are read, not its rooms
                claim, room_keys = "pressed", []
        reads = [("GET", key) for key in room_keys] + [("HGETALL", key) for key in user_keys]
        values = (yield trips.Commands(reads)) if reads else []  # type: ignore[arg-type]
        self._keep(dict(zip([*room_keys, *user_keys], values, strict=True)))
        return _CLAIMED[claim]

    def _press_args(self, update_id: UpdateId, press: QueuedPress) -> list[EncodableT]:
        """_queue_press's arguments: the press, and its mark's TTL."""
        ttl = self.mark_ttl(update_id)
        head: list[EncodableT] = [press.phase, press.user, press.action, ttl, press.member]
        return [*head, press.at, press.arg]

    def finish(self, update_id: UpdateId, answer: str | None = None) -> None:
        """The update is handled, answered with `answer` (a press's popup text, "" for
        none; None: not a press): a redelivery is a duplicate, answered the same. A
        change this request's view (`session`) committed wrote the mark with itself (no
        round trip here unless there is a popup); a command such as /help gets it here."""
        self._run(self._finish(update_id, answer))

    async def afinish(self, update_id: UpdateId, answer: str | None = None) -> None:
        """`finish` on the asyncio client."""
        await self._arun(self._finish(update_id, answer))

    def _finish(self, update_id: UpdateId, answer: str | None) -> trips.Steps[None]:
        self._keep({})
        if self.committed == update_id and not answer:  # the change's mark says no popup
            return
        marking = ("SET", update_key(update_id), mark_of(answer), "EX", self.mark_ttl(update_id))
        yield trips.Commands([marking])

    def release(self, update_id: UpdateId) -> None:
        """The update was not handled: its redelivery is."""
        self._run(self._release(update_id))

    async def arelease(self, update_id: UpdateId) -> None:
        """`release` on the asyncio client."""
        await self._arun(self._release(update_id))

    def _release(self, update_id: UpdateId) -> trips.Steps[None]:
        self._keep({})
        yield trips.Script(_RELEASE, [update_key(update_id)], [])


# KEYS[1]: an update's mark: dropped if it only says the update is being handled.
_RELEASE = f"""
if redis.call('GET', KEYS[1]) == '{BUSY}' then redis.call('DEL', KEYS[1]) end
return 0
"""


def _press_keys(press: QueuedPress) -> list[str]:
    """The keys of the room's slot that queue a press (_queue_press)."""
    return [moves_key(press.room), index_key(PENDING_PRESSES, press.room), presses_key(press.room)]


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    """A hash as HGETALL gives it from a Lua script: its fields and values in turn."""
    return dict(zip(flat[::2], flat[1::2], strict=True))
