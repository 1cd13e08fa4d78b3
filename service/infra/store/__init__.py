"""Rooms in Redis, changed by compare-and-set: the only state the service has.

The keys, and how long each lives, are listed in service.infra.keys. Every key expires:
a room and its chat's pointer `live_ttl` after its last change (the sweeper ends an
idle room well before: workers.expiry), or `retention` after it ended; what is kept
about a person `people_ttl` after they last played or wrote. The sorted sets are the
exception: one key each, their members removed as rooms end.

`update()` runs a change on the room as read and commits the room, the update's dedupe
mark, the chat index and the jobs in one Lua compare-and-set (service.infra.commit): a
concurrent writer makes it start again from a fresh read, so two presses at once apply
exactly one move. A press's room is read with its claim (`claim`) and kept by the
request's view of the store (`session`), so a press applied in `serve` costs two round
trips.

A move's press that its phase's `moves` hash lists is not applied in `serve` at all: its
claim checks it against that hash and puts it on the room's `presses` list, with a job
for a worker, in the same script (`aclaim` with a press), one round trip, and the press
is answered at once. Every change (`update`, whoever makes it: that job, a timer, a
bot, another press) applies the room's queued presses first, and its commit compares
the list too and empties it, so no change ever overtakes an answered press. Every
commit writes the `moves` hash anew from the room.

The store is one class, `Store`, made of a part per thing it holds: rooms (load,
create, update: .rooms), what a commit writes besides the room (.writes), the
statistics (.statistics), people (.people), and each update's claim and dedupe mark
(.claims); .base holds what they share.
"""

from __future__ import annotations

from service.infra.keys import (
    chat_key,
    live_key,
    moves_key,
    presses_key,
    room_key,
    update_key,
    user_key,
)
from service.infra.store.base import (
    Conflict,
    UpdateId,
    decode_room,
    encode_room,
    room_json,
    text,
)
from service.infra.store.claims import CLAIMS, Claim, Claimed, Claims
from service.infra.store.rooms import Rooms

__all__ = [
    "CLAIMS",
    "Claim",
    "Claimed",
    "Conflict",
    "Store",
    "UpdateId",
    "chat_key",
    "decode_room",
    "encode_room",
    "live_key",
    "moves_key",
    "presses_key",
    "room_json",
    "room_key",
    "text",
    "update_key",
    "user_key",
]


class Store(Rooms, Claims):
    """Rooms, people, statistics and each update's claim, in one Redis."""
