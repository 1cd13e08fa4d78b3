"""The outbox: renders a room's chat messages at send time and sends or edits them.

A target is `table` (the group's table, or the private game's one message), `hand:<user>`
(a player's hand in their private chat), `mine:<user>` (their hand in the group, shown to
them alone: `show_mine`) or `nudge` (a turn reminder in the group, with the table's way
to the cards of those it names who play from the group: `nudge_screen`); a `:new`
suffix posts a fresh message instead of editing. What was last sent is kept per target
(its digest), so a repeated job sends nothing; a re-post or nudge is sent only while
its request is still marked pending, so a repeated one does not post twice.
The chat platform (`service.platforms.base.Platform`, found for the room's chat in
`service.platforms.registry`; Telegram's is service.platforms.telegram.delivery) renders
the screen, sends or edits the message and classifies a refusal; its send budget is
shared by all processes, and a spent budget or a "retry" refusal reschedules the job
instead of sleeping.

Being told: an edit notifies nobody, a new message does. So a player's turn comes as a
new message (the old one deleted: one live hand message) unless they are in live play,
having acted or been prompted within `live_window` seconds; the group's table is posted
anew at the bottom once the room's own later messages pushed it up, and when the turn of
a player who plays from the group (their private chat refused us) comes after a pause:
naming them so that it tells them (`group_calls`). One-off posts, sent
once per request: `news` / `news:<user>` (a hand's or the game's end, in the group and
in each player's chat) and `said:<user>:<why>:<action>` (a move played for a player,
said silently in their chat): see service.ui.news.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from service.i18n import Translator
from service.infra import chats, hints, logs, queue, tables, trips
from service.infra.keys import (
    BOT_USERNAME,
    LOOK_TEXT,
    PENDING_SYNC,
    USER_LOOK,
    answer_key,
    index_key,
    lock_key,
    msgs_key,
    sent_key,
    user_key,
    user_seated_key,
)
from service.infra.store import live_key, room_key, text
from service.platforms import registry
from service.platforms.base import Chat, DeliveryFailed, Failure, Platform, Rendered
from service.table import groups, play, targets
from service.table.log import last_seq
from service.table.outcome import JobKind, Outcome
from service.table.room import LIVE, Room
from service.table.targets import Target
from service.ui import calls, games, invitations, news
from service.ui.news import ended_since
from service.ui.screens import Screen, TablePainter, fit, titled
from service.ui.story import Cursor, begin

if TYPE_CHECKING:
    from redis.client import Pipeline

    from workers.runtime import Runtime

log = logging.getLogger("burro.outbox")
LOCK_MS = 12_000  # longer than a Bot API call may take (10 s); a killed worker's lock lapses
CLOSING = "closing"  # said: the player's chat is about to stop taking our messages
CLOSING_LEAD = 3600.0  # seconds before then that it is said
Fields = dict[str, str | float]  # of one of the room's hashes (`Writes`)
# A room's marks, written only while the room is kept and the job still holds the
# target's lock: a person forgotten (service.infra.forget drops their locks) or a room
# deleted while a job was sending leaves no trace behind it. All a target's marks go in
# one call: KEYS[3..] are the room's hashes written; ARGV[1] their lifetime, then per
# hash 'top' (its one field is the room's newest message in a chat: written if newer)
# or 'set', the number of its fields, then fields and values.
_MARK = """
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local at = 2
for k = 3, #KEYS do
  local first, n = at + 2, tonumber(ARGV[at + 1])
  local write = true
  if ARGV[at] == 'top' then
    local top = tonumber(redis.call('HGET', KEYS[k], ARGV[first]) or '')
    write = top == nil or tonumber(ARGV[first + 1]) > top
  end
  if write then
    for i = first, first + 2 * n - 1, 2 do redis.call('HSET', KEYS[k], ARGV[i], ARGV[i + 1]) end
    redis.call('EXPIRE', KEYS[k], ARGV[1])
  end
  at = first + 2 * n
end
return 1
"""
# Clear a target's pending mark if it is still the request the job served.
_DONE = """
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1])) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""


def sync(rt: Runtime, room_id: str, target: str) -> None:
    """Bring one target up to date (see `sync_all`)."""
    sync_all(rt, room_id, [target])


def sync_all(rt: Runtime, room_id: str, texts: list[str], known: Room | None = None) -> None:
    """Bring targets of a room up to date, in one job. The room is loaded once, under the
    targets' locks: a job that rendered an older room and sent after a newer one would
    undo its message. A target whose lock another worker holds comes back in a second.
    `known`: the room as this job last committed it, used if it is still the stored one."""
    aims = [Target.parse(t) for t in texts]
    bases = list(dict.fromkeys(str(aim.base) for aim in aims))
    locks = {base: lock_key(room_id, base) for base in bases}
    news = [targets.NEWS]
    news += [targets.news(a.base.user) for a in aims if a.base.kind == "hand" and a.base.user]
    with rt.redis.pipeline(transaction=False) as pipe:
        for lock in locks.values():
            pipe.set(lock, 1, nx=True, px=LOCK_MS)
        # The requests this job serves: one marked after this look is a newer change,
        # for the job that comes for it (`done` leaves its mark).
        for text_ in [*texts, *news]:
            pipe.zscore(index_key(PENDING_SYNC, room_id), f"{room_id}|{text_}")
        pipe.get(room_key(room_id))
        pipe.get(BOT_USERNAME)  # read with the room: a renamed bot's links are right at once
        found = pipe.execute()
    taken = {base for base, ok in zip(bases, found, strict=False) if ok}
    asked_at = dict(zip([*texts, *news], found[len(bases) : -2], strict=True))
    room = rt.svc.store.parse(found[-2], known)
    rt.rename_bot(found[-1])
    served: dict[str, float] = {}
    waiting = {t for t in news if asked_at[t] is not None}
    try:
        # News first: a chat's message that shows the room stays its last one.
        for text_, aim in sorted(zip(texts, aims, strict=True), key=lambda t: not t[1].one_off):
            if str(aim.base) not in taken:
                queue.later(rt.jobs, JobKind.SYNC, room_id, text_, rt.svc.now() + 1)
                continue
            asked = asked_at[text_]
            waiting.discard(text_)  # told here, before the rest
            if bring_up_to_date(rt, room, aim, asked is not None, waiting) and asked is not None:
                served[text_] = asked
    finally:
        with rt.redis.pipeline(transaction=False) as pipe:
            for text_, asked in served.items():
                pending = index_key(PENDING_SYNC, room_id)
                pipe.execute_command(
                    "EVAL",
                    trips.lua(rt.redis, _DONE),
                    1,
                    pending,
                    f"{room_id}|{text_}",
                    repr(asked),
                )  # type: ignore[no-untyped-call]
            for base in taken:
                pipe.delete(locks[base])
            pipe.execute()
    if room is not None and any(aim.kind == "table" for aim in aims):
        for hand in hands_beside_table(rt, room):
            if hand not in bases:
                sync(rt, room_id, hand)


