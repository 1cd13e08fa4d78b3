"""Opening a table, for every platform's handlers: a one-to-one game against bots in a
person's private chat, and a rematch of a finished game."""

from __future__ import annotations

from service.i18n import _
from service.services import Services
from service.table import caps, family, lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome, Popup
from service.table.room import Room, RoomSettings
from service.table.targets import TABLE_NEW


def against_bots(
    svc: Services, chat_id: int, actor: Actor, preset: str, update_id: int | str | None
) -> Popup | None:
    """A lobby for `actor` and a bot in their private chat `chat_id`, or their open game
    there posted again at the bottom; a refusal (over a cap) as a popup, else None."""
    opened = open_table(svc, chat_id, actor, preset, update_id, private=True)
    return opened if isinstance(opened, Popup) else None


def family_table(
    svc: Services, chat_id: int, actor: Actor, preset: str, update_id: int | str | None
) -> Room | Popup:
    """A lobby for a family's table opened from `actor`'s private chat `chat_id` (on a
    platform with no groups of ours: each player plays in their own chat); the room, or
    their open one there, or a refusal (over a cap)."""
    return open_table(svc, chat_id, actor, preset, update_id, private=False)


def open_table(
    svc: Services,
    chat_id: int,
    actor: Actor,
    preset: str,
    update_id: int | str | None,
    private: bool,
) -> Room | Popup:
    """A lobby in `actor`'s own chat (against bots, one seated, if `private`), or the
    chat's open room posted again; a refusal over a cap."""
    existing = svc.store.room_in_chat(chat_id, None)
    if existing is not None and existing.status in ("lobby", "playing"):
        svc.store.update(existing.id, repost, update_id)
        return existing
    refusal = caps.refusal(svc.store, svc.settings, chat_id, actor.user_id)
    if refusal is not None:
        return refusal
    settings = RoomSettings(
        preset=preset,
        options=family.initial_options(preset, svc.settings, group=not private),
        turn_timeout=svc.settings.turn_timeout,
        reminder_after=svc.settings.reminder_after,
    )
    room = lobby.create_room(chat_id, None, actor, svc.now(), private=private, settings=settings)
    if private:
        lobby.add_bot(room, actor)
    svc.store.create(room, Outcome(changed=True, sync={"table"}), update_id)
    return room


def repost(room: Room) -> Outcome:
    """Post the table again (a fresh message at the bottom of the chat)."""
    return Outcome(changed=True, sync={TABLE_NEW})


def rematch(svc: Services, room: Room, actor: Actor, update_id: int | str | None) -> Outcome:
    """A new game of a finished one's table, in its chat (caps permitting)."""
    popup = caps.refusal(svc.store, svc.settings, room.chat_id, actor.user_id)
    if popup is not None:
        return Outcome(popup=popup)
    made = lobby.rematch(room, actor, svc.now(), svc.settings.bot_delay)
    if isinstance(made, Outcome):
        return made
    fresh, outcome = made
    if svc.store.create(fresh, outcome, update_id):
        return Outcome().say(_("A new game!"))
    return Outcome().say(_("A game is already open here."))
