"""The tables a person sits at now, for the screens that must say which one they show.

A person who sits at two tables at once (a family's and a one-to-one game, two groups)
reads both in one private chat: each screen then names its table
(`service.ui.screens.TablePainter.named`). Found from the person's open rooms
(`user_seated_key`, kept by each commit that seats or ends) and the open rooms
(`IDLE_KEY`, where every open room is): only the open ones are loaded, to see that the
person still sits there. A room found closed leaves the person's set, so a screen's
look costs the tables open now, not every game played in a year.

A person whose set was never made (their rooms opened before it was kept) has it made
from the people index (every room they sat in lately) at their first look.
"""

from __future__ import annotations

from collections.abc import Iterable

from service.infra.keys import (
    IDLE_KEY,
    SEATED_BUILT,
    index_key,
    user_rooms_key,
    user_seated_key,
)
from service.infra.store import Store, text
from service.table.room import LIVE, Room


def seated_ids(members: Iterable[bytes | str]) -> frozenset[str] | None:
    """The rooms of a person's open-rooms set as read (SMEMBERS), None if it was never
    made."""
    ids = frozenset(text(m) for m in members)
    return ids - {SEATED_BUILT} if SEATED_BUILT in ids else None


def open_ids(store: Store, player: int, but: str | None = None) -> list[str]:
    """The rooms of the person's open-rooms set still open, `but` one (the set made now
    if it never was); they may have left one since."""
    ids = seated_ids(store.redis.smembers(user_seated_key(player)))
    if ids is None:
        return [room_id for room_id in made(store, player) if room_id != but]
    return still_open(store, player, ids - {but})


def made(store: Store, player: int) -> list[str]:
    """Make the person's open-rooms set from the people index: the rooms there still
    open (a commit meanwhile only adds one open or drops one over; one that closes
    between this look and the write is dropped at a later look)."""
    every = [text(m) for m in store.redis.smembers(user_rooms_key(player))]
    ids = still_open(store, player, every, prune=False)
    key = user_seated_key(player)
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.sadd(key, SEATED_BUILT, *ids)
        pipe.expire(key, store.live_ttl)
        pipe.execute()
    return ids


def still_open(store: Store, player: int, ids: Iterable[str], prune: bool = True) -> list[str]:
    """Of these rooms, those still open (in `IDLE_KEY`); the others leave the person's
    open-rooms set (`prune`), as a room never opens again."""
    ordered = sorted(ids)
    if not ordered:
        return []
    with store.redis.pipeline(transaction=False) as pipe:
        for room_id in ordered:  # each in its own bucket
            pipe.zscore(index_key(IDLE_KEY, room_id), room_id)
        scores = pipe.execute()
    closed = [room_id for room_id, at in zip(ordered, scores, strict=True) if not at]
    if prune and closed:
        store.redis.srem(user_seated_key(player), *closed)
    return [room_id for room_id, at in zip(ordered, scores, strict=True) if at]


def open_tables(store: Store, player: int, but: str | None = None) -> list[Room]:
    """The open rooms (a lobby, a game being played) where the person sits, `but` one."""
    rooms = [store.load(room_id) for room_id in open_ids(store, player, but)]
    return [
        r for r in rooms if r is not None and r.status in LIVE and r.seat_of(player) is not None
    ]


def elsewhere(store: Store, player: int, room_id: str) -> bool:
    """Whether the person sits at an open table other than `room_id` too."""
    return bool(open_tables(store, player, but=room_id))