def bring_up_to_date(
    rt: Runtime, room: Room | None, aim: Target, asked: bool, news: set[str]
) -> bool:
    """Render the target's message and send or edit it (`asked`: a change is marked for
    it; `news`: the news targets marked pending); whether the target is up to date,
    False when it must wait for a later job."""
    if room is None:
        return True
    base = aim.base
    if base.kind == "mine":
        return show_mine(rt, room, aim)
    if base.kind == "said" and not room.private and base.user in room.blocked:
        return True  # their private chat refuses us (they play from the group)
    chat_id = chat_id_of(room, base)
    platform = registry.for_chat(rt, room, chat_id)
    folds = not platform.capabilities().edit  # a chat where every change is a message
    if folds and not worth_a_message(rt, room, aim):
        return True  # told with the player's next prompt instead
    if not base.one_off and not folds:
        tell_first(rt, room, base, news)
    turn = prompt_of(room, base)
    ahead = read_ahead(rt, room, base, chat_id, platform)
    marks = ahead.marks
    # A re-post, a nudge or news is a new message per request: a second job for it
    # (the sweeper's, while a 429 held the first back) finds it served and only edits.
    posts = aim.new or base.kind == "nudge" or base.one_off
    served = posts and not asked
    anew = Posting.EDIT if marks is None else due_anew(rt, marks, turn)
    called = group_calls(rt, room, base, anew=posts and not served) if marks is not None else []
    if (posts and not served) or called:
        anew = Posting.NOTIFY
    start = 0 if marks is None else story_start(room, marks, bool(anew) or folds)
    with_table = folds or not sees_table(room, base)
    # A chat that cannot edit tells a hand's end in a message of its own (below): the
    # prompt's story starts after it.
    ended = ended_since(room, start) if folds else None
    after = start if ended is None else ended
    drawn = drawn_for(rt, room, base, platform, ahead)
    plan = plan_message(rt, room, base, with_table, after, drawn, ahead)
    if plan is None:
        return True
    lang, screen = plan
    screen = with_invite(rt, room, base, lang, screen)
    screen = calls.calling(screen, room, called, lang) if called else screen
    screen = replace(screen, picture=plan[1].picture)  # the words added, the same picture
    told = untold_hands(rt, room, base) if folds else None
    if told is not None and ended is not None:
        if not tell_hand_end(rt, platform, room, base, chat_id, lang, start):
            return False
        note_told(rt, room, base, told)
        told = None
    # What the message shows, the news told above it aside: the same screen with or
    # without them is the same screen (one final message, not two).
    shows = platform.render(screen, lang)
    if told is not None:
        screen = with_news(rt, room, lang, screen)
    logs.bind(chat_id=chat_id)
    message = platform.render(screen, lang) if told is not None else shows
    if served and (base.kind == "nudge" or base.one_off):
        return False  # nothing to clear: no request is marked
    if base.one_off or marks is None:
        return unsaid(rt, room, base, ahead) or post_once(rt, platform, room, aim, chat_id, message)
    now = rt.svc.now()
    cursor = Cursor(after, last_seq(room.log), now)
    # What the send leaves in live play's marks, written with the message's own marks.
    told_anew = anew == Posting.NOTIFY or marks.message_id is None
    live = prompt_marks(rt, room, base, turn, told=told_anew, marks=marks, now=now)
    if called:
        live.update(called_marks(room, called, now))
    if told is not None:
        live.update(told_marks(room, base, told))
    if not send(rt, platform, room, aim, chat_id, message, anew, shows, marks, cursor, live):
        return False
    if folds and turn is not None:
        before_closing(rt, platform, room, chat_of(room, chat_id), turn)
    return True


# ----- who plays from the group --------------------------------------------------------


def group_calls(rt: Runtime, room: Room, target: Target, anew: bool = False) -> list[int]:
    """The players a group's table names as it goes out, so that it tells them: those
    whose turn it is who play from the group (their private chat refused us, or they
    never opened it), unless in live play or called for this turn already (`live`);
    all of them in a table posted anew on request (`anew`: the group became a
    supergroup, where their call is not)."""
    if target.kind != "table":
        return []
    users = play.from_group(room)
    if not users or anew:
        return users
    fields = [str(u) for u in users] + [f"{u}:turn" for u in users]
    found = rt.redis.hmget(live_key(room.id), fields)
    turn = f"p{room.phase_version}"
    return [
        user
        for user, acted, seen in zip(users, found, found[len(users) :], strict=False)
        if not live(rt, Marks(None, None, to_float(acted), to_text(seen), None), (user, turn))
    ]


