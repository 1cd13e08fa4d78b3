"""Caps on open rooms (lobbies and games): so many per chat (its forum topics) and so
many opened by one person; a new room over a cap is refused with a short message."""

from __future__ import annotations

from typing import Protocol

from service.i18n import _
from service.settings import Settings
from service.table.outcome import Popup


class OpenRooms(Protocol):
    """The room store's counts of open rooms (the port caps need)."""

    def open_in_chat(self, chat_id: int) -> int: ...

    def opened_by(self, user_id: int) -> int: ...


def refusal(store: OpenRooms, settings: Settings, chat_id: int, user_id: int) -> Popup | None:
    """Why `user_id` may not open another room in `chat_id` now, or None."""
    if store.open_in_chat(chat_id) >= settings.rooms_per_chat:
        return Popup(
            _("This chat has the most open games it may have ({n}). Finish or /cancel one first."),
            (("n", settings.rooms_per_chat),),
        )
    if store.opened_by(user_id) >= settings.rooms_per_user:
        return Popup(
            _("You opened the most open games one may have ({n}). Finish or /cancel one first."),
            (("n", settings.rooms_per_user),),
        )
    return None
