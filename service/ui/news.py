"""Short messages of their own beside the screens the outbox keeps up to date: a hand's
or the game's end (in the group and in each player's chat; where every change is a
message, with the story of the hand's last moves), and a move played for a player (in
their own chat). Built at send time from the room, from public events only
(a move said to a player is their own card).
"""

from __future__ import annotations

from service.i18n import _
from service.table.room import Room
from service.ui import games
from service.ui.intents import Command, Press
from service.ui.screens import Button, Screen
from service.ui.story import hand_start

KEEP = 5  # the moves a hand's end tells before its result, as a table's story does


def news(room: Room, lang: str, bot_username: str) -> Screen | None:
    """How the last hand ended and the scores; the game's result once it is over."""
    if room.game is None:
        return None
    lines = games.painter(room, lang, bot_username).news_lines()
    return Screen("\n".join(lines)) if lines else None


def ended_since(room: Room, after: int) -> int | None:
    """Where the hand that ended after place `after` of the log ends (its last line),
    if one did and the game goes on."""
    if room.game is None or room.status != "playing":
        return None
    end = hand_start(room.log, room.game.hand_no)
    return end if end > after else None


def hand_end(
    room: Room, lang: str, bot_username: str, seat: int | None, after: int
) -> Screen | None:
    """A hand's end as a message of its own, for a chat where every change is a message
    (WhatsApp): the story of its last moves since the reader's last look (`after`), how
    it ended and the scores; the next prompt's story starts after it."""
    end = ended_since(room, after)
    teller = games.teller(room, lang, bot_username)
    told = news(room, lang, bot_username)
    if end is None or teller is None or told is None:
        return None
    result = told.text.split("\n")
    log = [line for line in room.log if line.seq <= end]
    story = [line for line in teller.story(log, after, seat, KEEP) if line not in result]
    return Screen("\n".join([*story, *([""] if story else []), *result]))


def said(room: Room, lang: str, why: str, action: str) -> Screen:
    """A move played for a player: their only card (`why` "only"), or their time ran out
    (`why` "timeout"); `action` the engine's (`play:10H`, `draw`, `pass:7S` …). Or
    (`why` "closing", `action` the phase) their chat is about to stop taking our
    messages while it is their turn: a button to keep it open."""
    painter = games.painter(room, lang)
    if why == "closing":
        keep = Button(
            painter.tr.gettext(_("▶️ Keep playing")),
            Press(room.id, room.version, Command("keep_playing")),
        )
        words = _("⏳ It is still your turn. Tap Keep playing so I may go on writing here.")
        return Screen(painter.tr.gettext(words), ((keep,),))
    verb, _sep, code = action.partition(":")
    # a card is named only for a card's move: `draw:left` names the tent's half
    card = painter.card(code) if code and verb in ("play", "pass") else ""
    if verb == "pass" and card:
        text = _("⏰ Your time ran out: {card} was passed on for you.")
    elif why == "timeout" and card:
        text = _("⏰ Your time ran out: {card} was played for you.")
    elif why == "timeout":
        text = _("⏰ Your time ran out: your turn was played for you.")
    elif card:
        text = _("🤖 {card} was your only card to play: it was played for you.")
    else:
        text = _("🤖 You had only one move: it was made for you.")
    return Screen(painter.tr.gettext(text, card=card))