def nudge_screen(room: Room, painter: games.Screens) -> Screen:
    """The group's reminder; where someone it names plays from the group, with the
    table's way to their cards: Telegram never tells a bot that its table was deleted,
    and the reminder is where their notification takes them."""
    screen = painter.nudge()
    if not isinstance(painter, TablePainter) or not play.from_group(room):
        return screen
    return replace(screen, rows=(*screen.rows, *fit([painter.chat_rows()])))


def called_marks(room: Room, users: list[int], now: float) -> Fields:
    """Live play's marks for players just called for their turn (`group_calls`)."""
    turn = f"p{room.phase_version}"
    marks: Fields = {f"{user}:turn": turn for user in users}
    marks.update((str(user), now) for user in users)
    return marks


def to_float(value: bytes | str | None) -> float | None:
    return float(value) if value is not None else None


def to_text(value: bytes | str | None) -> str | None:
    return text(value) if value is not None else None


def show_mine(rt: Runtime, room: Room, aim: Target) -> bool:
    """A player's hand in the group, shown to them alone (with the table: it stands in
    its place for them): shown anew in answer to what they asked (kept at `answer_key`
    till now), else edited where it shows; nothing where it shows nowhere. An edit tells
    nobody: their turn is told by the group's table (`group_calls`) or their own chat."""
    user = aim.user
    if user is None or user not in room.mine or room.seat_of(user) is None:
        return True
    answering = text(rt.redis.getdel(answer_key(room.id, user)) or b"") if aim.new else ""
    marks = read_marks(rt, room, aim.base, room.chat_id)
    if room.status != "playing":  # the group's table tells the end, rematch and all
        return mine_withdrawn(rt, room, aim.base, user, marks.message_id)
    if not answering and marks.message_id is None:
        return True
    start = story_start(room, marks, anew=bool(answering))
    plan = plan_message(rt, room, Target("hand", user), with_table=True, after=start)
    if plan is None:
        return True
    lang, screen = plan
    platform = registry.for_chat(rt, room, room.chat_id)
    message = platform.render(screen, lang)
    digest = digest_of(message)
    if not answering and marks.digest == digest.encode():
        return True
    chat, old = chat_of(room, room.chat_id), marks.message_id
    try:
        if answering:
            shown = platform.show_to(chat, user, message, answering)
        else:
            assert old is not None
            platform.update_for(chat, user, old, message)
            shown = old
    except DeliveryFailed as error:
        return mine_refused(rt, room, aim, error.failure)
    if answering and old is not None and old != shown:
        platform.withdraw(chat, user, old)
    cursor = Cursor(start, last_seq(room.log), rt.svc.now())
    writes = kept_marks(room, aim.base, shown, sent_mark(digest, cursor))
    if answering:  # they asked just now: they are looking
        writes.add(live_key(room.id), {str(user): rt.svc.now()})
    write_marks(rt, room, aim.base, writes)
    return True


def mine_withdrawn(
    rt: Runtime, room: Room, base: Target, user: int, message_id: int | None
) -> bool:
    """A hand in the group stood in place of the table for its player: once the game is
    over it goes, so that they see the table's end (and its 🔁 Rematch) as everyone does."""
    if message_id is not None:
        platform = registry.for_chat(rt, room, room.chat_id)
        platform.withdraw(chat_of(room, room.chat_id), user, message_id)
    drop_marks(rt, room, str(base))
    return True


def mine_refused(rt: Runtime, room: Room, aim: Target, failure: Failure) -> bool:
    """A hand in the group that could not be shown or changed: gone (deleted, or its
    press too old to answer) it is forgotten, so nothing tries it again till they ask;
    a flood wait tries again."""
    if failure.kind == "retry" and not aim.new:
        queue.later(rt.jobs, JobKind.SYNC, room.id, str(aim), rt.svc.now() + failure.wait)
        return False
    log.info("room %s: %s's hand in the group: %s", room.id, aim.user, failure.detail)
    if not aim.new:
        drop_marks(rt, room, str(aim.base))
    return True


def sees_table(room: Room, target: Target) -> bool:
    """Whether the reader of a player's message sees the table elsewhere (a group's, or
    the table in their own chat); a hand read by one who does not shows it too."""
    return target.user is None or targets.shows_table(room, target.user)


def hands_beside_table(rt: Runtime, room: Room) -> list[str]:
    """The hands to bring up to date with a table in a person's own chat: those of the
    other players whose chats are edited in place (each shows the table above the hand,
    kept current as the table is; a chat where every change is a message is told with
    its player's next prompt instead)."""
    if room.status != "playing" or not targets.in_own_chat(room) or room.private:
        return []
    return [
        targets.hand(user)
        for user in room.humans()
        if user not in room.blocked
        and not targets.shows_table(room, user)
        and registry.for_chat(rt, room, user).capabilities().edit
    ]


def with_invite(rt: Runtime, room: Room, target: Target, lang: str, screen: Screen) -> Screen:
    """A group's lobby says how people on the other platforms join (family on WhatsApp,
    where it is on too)."""
    if target.kind != "table" or room.status != "lobby" or room.private or room.settings_open:
        return screen
    lines = registry.invites(rt.svc, room, lang)
    return Screen("\n\n".join([screen.text, *lines]), screen.rows) if lines else screen


# ----- a chat that cannot edit: one message per decision ---------------------------------


