"""The group's table calling the players whose turn it is, by name, so that it tells
them: those who play from the group alone (they never opened the bot's private chat,
where a turn would otherwise come). The names are mentions (service.ui.spans): on
Telegram the message notifies them, whatever the group's own notifications."""

from __future__ import annotations

from service.i18n import Translator
from service.table.names import shown
from service.table.room import Room
from service.ui import spans
from service.ui.screens import Screen


def calling(screen: Screen, room: Room, users: list[int], lang: str) -> Screen:
    """The table with a last line naming `users`: their turn, and where their cards are."""
    names = [mention(room, user) for user in users]
    if not names:
        return screen
    tr = Translator(lang)
    line = tr.ngettext(
        "👉 {names}, your turn: tap “🃏 My cards” to see your cards and play.",
        "👉 {names}, your turn: tap “🃏 My cards” to see your cards and play.",
        len(names),
        names=", ".join(names),
    )
    return Screen(f"{screen.text}\n\n{line}", screen.rows)


def mention(room: Room, user: int) -> str:
    seat = room.seat_of(user)
    name = shown(room.seats[seat].name) if seat is not None else str(user)
    return spans.mention(user, name)
