"""Caps on open rooms (lobbies and games): so many per chat (its forum topics) and so
many opened by one person; a new room over a cap is refused with a short message."""

from __future__ import annotations

from service.table.outcome import Popup
from service.table.services import Services
from service.ui.i18n import _


def refusal(svc: Services, chat_id: int, user_id: int) -> Popup | None:
    """Why `user_id` may not open another room in `chat_id` now, or None."""
    settings, store = svc.settings, svc.store
    if store.open_rooms(f"open:chat:{chat_id}") >= settings.rooms_per_chat:
        return Popup(
            _("This chat has the most open games it may have ({n}). Finish or /cancel one first."),
            (("n", settings.rooms_per_chat),),
        )
    if store.open_rooms(f"open:user:{user_id}", user_id) >= settings.rooms_per_user:
        return Popup(
            _("You opened the most open games one may have ({n}). Finish or /cancel one first."),
            (("n", settings.rooms_per_user),),
        )
    return None