def worth_a_message(rt: Runtime, room: Room, aim: Target) -> bool:
    """Whether a change to a target is worth a message of its own in a chat where every
    change is a new message (WhatsApp): a lobby's or a finished game's screen, a re-post
    asked for, or a player's prompt for a decision they were not prompted for yet. What
    happened in between (the others' moves, a hand's end, a move played for them) comes
    with their next prompt."""
    base = aim.base
    if base.kind == "said" and base.why == CLOSING:
        return closing_still(rt, room, base)
    if base.kind == "said" and base.why == targets.KNOCK:
        return True  # its owner would otherwise believe their link worked
    if base.one_off:
        return False
    if base.kind in ("table", "nudge") and not room.private and room.status == "playing":
        return False  # a table with no group: each player's prompt shows it (a family's)
    if aim.new or room.status != "playing":
        return True
    turn = prompt_of(room, base)
    if turn is None:
        return False
    seen = rt.redis.hget(live_key(room.id), f"{turn[0]}:turn")
    return seen is None or text(seen) != turn[1]


def before_closing(
    rt: Runtime, platform: Platform, room: Room, chat: Chat, turn: tuple[int, str]
) -> None:
    """If the player's chat stops taking our messages (WhatsApp's window) before their
    turn's time is up, a word shortly before it does, with a button that keeps it open."""
    until = platform.open_until(chat)
    at = None if until is None else until - CLOSING_LEAD
    if at is None or room.deadline is None or at >= room.deadline or at <= rt.svc.now():
        return
    target = targets.said(turn[0], CLOSING, turn[1])
    rt.redis.zadd(index_key(PENDING_SYNC, room.id), {f"{room.id}|{target}": at}, nx=True)
    queue.later(rt.jobs, JobKind.SYNC, room.id, target, at)


def closing_still(rt: Runtime, room: Room, target: Target) -> bool:
    """Whether the closing word is still due: the same turn waits on the player, they
    have not written since (their chat would stay open longer), and their chat has not
    closed yet (the reminder's template speaks then; the word would go as that template,
    in the reminder's place, or, were they to write while it is sent, as itself, stale)."""
    user = target.user
    turn = prompt_of(room, Target("hand" if not room.private else "table", user))
    if turn is None or turn[1] != target.action or user is None:
        return False
    platform = registry.for_chat(rt, room, user if not room.private else room.chat_id)
    until = platform.open_until(chat_of(room, user if not room.private else room.chat_id))
    now = rt.svc.now()
    return until is not None and now < until <= now + CLOSING_LEAD


def untold_hands(rt: Runtime, room: Room, target: Target) -> int | None:
    """The finished hands count, when the target's player has not been told the last
    hand's end yet (their chat folds the news into their next prompt), else None."""
    user = player_of(room, target)
    if user is None or room.game is None:
        return None
    hands = play.game(room).finished_hands(room.game)
    told = rt.redis.hget(live_key(room.id), f"{user}:told")
    return hands if hands > int(text(told) if told is not None else 0) else None


def with_news(rt: Runtime, room: Room, lang: str, screen: Screen) -> Screen:
    """The screen with the last hand's end (and the scores) told above it, but the
    lines it tells already (a finished game's screen tells its last hand)."""
    told = news.news(room, lang, rt.svc.bot_username)
    shown = set(screen.text.split("\n"))
    lines = [line for line in (told.text.split("\n") if told else []) if line not in shown]
    return Screen("\n".join([*lines, "", screen.text]), screen.rows) if lines else screen


def tell_hand_end(
    rt: Runtime, platform: Platform, room: Room, target: Target, chat_id: int, lang: str, after: int
) -> bool:
    """A hand's end in a message of its own, before the next prompt (a chat where every
    change is a message): its last moves since the reader's look (`after`), its result
    and the scores. False: the chat's pace says wait (the job is due again later)."""
    user = player_of(room, target)
    seat = None if user is None else room.seat_of(user)
    told = news.hand_end(room, lang, rt.svc.bot_username, seat, after)
    if told is None:
        return True
    chat = chat_of(room, chat_id)
    wait = platform.budget(chat)
    if wait > 0:
        queue.later(rt.jobs, JobKind.SYNC, room.id, str(target), rt.svc.now() + wait)
        return False
    platform.post(chat, told.text)
    return True


def note_told(rt: Runtime, room: Room, base: Target, hands: int) -> None:
    note_live(rt, room, base, told_marks(room, base, hands))


def told_marks(room: Room, base: Target, hands: int) -> Fields:
    """Live play's mark of the hands whose end the target's player was told."""
    user = player_of(room, base)
    return {} if user is None else {f"{user}:told": hands}


def unsaid(rt: Runtime, room: Room, target: Target, ahead: Ahead | None = None) -> bool:
    """A player's only card played for them goes without saying in live play (they see
    it happen); a timeout, or the same while they are away, is said (`ahead`: when they
    last acted, as read ahead)."""
    if target.kind != "said" or target.why != "only":
        return False
    found = ahead.said_to if ahead is not None else None
    at = found[0] if found is not None else rt.redis.hget(live_key(room.id), str(target.user))
    return at is not None and rt.svc.now() - float(at) < rt.svc.settings.live_window


def tell_first(rt: Runtime, room: Room, target: Target, pending_news: set[str]) -> None:
    """Post the news still waiting for the target's chat (`pending_news`: as the job
    found them marked; its own sync looks again) before the target's own change, so that
    the message that shows the room stays the last one there."""
    user = player_of(room, target)
    if room.private or target.kind == "table":
        waiting = targets.NEWS if target.kind == "table" else None
    else:
        waiting = targets.news(user) if user is not None else None
    if waiting is not None and waiting in pending_news:
        sync(rt, room.id, waiting)


# ----- being told: a new message where an edit would not notify -------------------------


def player_of(room: Room, target: Target) -> int | None:
    """The user whose hand a target shows: a hand's, or the private game's table."""
    if target.kind == "hand":
        return target.user
    if target.kind == "table" and room.private:
        return next((s.user_id for s in room.seats if s.user_id is not None), None)
    return None


