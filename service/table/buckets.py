"""Rooms in buckets, so that no index is one hot key and each fits a Redis Cluster.

A cluster keeps a key in the slot its hash tag (the part in `{…}`) hashes to. A room's
keys are tagged with its id (`game:{<room>}:…`), so they share one slot; its entries in
the indexes (rooms by when they are due, idle, …) must share that slot too, or no
script could change a room and its indexes at once. So the rooms come in `BUCKETS`
buckets, each one slot: new room ids are drawn until their slot is a bucket's
(`new_room_id`), and each index is one key per bucket, tagged with a string that hashes
to that very slot (`tag`). A reader of an index goes over the buckets (`every_bucket`).

Rooms made before the buckets (ids in any slot) are indexed in the bucket below their
slot: one Redis serves them as before; a cluster never held them.
"""

from __future__ import annotations

import binascii
import secrets
import string
from functools import cache

SLOTS = 16384  # Redis Cluster's hash slots
BUCKETS = 256  # one slot in every STRIDE: a room id is drawn STRIDE times on average
STRIDE = SLOTS // BUCKETS
ID_ALPHABET = string.ascii_lowercase + string.digits
ID_LENGTH = 8  # short enough for 64-byte button data


def slot_of(tag: str) -> int:
    """The cluster slot of a hash tag (CRC16/XMODEM, as Redis Cluster computes it)."""
    return binascii.crc_hqx(tag.encode(), 0) % SLOTS


def bucket_of(room_id: str) -> int:
    """The bucket a room is indexed in."""
    return slot_of(room_id) // STRIDE


def new_room_id() -> str:
    """Random letters and digits whose slot is a bucket's."""
    while True:
        room_id = "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))
        if slot_of(room_id) % STRIDE == 0:
            return room_id


@cache
def _tags() -> tuple[str, ...]:
    """For each bucket, the first number (as text) that hashes to its slot (~50 ms, once)."""
    found: list[str | None] = [None] * BUCKETS
    left, number = BUCKETS, 0
    while left:
        slot = slot_of(str(number))
        if slot % STRIDE == 0 and found[slot // STRIDE] is None:
            found[slot // STRIDE] = str(number)
            left -= 1
        number += 1
    return tuple(tag for tag in found if tag is not None)


def tag(bucket: int) -> str:
    """The hash tag of a bucket's index keys: `{<tag>}` lands in the bucket's slot."""
    return _tags()[bucket]


def every_bucket() -> range:
    return range(BUCKETS)
