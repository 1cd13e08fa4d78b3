"""A person's current prompt: the screen of theirs that their next tap or typed move
answers (a platform that reads typed moves matches them against its buttons)."""

from __future__ import annotations

from service.infra import tables
from service.services import Services
from service.table.room import LIVE, Room
from service.ui import games
from service.ui.screens import Screen


def active_room(svc: Services, player: int) -> Room | None:
    """The person's open game: their own chat's, else the latest table they sit at."""
    store = svc.store
    own = store.room_in_chat(player, None)
    if own is not None and own.status in LIVE:
        return own
    return max(tables.open_tables(store, player), key=lambda r: r.updated, default=None)


def screen_for(room: Room, player: int, svc: Services) -> Screen | None:
    """The person's current screen of a room, as the outbox draws it for them."""
    seat = room.seat_of(player)
    if seat is None:
        return None
    painter = games.painter(room, room.seats[seat].lang, svc.bot_username)
    if room.private or room.status != "playing":
        return games.room_screen(room, painter)
    return painter.hand(seat, with_table=True)


def current_prompt(svc: Services, player: int) -> tuple[Room, Screen] | None:
    """The person's active room and their screen of it."""
    room = active_room(svc, player)
    screen = None if room is None else screen_for(room, player, svc)
    return None if room is None or screen is None else (room, screen)
