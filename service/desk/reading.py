"""The whole story of a hand, read on demand: where a screen folded its story ("… 9
earlier moves"), the reader asks for all of it (a "📜 Story" button, `/story`, or a word
such as `historia`) and is answered in their own chat alone, in their language: every
line since the hand was dealt, a seat's own lines (its cards drawn, received) only to
that seat, split into as many messages as the platforms' limits need."""

from __future__ import annotations

from service.desk.asks import Line, Reply, StoryAsk
from service.desk.use import Use
from service.i18n import _
from service.table.room import Room
from service.ui import games
from service.ui.story import pages

# A message's text as Telegram and WhatsApp both take it, in UTF-16 units.
MESSAGE_LIMIT = 4096


async def asked(use: Use, ask: StoryAsk) -> Reply:
    """The story asked in words: of the room named, else of the person's active game."""
    room = use.store.load(ask.room) if ask.room else use.active_room()
    if room is None or room.game is None:
        return use.say(_("You are not playing a game now."))
    return told(use, room, pressed=False)


def told(use: Use, room: Room, pressed: bool) -> Reply:
    """The hand's whole story for the person asking: their seat's lines if they sit at
    the table, else the public ones (a group's table shows those to everyone). Asked in
    a group, it goes to their private chat; one they never opened is opened first."""
    if room.game is None:
        return Reply(popup=use.text(_("The game has not started yet.")), alert=pressed)
    place = use.request.place
    if not place.private and not use.reachable:
        link = use.links.private(room.id)
        said = _("Open my private chat first: the story comes there.")
        return Reply(popup=use.text(said), url=link if pressed else None, alert=pressed)
    teller = games.teller(room, use.actor.lang, use.svc.bot_username)
    if teller is None:
        return Reply(popup=use.text(_("This game tells no story.")), alert=pressed)
    head = use.text(_("📜 The story of hand {n}"), n=teller.hand_no)
    lines = teller.whole(room.log, room.seat_of(use.player))
    lines = lines or [use.text(_("Nothing has happened in this hand yet."))]
    texts = pages([head, *lines], MESSAGE_LIMIT)
    told = tuple(Line(text) for text in texts)
    if place.private:
        return Reply(lines=told, private=True, quiet=pressed)
    sent = use.text(_("📜 The story is in our private chat."))
    return Reply(popup=sent if pressed else None, lines=told, private=True)
