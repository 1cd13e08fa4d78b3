"""A player's tip: the move the seed texts' tips suggest now, and why, in one sentence
(issue #34). Asked by the "💡 Tip" button beside a hand (a popup only the presser
sees), or in words (`/tip`, `pista`, `dica`, `saran`: a line in their own chat). The
game works it out from the player's own view (`Game.tip`); a table offers tips when it
asks for them, and always when bots sit at it (`Room.tips_shown`)."""

from __future__ import annotations

from service.desk.asks import Line, Reply, TipAsk
from service.desk.use import Use
from service.i18n import _
from service.table.room import Room
from service.ui import games


async def asked(use: Use, ask: TipAsk) -> Reply:
    """The tip asked in words: at the table of the chat it was asked in, else the
    person's game."""
    here = None if use.request.place.private else use.room_here()
    room = here or use.active_room()
    if room is None:
        return use.say(_("You are not playing a game now."))
    return told(use, room, pressed=False)


def told(use: Use, room: Room, pressed: bool) -> Reply:
    """The person's tip at `room`: a press's popup, or a line in their own chat (a tip
    tells what their cards are: never in a group)."""
    said = tip_for(use, room)
    if pressed:
        return Reply(popup=said, alert=True)
    if use.request.place.private:
        return Reply.say(said)
    if not use.reachable:
        return Reply(lines=(Line(use.text(_("Open my private chat first: the tip comes there."))),))
    return Reply(lines=(Line(said),), private=True)


def tip_for(use: Use, room: Room) -> str:
    """The tip's sentence, or why there is none, in the person's language."""
    seat = room.seat_of(use.player)
    if seat is None:
        return use.text(_("You are not playing at this table."))
    if room.status != "playing" or room.game is None:
        return use.text(_("There is no game in play at this table."))
    if not room.tips_shown():
        return use.text(_("Tips are off at this table: its opener can turn them on in Settings."))
    said = games.painter(room, use.actor.lang).tip_text(seat)
    return said or use.text(_("No tip now: you have no move to choose."))
