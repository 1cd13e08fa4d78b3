"""What is kept about a person and for how long (the privacy notice, the same on every
platform but for the platform's name and own data), and what a room becomes when they
are forgotten: a bot takes their seat in a game still running, a lobby loses their
seat, a finished game keeps it under a neutral name. Deleting their keys in Redis is
`service.infra.forget`."""

from __future__ import annotations

from service.i18n import Translator, _
from service.settings import Settings
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Job, JobKind, Outcome
from service.table.room import LIVE, Room

DAY = 24 * 3600
ROOM_PARTS = ("msgs", "sent", "live", "blocked_notices", "moves", "presses")  # beside the room


def notice(settings: Settings, tr: Translator, app: str, forget: str, kept: str = "") -> str:
    """The privacy text, with the lifetimes the settings give: `app` names the platform,
    `forget` how to ask to be forgotten on it, `kept` its line on what it keeps beside."""
    person = tr.gettext(
        _(
            "🔒 What I keep about you, and for how long\n"
            "• Your name as {app} shows it, your language, whether you opened this chat, "
            "and your statistics (games, wins, times the burro): until {people} days after "
            "you last play or write to me."
        ),
        app=app,
        people=settings.people_retention // DAY,
    )
    games = tr.gettext(
        _(
            "• In each game you sit in: your name and seat, while it lasts; a finished game "
            "is kept {retention} days. A table nobody presses ends after {lobby} days, a "
            "game nobody moves in after {game} days.\n"
            "• Which updates I handled (their numbers, not their content): {dedupe} hours."
        ),
        retention=settings.retention // DAY,
        lobby=settings.lobby_idle // DAY,
        game=settings.game_idle // DAY,
        dedupe=settings.dedupe_ttl // 3600,
    )
    rest = tr.gettext(
        _("Nothing else: none of your messages. Send {forget} to delete it all."), forget=forget
    )
    return "\n".join(line for line in (person, kept, games, rest) if line)


def without(room: Room, user_id: int, now: float) -> Outcome:
    """The room with `user_id` taken out: a lobby loses their seat, a running game gives
    it to a bot, a finished one keeps it under a neutral name."""
    room.blocked = [u for u in room.blocked if u != user_id]
    room.mine = [u for u in room.mine if u != user_id]
    seat = room.seat_of(user_id)
    if room.status == "lobby" and seat is not None:
        return lobby.leave(room, Actor(user_id, "", "en"))
    if room.creator == user_id:
        room.creator = 0  # the group's admins still manage the table
    if seat is None:
        return Outcome(changed=True)
    info = room.seats[seat]
    info.user_id = None
    if room.status not in LIVE:
        info.name = f"#{seat + 1}"
        return Outcome(changed=True)
    info.bot = "heuristic"
    info.name = bot_name(room)
    return Outcome(changed=True, sync={"table"}, jobs=bot_jobs(room, seat, now))


def bot_jobs(room: Room, seat: int, now: float) -> list[Job]:
    """The job of the bot now in `seat`, if its action in this phase is still to come."""
    if seat not in room.bots_waiting():
        return []
    return [Job(JobKind.BOT_TURN, room.id, f"{room.phase_version}:{seat}", now)]


def bot_name(room: Room) -> str:
    return lobby.bot_name(room)
