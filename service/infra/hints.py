"""Which newcomer's hints a person is still to be shown (service.ui.hints), kept in their
`user:<id>:hints` hash as long as what else we keep about them (`people_ttl`).

A hint is met the first time it is shown: the hash then keeps it with the room and
phase it came in (`stamp`), and it is shown on every screen of theirs painted in that
phase (a hand is edited as the others choose, and a lost edit is painted again) and
never after; one hint a screen. One round trip per hand painted with a hint due; none
where nothing is due, nor where every hint due was met in another phase as far as this
process knows (`StoreBase.hints_met`, learned from that round trip's answers and kept
an hour: a person forgotten meanwhile meets them again after it).

The same hash keeps the presses a game's table explains once instead of playing them
(`explained_first`: a ¡Burro! without four of a kind, a first fake call): the first
such press of a person is answered with what it does and risks; the next one acts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from service.infra import trips
from service.infra.keys import user_hints_key
from service.infra.store.base import StoreBase, text
from service.table.games import table_of
from service.table.outcome import Outcome
from service.table.room import Room
from service.ui.hints import Hinted

TOLD = "told"  # an explained press's mark (it belongs to no phase)


@runtime_checkable
class Explaining(Protocol):
    """A game's table that explains some presses once instead of playing them."""

    def explains(self, room: Room, seat: int, action: str) -> tuple[str, Outcome] | None:
        """The name to remember it under and the answer, or None to play it."""
        ...


def stamp(room: Room) -> str:
    """The phase a hint is first shown in: the room's and its phase's."""
    return f"{room.id}:{room.phase_version}"


MET_FOR = 3600  # seconds this process trusts what it learned of a person's met hints
MET_PEOPLE = 100_000  # people it keeps that for at most (then it starts again)

# The first of the names (ARGV[3..]) shown in this phase (ARGV[1]) or never: it is then
# marked as shown in this phase; the hash lives ARGV[2] seconds more. Returns it ('' if
# none), then each name before it with the other phase it was met in.
_TAKE = """
local found = ''
local met = {}
for i = 3, #ARGV do
  local seen = redis.call('HGET', KEYS[1], ARGV[i])
  if seen == ARGV[1] then found = ARGV[i] break end
  if not seen then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[1])
    found = ARGV[i]
    break
  end
  met[#met + 1] = ARGV[i]
  met[#met + 1] = seen
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return {found, unpack(met)}
"""


def take(store: StoreBase, player: int, due: Sequence[str], now: str) -> frozenset[str]:
    """Of the hints `due` on the person's screen in phase `now` (most pressing first),
    the one to show: the first shown in this very phase, else the first never shown
    (now marked as shown in this phase); none if they have met every one."""
    if not due:
        return frozenset()
    found, *met = trips.evaluate(
        store.redis, _TAKE, [user_hints_key(player)], now, store.people_ttl, *due
    )
    learn(store, player, {text(n): text(p) for n, p in zip(met[::2], met[1::2], strict=True)})
    return frozenset({text(found)}) if found else frozenset()


def met_elsewhere(store: StoreBase, player: int, now: str) -> frozenset[str]:
    """The hints the person met in a phase other than `now` (never shown again), as far
    as this process knows."""
    return frozenset(name for name, phase in known(store, player).items() if phase != now)


def known(store: StoreBase, player: int) -> dict[str, str]:
    """The phase of each hint this process learned the person met, while it trusts it."""
    until, met = store.hints_met.get(player, (0.0, {}))
    return met if until > store.clock() else {}


def learn(store: StoreBase, player: int, met: dict[str, str]) -> None:
    """Remember the phases the person met these hints in (a hint's never changes)."""
    if not met:
        return
    if len(store.hints_met) >= MET_PEOPLE:
        store.hints_met.clear()
    store.hints_met[player] = (store.clock() + MET_FOR, {**known(store, player), **met})


def give(store: StoreBase, room: Room, painter: object, reader: int | None) -> None:
    """Give a painter (that tells hints) the hints its `reader`'s screen is to show; a
    screen for nobody in particular (a group's table) gets none."""
    seat = None if reader is None else room.seat_of(reader)
    if reader is None or seat is None or not isinstance(painter, Hinted):
        return
    now = stamp(room)
    due = painter.hints_due(seat, met_elsewhere(store, reader, now))
    painter.shown_hints = take(store, reader, due, now)


def explained_first(store: StoreBase, room: Room, player: int, action: str) -> Outcome | None:
    """The answer that explains the person's press of `action` instead of playing it, if
    their table explains such a press and they never had it explained; now they have."""
    seat = room.seat_of(player)
    table = table_of(room.settings.preset)
    if seat is None or not isinstance(table, Explaining):
        return None
    found = table.explains(room, seat, action)
    if found is None:
        return None
    name, answer = found
    key = user_hints_key(player)
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.hsetnx(key, name, TOLD)
        pipe.expire(key, store.people_ttl)
        first, _expiring = pipe.execute()
    return answer if first else None