def prompt_of(room: Room, target: Target) -> tuple[int, str] | None:
    """(user, turn) when the target's hand asks its player to act now: the turn names
    the prompt (the phase it belongs to), else None."""
    user = player_of(room, target)
    if user is None or room.status != "playing":
        return None
    seat = room.seat_of(user)
    if seat is None or seat not in play.waiting_humans(room):
        return None
    return user, f"p{room.phase_version}"


class Posting(StrEnum):
    """How a target's message goes: edited in place, or posted anew (ringing or not)."""

    EDIT = ""
    NOTIFY = "notify"
    QUIET = "quiet"


@dataclass(frozen=True)
class Marks:
    """What the outbox keeps of a target's message and its player, read in one trip."""

    message_id: int | None  # the message showing the target
    digest: bytes | None  # of what it shows
    acted: float | None  # when its player acted or was last prompted
    turn: str | None  # the turn they were last prompted for
    top: int | None  # the room's newest message in the target's chat
    story: Cursor | None = None  # the story the message showed (service.ui.story)


def read_marks(rt: Runtime, room: Room, target: Target, chat_id: int) -> Marks:
    user = player_of(room, target)
    with rt.redis.pipeline(transaction=False) as pipe:
        ask_marks(pipe, room, target, user, chat_id)
        return marks_of(user, *pipe.execute())


def ask_marks(pipe: Pipeline, room: Room, target: Target, user: int | None, chat_id: int) -> None:
    """Queue in `pipe` the three reads of a target's marks, as `marks_of` takes them."""
    pipe.hget(msgs_key(room.id), str(target))
    pipe.hget(sent_key(room.id), str(target))
    pipe.hmget(live_key(room.id), str(user), f"{user}:turn", f"top:{chat_id}")


def marks_of(user: int | None, shown: bytes | None, sent: bytes | None, live: list[Any]) -> Marks:
    """A target's marks as `read_marks` reads them (`user`: its player's)."""
    acted, turn, top = live
    # what was sent: its digest, then the story it showed (`sent_mark`)
    digest, _sep, story = sent.partition(b" ") if sent is not None else (None, b"", b"")
    return Marks(
        int(shown) if shown is not None else None,
        digest,
        float(acted) if acted is not None and user is not None else None,
        text(turn) if turn is not None and user is not None else None,
        int(top) if top is not None else None,
        Cursor.parse(text(story)),
    )


@dataclass(frozen=True)
class Ahead:
    """What a target's job reads before it draws and sends, in one trip (`read_ahead`):
    its marks, and what its reader's screens depend on (None: not read)."""

    marks: Marks | None  # the target's marks (a one-off message has none)
    reader: int | None = None  # the person whose own chat reads the screen
    rooms: frozenset[str] | None = None  # the open rooms the reader sat down at
    look: str | None = None  # the reader's /look choice ("" for none)
    said_to: tuple[bytes | None] | None = None  # a `said` word's player: when they acted


# A platform's own read of what its next edit in a chat needs, made with the target's
# (`read_ahead`; service.platforms.telegram.delivery: what its widget messages show):
# it queues its commands in the pipe and gives what keeps their answer, or None.
ReadAhead = Callable[[Any, Chat], Callable[[Any], None] | None]


def read_ahead(
    rt: Runtime, room: Room, target: Target, chat_id: int, platform: Platform | None = None
) -> Ahead:
    """A target's marks, and what its screen depends on (`reader_of`'s tables, their
    /look, when a `said` word's player acted) and its edit (the `platform`'s own
    `ReadAhead`, if it has one), read in one trip: one pipeline, its keys in several slots (a
    cluster's pipeline sends each node its own)."""
    user = player_of(room, target)
    reader = reader_of(room, target)
    said = target.kind == "said" and target.why == "only" and target.user is not None
    with rt.redis.pipeline(transaction=False) as pipe:
        if not target.one_off:
            ask_marks(pipe, room, target, user, chat_id)
        if reader is not None:
            pipe.smembers(user_seated_key(reader))
            pipe.hget(user_key(reader), USER_LOOK)
        if said:
            pipe.hget(live_key(room.id), str(target.user))
        reads: ReadAhead | None = getattr(platform, "read_ahead", None)
        edits = reads is not None and not target.one_off
        keep = reads(pipe, chat_of(room, chat_id)) if reads is not None and edits else None
        found = list(pipe.execute()) if len(pipe) else []
    if keep is not None:
        keep(found.pop())
    marks = None if target.one_off else marks_of(user, *found[:3])
    found = found[0 if target.one_off else 3 :]
    rooms, look = (found.pop(0), found.pop(0)) if reader is not None else (None, None)
    return Ahead(
        marks,
        reader,
        None if rooms is None else tables.seated_ids(rooms),
        None if reader is None else text(look or b""),
        (found.pop(0),) if said else None,
    )


def reader_of(room: Room, target: Target) -> int | None:
    """The person whose own chat shows a target's screen, which names its table when
    they sit at another too (`named_for`, `named_word`), and draws their hand as their
    /look says: a player's, or a one-to-one game's table's player."""
    if target.kind == "table":
        return room.chat_id if room.seat_of(room.chat_id) is not None else None
    if target.kind in ("hand", "said", "news") and target.why != targets.KNOCK:
        return target.user
    return None


def sent_mark(digest: str, cursor: Cursor | None) -> str:
    """What is kept of a sent message: its digest, and the story it showed (forgotten
    with it)."""
    return digest if cursor is None else f"{digest} {cursor.encode()}"


def story_start(room: Room, marks: Marks, anew: bool) -> int:
    """Where the target's story begins: `anew`, a new message (service.ui.story.begin)."""
    return begin(marks.story, anew or marks.message_id is None, marks.acted, room.log)


