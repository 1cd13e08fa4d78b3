"""The tables a person sits at now, for the screens that must say which one they show.

A person who sits at two tables at once (a family's and a one-to-one game, two groups)
reads both in one private chat: each screen then names its table
(`service.ui.screens.TablePainter.named`). Found from the people index (the rooms they
sat in lately) and the open rooms (`IDLE_KEY`, where every open room is): only the open
ones are loaded, to see that the person still sits there.
"""

from __future__ import annotations

from service.infra.keys import IDLE_KEY, index_key, user_rooms_key
from service.infra.store import Store, text
from service.table.room import LIVE, Room


def open_tables(store: Store, player: int, but: str | None = None) -> list[Room]:
    """The open rooms (a lobby, a game being played) where the person sits, `but` one."""
    ids = sorted(text(m) for m in store.redis.smembers(user_rooms_key(player)) if text(m) != but)
    if not ids:
        return []
    with store.redis.pipeline(transaction=False) as pipe:
        for room_id in ids:  # each in its own bucket
            pipe.zscore(index_key(IDLE_KEY, room_id), room_id)
        scores = pipe.execute()
    rooms = [store.load(room_id) for room_id, at in zip(ids, scores, strict=True) if at]
    return [
        r for r in rooms if r is not None and r.status in LIVE and r.seat_of(player) is not None
    ]


def elsewhere(store: Store, player: int, room_id: str) -> bool:
    """Whether the person sits at an open table other than `room_id` too."""
    return bool(open_tables(store, player, but=room_id))
