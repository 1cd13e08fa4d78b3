"""Opening a table, for every platform's handlers: a one-to-one game against bots in a
person's private chat, a family's table, and a rematch of a finished game."""

from __future__ import annotations

from service.i18n import _
from service.services import Services
from service.table import caps, lobby
from service.table import games as table_games
from service.table.lobby import Actor
from service.table.outcome import Outcome, Popup
from service.table.room import LIVE, Room
from service.table.targets import TABLE_NEW


def against_bots(
    svc: Services,
    chat_id: int,
    actor: Actor,
    preset: str,
    update_id: int | str | None,
    bots: int = 1,
    at_once: bool = False,
) -> Popup | None:
    """A table for `actor` and `bots` bots (as many as the game seats) in their private
    chat `chat_id`: a lobby, or, `at_once`, the game dealt (their first message from it
    is their turn); or their open game there posted again. A refusal (over a cap, or a
    game that cannot be dealt) as a popup, else None."""
    opened = open_table(svc, chat_id, actor, preset, update_id, bots, at_once)
    return opened if isinstance(opened, Popup) else None


def family_table(
    svc: Services, chat_id: int, actor: Actor, preset: str, update_id: int | str | None
) -> Room | Popup:
    """A lobby for a family's table opened from `actor`'s private chat `chat_id` (on a
    platform with no groups of ours: each player plays in their own chat); the room, or
    their open one there, or a refusal (over a cap)."""
    return open_table(svc, chat_id, actor, preset, update_id, bots=None)


def game_against_bots(svc: Services, chat_id: int) -> Room | None:
    """The game against bots open in a person's private chat, if any."""
    room = svc.store.room_in_chat(chat_id, None)
    return room if room is not None and room.private and room.status in LIVE else None


def end_for_family(svc: Services, room: Room, actor: Actor) -> bool:
    """End a person's game against bots (or its lobby) for the family table that takes
    its chat; whether it ended (it is told so in its own message, as any cancelled
    game: its buttons go)."""
    result = svc.store.update(room.id, lambda r: lobby.cancel(r, actor, svc.now()))
    return result is not None and result[1].changed


def open_table(
    svc: Services,
    chat_id: int,
    actor: Actor,
    preset: str,
    update_id: int | str | None,
    bots: int | None,
    at_once: bool = False,
) -> Room | Popup:
    """A room in `actor`'s own chat: against `bots` bots (private), or a family's lobby
    (`bots` None); or the chat's open room posted again; or a refusal."""
    existing = svc.store.room_in_chat(chat_id, None)
    if existing is not None and existing.status in ("lobby", "playing"):
        svc.store.update(existing.id, repost, update_id)
        return existing
    refusal = caps.refusal(svc.store, svc.settings, chat_id, actor.user_id)
    if refusal is not None:
        return refusal
    private = bots is not None
    settings = table_games.new_settings(preset, svc.settings, group=not private)
    zone = svc.store.user(actor.user_id).get("zone")  # kept for a WhatsApp person
    if zone:  # their own chat's table tells its deadlines in their time
        settings.timezone = zone
    room = lobby.create_room(chat_id, None, actor, svc.now(), private=private, settings=settings)
    for _seat in range(min(bots or 0, lobby.seat_limit(room) - 1)):
        lobby.add_bot(room, actor)
    outcome = Outcome(changed=True, sync={"table"})
    if at_once:
        outcome = lobby.start(room, actor, svc.now(), svc.settings.bot_delay)
        if not outcome.changed and outcome.popup is not None:  # cannot be dealt
            return outcome.popup
    svc.store.create(room, outcome, update_id)
    return room


def repost(room: Room) -> Outcome:
    """Post the table again (a fresh message at the bottom of the chat)."""
    return Outcome(changed=True, sync={TABLE_NEW})


def rematch(
    svc: Services, room: Room, actor: Actor, update_id: int | str | None, anew: bool = True
) -> Outcome:
    """A new game of a finished one's table, in its chat (caps permitting): changed,
    with a word for a platform that shows it beside the chat (a popup), or a refusal.
    `anew`: the new table is posted as a fresh message at once; else it comes as the
    chat's next update of it (where every message is new anyway, a one-to-one game's
    first message is then the person's first turn, not a table of bots to move)."""
    popup = caps.refusal(svc.store, svc.settings, room.chat_id, actor.user_id)
    if popup is not None:
        return Outcome(popup=popup)
    made = lobby.rematch(room, actor, svc.now(), svc.settings.bot_delay, anew)
    if isinstance(made, Outcome):
        return made
    fresh, outcome = made
    if svc.store.create(fresh, outcome, update_id):
        return Outcome(changed=True).say(_("A new game!"))
    return Outcome().say(_("A game is already open here."))
