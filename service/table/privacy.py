"""What is kept about a person and for how long (/privacy), and forgetting them
(/forget): their settings and statistics are deleted, their name and id are taken out of
every room kept (a bot takes their seat in a game still running; a lobby loses their
seat; their one-to-one games go), and so are the outbox's traces of their private chat.
The rooms and chats to visit come from the person's own index (`user:<id>:rooms`,
`user:<id>:chats`, see service.infra.store), so nothing scans every key."""

from __future__ import annotations

from rq.exceptions import NoSuchJobError
from rq.job import Job as RqJob

from service.infra.queue import job_id
from service.infra.settings import Settings
from service.infra.store import (
    DUE_KEY,
    IDLE_KEY,
    LIVE,
    PENDING_SYNC,
    Store,
    chat_key,
    room_key,
    text,
)
from service.table import lobby, notices
from service.table.lobby import Actor
from service.table.outcome import Job, JobKind, Outcome
from service.table.room import Room
from service.table.services import Services
from service.ui.i18n import Translator, _

DAY = 24 * 3600
ROOM_PARTS = ("msgs", "sent", "live", "blocked_notices")  # kept beside the room


def notice(settings: Settings, tr: Translator) -> str:
    """The /privacy text, with the lifetimes the settings give."""
    return tr.gettext(
        _(
            "🔒 What I keep about you, and for how long\n"
            "• Your name as Telegram shows it, your language, whether you opened this chat, "
            "and your statistics (games, wins, times the burro): until {people} days after "
            "you last play or write to me.\n"
            "• In each game you sit in: your name and seat, while it lasts; a finished game "
            "is kept {retention} days. A table nobody presses ends after {lobby} days, a "
            "game nobody moves in after {game} days.\n"
            "• Which updates I handled (their numbers, not their content): {dedupe} hours.\n"
            "Nothing else: no messages, no phone numbers. Send /forget to delete it all."
        ),
        people=settings.people_retention // DAY,
        retention=settings.retention // DAY,
        lobby=settings.lobby_idle // DAY,
        game=settings.game_idle // DAY,
        dedupe=settings.dedupe_ttl // 3600,
    )


def forget(svc: Services, user_id: int) -> None:
    """Delete what is kept about `user_id` and take them out of every room kept."""
    client = svc.store.redis
    for member in client.smembers(f"user:{user_id}:rooms"):
        forget_in_room(svc, text(member), user_id)
    for member in client.smembers(f"user:{user_id}:chats"):
        client.hdel(f"stats:chat:{text(member)}", f"burro:{user_id}")
    own = (  # their own keys, and those of their private chat (its id is theirs)
        f"user:{user_id}",
        f"user:{user_id}:rooms",
        f"user:{user_id}:chats",
        f"stats:user:{user_id}",
        f"stats:chat:{user_id}",
        f"open:user:{user_id}",
        f"open:chat:{user_id}",
        f"limit:chat:{user_id}",
        f"cooldown:rules:{user_id}:0",
        chat_key(user_id, None),
    )
    client.delete(*own)
    notices.drop_chat(client, user_id)  # replies still waiting for their private chat


def forget_in_room(svc: Services, room_id: str, user_id: int) -> None:
    store = svc.store
    room = store.load(room_id)
    if room is None:
        return
    if room.chat_id == user_id:  # their one-to-one game: it goes
        delete_room(store, room)
        return
    store.update(room_id, lambda fresh: without(fresh, user_id, svc.now()))
    drop_hand(store, room_id, user_id)


def without(room: Room, user_id: int, now: float) -> Outcome:
    """The room with `user_id` taken out: a lobby loses their seat, a running game gives
    it to a bot, a finished one keeps it under a neutral name."""
    room.blocked = [u for u in room.blocked if u != user_id]
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
    used = {s.name for s in room.seats}
    return next((n for n in lobby.BOT_NAMES if n not in used), f"Bot {len(room.seats)}")


def delete_room(store: Store, room: Room) -> None:
    """A room and everything kept for it, at once."""
    client = store.redis
    with client.pipeline() as pipe:
        pipe.delete(room_key(room.id), *(f"game:{{{room.id}}}:{part}" for part in ROOM_PARTS))
        if client.get(chat_key(room.chat_id, room.thread_id)) == room.id.encode():
            pipe.delete(chat_key(room.chat_id, room.thread_id))
        pipe.zrem(DUE_KEY, room.id)
        pipe.zrem(IDLE_KEY, room.id)
        for target in ("table", "table:new"):
            pipe.zrem(PENDING_SYNC, f"{room.id}|{target}")
        pipe.execute()


def drop_hand(store: Store, room_id: str, user_id: int) -> None:
    """The outbox's traces of the person's private hand message for a room: what it
    showed, its pending sync, its lock and its queued jobs (their ids name the person)."""
    client, target = store.redis, f"hand:{user_id}"
    with client.pipeline() as pipe:
        pipe.hdel(f"game:{{{room_id}}}:msgs", target)
        pipe.hdel(f"game:{{{room_id}}}:sent", target)
        pipe.hdel(f"game:{{{room_id}}}:live", str(user_id), f"{user_id}:turn")
        pipe.hdel(f"game:{{{room_id}}}:blocked_notices", str(user_id))
        pipe.zrem(PENDING_SYNC, f"{room_id}|{target}", f"{room_id}|{target}:new")
        pipe.delete(f"game:{{{room_id}}}:lock:{target}")
        pipe.execute()
    for arg in (target, f"{target}:new"):
        for tag in ("", "later", "again", "sweep"):
            delete_job(store, job_id(Job(JobKind.SYNC, room_id, arg, 0.0, tag=tag)))


def delete_job(store: Store, ident: str) -> None:
    try:
        job = RqJob.fetch(ident, connection=store.redis)
    except NoSuchJobError:
        return
    job.delete()
    store.redis.delete(f"rq:results:{ident}")
