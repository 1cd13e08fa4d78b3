"""A player's hand shown where they asked for it: "🃏 My cards" on a group's table, or
`/hand` there.

Where the platform can answer in the group with a message its sender alone sees
(`Request.answering`: Telegram's ephemeral messages), the hand is shown there, with the
table, in answer to their ask, and kept up to date as the game goes on (the outbox's
`mine:<user>` target; what is answered is kept at `answer_key` until it is). Nothing
depends on it: its delivery is not guaranteed, so the table keeps the button that shows
it again. Elsewhere the hand comes to their private chat, posted afresh; a private chat
they never opened is opened by a link first.
"""

from __future__ import annotations

from service.desk.asks import Reply
from service.desk.use import Use
from service.i18n import _
from service.infra.keys import answer_key
from service.table import targets
from service.table.outcome import Job, JobKind, Outcome
from service.table.room import Room

# What is answered waits for the outbox no longer than Telegram lets a press be answered.
ANSWER_TTL = 14


async def pressed(use: Use, room: Room) -> Reply:
    """ "🃏 My cards" pressed on the room's table."""
    return await shown(use, room, pressed=True)


async def asked(use: Use, args: tuple[str, ...]) -> Reply:
    """`/hand`: the hand at the table of the chat it was sent in, else the person's game."""
    place = use.request.place
    room = use.room_here() if not place.private else use.active_room()
    if room is None:
        return use.say(_("You are not playing a game now."))
    return await shown(use, room, pressed=False)


async def shown(use: Use, room: Room, pressed: bool) -> Reply:
    """The person's hand at `room`, shown to them alone where they asked, else in their
    private chat."""
    seat = room.seat_of(use.player)
    refusal = not_shown(room, seat)
    if refusal is not None:
        return answer(use, refusal, pressed)
    place, answering = use.request.place, use.request.answering
    if not place.private and answering is not None:
        use.store.keep_for(answer_key(room.id, use.player), answering, ANSWER_TTL)
        await commit(use, room, mine=True)
        return Reply(quiet=True)
    if not use.reachable:
        link = use.links.private(room.id)
        said = _("Open my private chat: your cards come there.")
        return Reply(popup=use.text(said), url=link if pressed else None, alert=pressed)
    await commit(use, room, mine=False)
    if place.private:
        return Reply(quiet=pressed)
    return answer(use, _("🃏 Your cards are in our private chat."), pressed)


def not_shown(room: Room, seat: int | None) -> str | None:
    """Why there is no hand to show, if there is none."""
    if seat is None:
        return _("You are not playing at this table.")
    if room.status == "lobby":
        return _("The cards are dealt when the game starts.")
    if room.status != "playing" or room.game is None:
        return _("This game is over.")
    return None


def answer(use: Use, message: str, pressed: bool) -> Reply:
    """A word to the person: a press's popup, a command's line."""
    return Reply(popup=use.text(message)) if pressed else use.say(message)


async def commit(use: Use, room: Room, mine: bool) -> None:
    """The person's hand shown afresh: in the group to them alone (`mine`: the room
    notes it, to keep it up to date there), else in their private chat."""
    user = use.player
    target = targets.mine(user, new=True) if mine else targets.hand(user, new=True)

    # Shown anew for each ask: the change's sync job, named by the room's version, would
    # be the same job for a second ask before the room changes (taken as done already).
    ask = "".join(c for c in str(use.request.mark) if c.isalnum())  # as job ids take it
    answer = Job(JobKind.SYNC, room.id, target, 0.0, tag=f"ask{ask}")

    def change(fresh: Room) -> Outcome:
        if not mine:
            return Outcome(changed=True, sync={target})
        if user not in fresh.mine:
            fresh.mine = [*fresh.mine, user]
        return Outcome(changed=True, jobs=[answer])

    await use.store.aupdate(room.id, change, use.request.mark, loaded=room)