def due_anew(rt: Runtime, marks: Marks, turn: tuple[int, str] | None) -> Posting:
    """Whether the target's next change is a new message: one that notifies for a turn of
    a player not in live play (not prompted for it yet, nor acted or prompted lately), a
    silent one where the room's later messages pushed the old one up (it posted news or
    a nudge after it, or a command came: Store.note_message)."""
    if turn is not None and not live(rt, marks, turn):
        return Posting.NOTIFY
    shown, top = marks.message_id, marks.top
    later = shown is not None and top is not None and top > shown
    return Posting.QUIET if later else Posting.EDIT


def live(rt: Runtime, marks: Marks, turn: tuple[int, str]) -> bool:
    """Whether the player is in live play for this turn: prompted for it already (it is
    kept up to date in place), or they acted or were prompted within the live window."""
    if marks.turn == turn[1]:
        return True
    acted = marks.acted
    return acted is not None and rt.svc.now() - acted < rt.svc.settings.live_window


def prompt_marks(
    rt: Runtime,
    room: Room,
    target: Target,
    turn: tuple[int, str] | None,
    told: bool,
    marks: Marks,
    now: float | None = None,
) -> Fields:
    """Live play's marks of when the player was last prompted (shown their turn, or
    `told` by a new message; `now`: when it was shown, as its story's cursor says), and
    for which turn; none when nothing changes."""
    user = turn[0] if turn is not None else player_of(room, target)
    if user is None or room.status != "playing":
        return {}
    fields: Fields = {}
    if turn is not None and marks.turn != turn[1]:
        fields[f"{user}:turn"] = turn[1]
    if fields or told:
        fields[str(user)] = rt.svc.now() if now is None else now
    return fields


def note_live(
    rt: Runtime,
    room: Room,
    base: Target,
    fields: Fields,
    pipe: Pipeline | None = None,
) -> None:
    """Write these marks of live play (a player's last prompt, their turn) for the room,
    in `pipe` if given (`base`: the target whose job writes them)."""
    write_marks(rt, room, base, Writes().add(live_key(room.id), fields), pipe)


def note_top(
    rt: Runtime,
    room: Room,
    base: Target,
    chat_id: int,
    message_id: int,
    pipe: Pipeline | None = None,
) -> None:
    """Remember the room's newest message in a chat (see `due_anew`), in `pipe` if given."""
    write_marks(rt, room, base, Writes().top(room, chat_id, message_id), pipe)


@dataclass
class Writes:
    """Marks of one target's job, for the room's hashes, written in one call (`_MARK`)."""

    parts: list[tuple[str, Fields, bool]] = field(default_factory=list)

    def add(self, key: str, fields: Fields, top: bool = False) -> Writes:
        """These fields of hash `key` (`top`: one field, written only if greater)."""
        if fields:
            self.parts.append((key, dict(fields), top))
        return self

    def top(self, room: Room, chat_id: int, message_id: int) -> Writes:
        """The room's newest message in a chat (see `due_anew`)."""
        return self.add(live_key(room.id), {f"top:{chat_id}": message_id}, top=True)


def write_marks(
    rt: Runtime, room: Room, base: Target, writes: Writes, pipe: Pipeline | None = None
) -> None:
    """Write marks of the room's hashes while the room is kept and the job holds the
    `base` target's lock (`_MARK`): one script call, in `pipe` if given."""
    if not writes.parts:
        return
    run = pipe if pipe is not None else rt.redis.pipeline(transaction=False)
    args: list[str | float] = [rt.svc.store.ttl_of(room)]
    for _key, fields, top in writes.parts:
        args += ["top" if top else "set", len(fields)]
        args += [part for item in fields.items() for part in item]
    keys = [room_key(room.id), lock_key(room.id, str(base)), *(k for k, _f, _t in writes.parts)]
    # EVAL as a command: a cluster's pipeline has no `eval`
    script = trips.lua(rt.redis, _MARK)
    run.execute_command("EVAL", script, len(keys), *keys, *args)  # type: ignore[no-untyped-call]
    if pipe is None:
        run.execute()


def chat_of(room: Room, chat_id: int) -> Chat:
    """Where a message to `chat_id` goes: the room's own chat in its topic, if any."""
    return Chat(chat_id, room.thread_id if chat_id == room.chat_id else None)


def post_once(
    rt: Runtime, platform: Platform, room: Room, target: Target, chat_id: int, message: Rendered
) -> bool:
    """Post a one-off message (a `said` one silently); False when it must wait."""
    chat = chat_of(room, chat_id)
    wait = platform.budget(chat)
    if wait > 0:
        queue.later(rt.jobs, JobKind.SYNC, room.id, str(target), rt.svc.now() + wait)
        return False
    said = target.kind == "said"
    try:
        message_id = platform.deliver(chat, message, notify=not said)
    except DeliveryFailed as error:
        return handle_failure(rt, platform, room, target, error.failure)
    if not said:  # a word said may stay below the hand: it is not posted anew for it
        rung = rung_marks(rt, room, chat_id)
        writes = Writes().top(room, chat_id, message_id).add(live_key(room.id), rung)
        write_marks(rt, room, target.base, writes)
    return True


def rung_marks(rt: Runtime, room: Room, chat_id: int) -> Fields:
    """A message that rang in a player's own chat (a hand's news) has told them the game
    goes on: their turn right after it comes quietly below it, not as a second ring, as
    if they had just been prompted (`live`): the mark that says so."""
    user = player_of(room, Target("table")) if room.private else chat_id
    if user is not None and room.status == "playing" and room.seat_of(user) is not None:
        return {str(user): rt.svc.now()}
    return {}


