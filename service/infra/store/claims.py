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

from service.infra import commit, trips
from service.infra.keys import (
    PENDING_PRESSES,
    busy_key,
    moves_key,
    presses_key,
    room_key,
    update_key,
    user_key,
)
from service.infra.queue import enqueue_now
from service.infra.store.base import StoreBase, UpdateId, text
from service.table.outcome import QueuedPress

BUSY_MS = 30_000  # an update's claim while it is handled (longer than serve's grace)
MAX_ANSWER = 300  # characters of an answer kept (a popup of 200 units, or a link)
_NOT_KEPT, _ANSWERED, _OUT_OF_DATE = "1", "=", "!"  # a mark's value (the docstring)

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


# KEYS: the update's mark, its busy mark, then (ARGV[2] on) the rooms and people to read
# if claimed (ARGV[3]: how many rooms). The answer: the claim (an index of CLAIMS), then
# for a duplicate its mark, else each room's bytes (false: none) and each person's hash
# as its field, value list.
_CLAIM_FIRST = """
local mark = redis.call('GET', KEYS[1])
if mark then return {1, mark} end
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
# mark in KEYS[4], the job's writes from ARGV[11]) and the update marked handled, with
# its answer: none, or out of date if the presser's move is queued already.
# ARGV[4..10]: the phase, the user, the action, the mark's TTL, the press's pending
# member and its score, the press as the list keeps it.
_PRESS = (
    _CLAIM_FIRST
    + f"""
local known = redis.call('HMGET', KEYS[3], 'phase', ARGV[5])
local lines = known[2] and '\\n' .. known[2] .. '\\n'
local listed = lines and string.find(lines, '\\n' .. ARGV[6] .. '\\n', 1, true)
if known[1] ~= ARGV[4] or not (known[2] == '' or listed) then return reads(0, first) end
redis.call('DEL', KEYS[2])
local answer = known[2] == '' and '{_OUT_OF_DATE}' or '{_ANSWERED}'
redis.call('SET', KEYS[1], answer, 'EX', ARGV[7])
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
        room_keys, user_keys = [room_key(r) for r in rooms], [user_key(u) for u in users]
        head = [update_key(update_id), busy_key(update_id)]
        args: list[EncodableT] = [BUSY_MS, 3, len(room_keys)]
        script = _CLAIM
        if press is not None:
            head += [moves_key(press.room), PENDING_PRESSES, presses_key(press.room)]
            args = [BUSY_MS, 6, len(room_keys), *self._press_args(update_id, press)]
            script = _PRESS
        found, *values = yield trips.Script(script, [*head, *room_keys, *user_keys], args)
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

    def _press_args(self, update_id: UpdateId, press: QueuedPress) -> list[EncodableT]:
        """_PRESS's arguments after the claim's: the press, and its job's writes."""
        writes = commit.recorder(self.redis)
        enqueue_now(writes, press.job())
        member = press.member
        ttl = self.mark_ttl(update_id)
        head: list[EncodableT] = [press.phase, press.user, press.action, ttl, member, press.at]
        return [*head, press.arg, *commit.as_args(writes)]

    def finish(self, update_id: UpdateId, answer: str | None = None) -> None:
        """The update is handled, answered with `answer` (a press's popup text, "" for
        none; None: not a press): a redelivery is a duplicate, answered the same. A
        change this request's view (`session`) committed wrote the mark with itself (no
        round trip here unless there is a popup); a command such as /help gets it here."""
        trips.run(self.redis, self._finish(update_id, answer))

    async def afinish(self, update_id: UpdateId, answer: str | None = None) -> None:
        """`finish` on the asyncio client."""
        await self._arun(self._finish(update_id, answer))

    def _finish(self, update_id: UpdateId, answer: str | None) -> trips.Steps[None]:
        self._keep({})
        if self.committed == update_id and not answer:  # the change's mark says no popup
            return
        marking = ("SET", update_key(update_id), mark_of(answer), "EX", self.mark_ttl(update_id))
        yield trips.Commands([marking, ("DEL", busy_key(update_id))], True)

    def release(self, update_id: UpdateId) -> None:
        """The update was not handled: its redelivery is."""
        trips.run(self.redis, self._release(update_id))

    async def arelease(self, update_id: UpdateId) -> None:
        """`release` on the asyncio client."""
        await self._arun(self._release(update_id))

    def _release(self, update_id: UpdateId) -> trips.Steps[None]:
        self._keep({})
        yield trips.Commands([("DEL", busy_key(update_id))])


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    """A hash as HGETALL gives it from a Lua script: its fields and values in turn."""
    return dict(zip(flat[::2], flat[1::2], strict=True))