def chat_id_of(room: Room, target: Target) -> int:
    """The chat a target's message goes to: the room's own, or a player's private one."""
    user = target.user
    if target.kind in ("table", "nudge") or user is None or room.private:
        return room.chat_id
    return user


def plan_message(
    rt: Runtime,
    room: Room,
    target: Target,
    with_table: bool = False,
    after: int = 0,
    pictures: bool = False,
    ahead: Ahead | None = None,
) -> tuple[str, Screen] | None:
    """(language, screen) for a target, or None when there is nothing to show;
    `with_table`: a hand shows the table's lines too (a chat that sees no table);
    `after`: the screen's story begins after this line of the log; `pictures`: a
    table's or hand's screen carries its picture too (`drawn_for`)."""
    name = rt.svc.bot_username
    if target.kind in ("table", "nudge"):
        lang = rt.svc.room_lang(room)
        painter = story_from(games.painter(room, lang, name), after)
        if target.kind == "nudge":
            return lang, nudge_screen(room, painter)
        reader = room.chat_id if room.seat_of(room.chat_id) is not None else None
        screen = games.room_screen(room, named_for(rt, room, painter, reader, ahead))
        if not pictures:
            return lang, screen
        human = next((i for i, s in enumerate(room.seats) if s.user_id is not None), None)
        return lang, replace(screen, picture=painter.picture(human if room.private else None))
    user_id = target.user
    if target.kind == "said" and target.why == targets.KNOCK and user_id is not None:
        return knocked(rt, room, user_id, target.action)
    if user_id is None:  # the room's own chat's news
        lang = rt.svc.room_lang(room)
        told = news.news(room, lang, name)
        return None if told is None else (lang, told)
    seat = room.seat_of(user_id)
    if seat is None or room.game is None or (room.private and target.kind != "said"):
        return None
    lang = room.seats[seat].lang
    if target.kind == "said":
        said = news.said(room, lang, target.why, target.action)
        return lang, named_word(rt, room, user_id, lang, said, ahead)
    if target.kind == "news":
        told = news.news(room, lang, name)
        told_ = None if told is None else named_word(rt, room, user_id, lang, told, ahead)
        return None if told_ is None else (lang, told_)
    painter = story_from(games.painter(room, lang, name), after)
    painter = named_for(rt, room, painter, user_id, ahead)
    hand = painter.hand(seat, with_table=with_table)
    return lang, replace(hand, picture=painter.picture(seat)) if pictures else hand


def drawn_for(
    rt: Runtime, room: Room, target: Target, platform: Platform, ahead: Ahead | None = None
) -> bool:
    """Whether a target's screen carries its picture (service.ui.picture), for a chat
    that draws it rather than writes it: a game's hand, or a one-to-one game's table,
    where the platform draws pictures in a person's own chat and its reader has not
    chosen text (/look); a group's table where the platform draws there too."""
    if target.kind not in ("table", "hand") or room.status not in ("playing", "over"):
        return False
    able = platform.capabilities()
    if target.kind == "table" and not room.private:
        return able.group_pictures
    reader = player_of(room, target)
    return able.pictures and reader is not None and sees_pictures(rt, reader, ahead)


def sees_pictures(rt: Runtime, user: int, ahead: Ahead | None = None) -> bool:
    """Whether the person sees their hand drawn where it can be (their /look choice, as
    read `ahead` if it was)."""
    if ahead is not None and ahead.reader == user and ahead.look is not None:
        return ahead.look != LOOK_TEXT
    return rt.svc.store.user(user).get(USER_LOOK) != LOOK_TEXT


def elsewhere(rt: Runtime, reader: int, room: Room, ahead: Ahead | None) -> bool:
    """Whether the reader sits at an open table other than this one too (as
    service.infra.tables.elsewhere says), from their open rooms as read `ahead`: this
    one alone, nothing more is asked."""
    rooms = ahead.rooms if ahead is not None and ahead.reader == reader else None
    if rooms is None:
        return tables.elsewhere(rt.svc.store, reader, room.id)
    others = tables.still_open(rt.svc.store, reader, rooms - {room.id})
    return any(seated_in(rt, reader, room_id) for room_id in others)


def seated_in(rt: Runtime, reader: int, room_id: str) -> bool:
    """Whether the person sits at this room, still open (tables.open_tables)."""
    other = rt.svc.store.load(room_id)
    return other is not None and other.status in LIVE and other.seat_of(reader) is not None


def named_for(
    rt: Runtime,
    room: Room,
    painter: games.Screens,
    reader: int | None,
    ahead: Ahead | None = None,
) -> games.Screens:
    """The painter, naming its table on the screens of a `reader` (a person whose own
    chat shows them) who sits at another table too: their chat shows both; or who sees
    the table nowhere else (whose table it is, they learn there)."""
    if isinstance(painter, TablePainter) and reader is not None:
        alone = not targets.shows_table(room, reader)
        painter.named = alone or elsewhere(rt, reader, room, ahead)
    hints.give(rt.svc.store, room, painter, reader)  # a newcomer's hints (issue #37)
    return painter


def named_word(
    rt: Runtime, room: Room, reader: int, lang: str, screen: Screen, ahead: Ahead | None = None
) -> Screen:
    """A word or a hand's news in the reader's own chat, naming its table when they sit
    at another table too."""
    if not elsewhere(rt, reader, room, ahead):
        return screen
    return titled(screen, room, Translator(lang))


def knocked(rt: Runtime, room: Room, owner: int, action: str) -> tuple[str, Screen] | None:
    """Someone followed a link to the owner's table and was not seated: told in the
    owner's language (their seat's, else the room's)."""
    seat = room.seat_of(owner)
    lang = room.seats[seat].lang if seat is not None else rt.svc.room_lang(room)
    visitor, why = targets.knocked(action)
    name = rt.svc.store.user(visitor).get("name", "") if visitor is not None else ""
    return lang, invitations.knocked(lang, name, why)


def story_from(painter: games.Screens, after: int) -> games.Screens:
    """The painter, its screens' story beginning after line `after` (a game whose
    painter tells no story is left as it is)."""
    if isinstance(painter, TablePainter):
        painter.after = after
    return painter


def send(
    rt: Runtime,
    platform: Platform,
    room: Room,
    target: Target,
    chat_id: int,
    message: Rendered,
    post: Posting,
    shows: Rendered | None,
    marks: Marks,
    cursor: Cursor | None = None,
    live: Fields | None = None,
) -> bool:
    """Post (`post`: NOTIFY, or QUIET without a notification) or update the target's
    message; False when it must be tried again later (rescheduled already). `shows`:
    what the message shows, if not all of it is (a screen with news told above it);
    `cursor`: the story it shows, kept beside it; `live`: live play's marks to write
    once it is up to date, with its own."""
    base = target.base
    shown = message if shows is None else shows
    digest = digest_of(shown)
    old = marks.message_id
    if not post and old is not None and marks.digest == digest.encode():
        note_live(rt, room, base, live or {})
        return True  # this very screen is already showing
    chat = chat_of(room, chat_id)
    wait = platform.budget(chat)
    if wait > 0:
        queue.later(rt.jobs, JobKind.SYNC, room.id, str(target), rt.svc.now() + wait)
        return False
    try:
        if post or old is None:
            message_id = platform.deliver(chat, message, notify=post != Posting.QUIET)
        else:
            message_id = platform.update(chat, old, message)
    except DeliveryFailed as error:
        return handle_failure(rt, platform, room, target, error.failure)
    writes = kept_marks(room, base, message_id, sent_mark(digest, cursor))
    writes.top(room, chat_id, message_id).add(live_key(room.id), live or {})
    with rt.redis.pipeline(transaction=False) as pipe:
        write_marks(rt, room, base, writes, pipe)
        # what the platform's edit leaves (a widget's shown state, not in the room's
        # slot: a command of its own in the pipeline, not in the script)
        behind: Callable[[Any], None] | None = getattr(platform, "write_behind", None)
        if behind is not None:
            behind(pipe)
        pipe.execute()
    if post and old is not None and old != message_id and str(base) != targets.NUDGE:
        platform.retire(chat, old)
    return True


def digest_of(message: Rendered) -> str:
    """What a message shows, as a short digest: the same screen twice is sent once."""
    return hashlib.sha1(json.dumps(message, sort_keys=True).encode()).hexdigest()


def kept_marks(room: Room, base: Target, message_id: int, sent: str) -> Writes:
    """The marks of the message showing a target and what it shows (`sent_mark`), kept
    as long as the room: it shows the room."""
    writes = Writes().add(msgs_key(room.id), {str(base): message_id})
    return writes.add(sent_key(room.id), {str(base): sent})


def drop_marks(rt: Runtime, room: Room, base: str) -> None:
    """Forget a target's message: nothing shows it now (a later change sends it anew)."""
    with rt.redis.pipeline(transaction=False) as pipe:
        pipe.hdel(msgs_key(room.id), base)
        pipe.hdel(sent_key(room.id), base)
        pipe.execute()


def handle_failure(
    rt: Runtime, platform: Platform, room: Room, target: Target, failure: Failure
) -> bool:
    """Act on a refused delivery; False when it will be tried again later."""
    hand = target.kind == "hand"
    if failure.kind == "retry":
        queue.later(rt.jobs, JobKind.SYNC, room.id, str(target), rt.svc.now() + failure.wait)
        return False
    if failure.kind == "blocked" and hand and target.user is not None:
        record_blocked(rt, platform, room, target)
        return True
    if failure.kind == "gone" and failure.moved_to is not None and not hand:
        # The group became a supergroup: the room moves there, its table posted anew.
        chats.migrate(rt.svc.store, room.chat_id, failure.moved_to)
        return True
    if failure.kind == "gone" and failure.topic and room.thread_id is not None and not hand:
        stop_in_topic(rt, platform, room, closed=failure.closed)
        return True
    log.warning("room %s target %s: %s", room.id, target, failure.detail)
    return True


def stop_in_topic(rt: Runtime, platform: Platform, room: Room, closed: bool) -> None:
    """The game's forum topic was closed or deleted: end the game (not retried forever)
    and say so in the group's General topic."""
    stopped = chats.stop(rt.svc.store, room.id, rt.svc.now(), show=closed)
    if stopped is None:
        return  # stopped already: said once
    text = groups.topic_gone_word(Translator(rt.svc.room_lang(stopped)), closed)
    try:
        platform.say(Chat(room.chat_id), text)
    except DeliveryFailed as error:
        log.warning("room %s: could not say in General that it ended: %s", room.id, error)


def record_blocked(rt: Runtime, platform: Platform, room: Room, hand: Target) -> None:
    """The player's private chat refused their `hand`: remember it and tell the group
    how to fix it."""
    user_id = hand.user
    assert user_id is not None

    def change(fresh: Room) -> Outcome:
        if user_id in fresh.blocked:
            return Outcome()
        fresh.blocked = [*fresh.blocked, user_id]
        return Outcome(changed=True)

    result = rt.svc.store.update(room.id, change)
    if result is None or not result[1].changed or room.private:
        return
    seat = room.seat_of(user_id)
    name = room.seats[seat].name if seat is not None else str(user_id)
    lang, ttl = rt.svc.room_lang(room), rt.svc.store.ttl_of(room)
    message_id = platform.tell_unreachable(room, user_id, name, lang, ttl)
    if message_id is not None:
        note_top(rt, room, hand.base, room.chat_id, message_id)
