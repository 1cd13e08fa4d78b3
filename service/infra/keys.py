"""Every Redis key the service writes or reads, built here and nowhere else, so that a
key's shape is one place to read (and a test finds any key written elsewhere:
tests/service/test_keys.py). The strings never change: stored data must keep working.

Rooms (the `{…}` hash tags keep a room's keys together if Redis is ever sharded):
  game:{<room>}:room          the room, JSON (expires `retention` after the game ends)
  game:{<room>}:msgs, :sent   the outbox's messages of the room, as long as the room
  game:{<room>}:live          hash: when each player last acted or was prompted, the
                              turn they were last prompted for, the room's newest
                              message in each chat (workers.outbox)
  game:{<room>}:presses       list: the presses queued for a worker, not applied yet
  game:{<room>}:moves         hash: the phase the room is in, and each human yet to act
                              with their moves that may wait for a worker, one a line
                              (play.waiting_moves); '' once they pressed one (aclaim)
  game:{<room>}:blocked_notices   hash: the notice each person who blocked us was shown
  game:{<room>}:lock:<target>     the outbox's lock on one of the room's messages
  chat:<chat>:<thread>        the room open in a chat (or forum topic)
People:
  user:<id>                   hash: lang, name, started (the user opened a private chat),
                              look ("text": their hand as text, not drawn; /look)
  user:<id>:rooms, user:<id>:chats   the rooms a person sat in, the chats they have stats in
  user:<id>:hints             hash: each newcomer's hint met, with the room and phase it was
                              first shown in (service.infra.hints)
  stats:chat:<chat>, stats:user:<id>   hashes of counters
  open:chat:<chat>, open:user:<id>     rooms opened in a chat / by a person (for the caps)
  cooldown:rules:<chat>:<thread>, cooldown:chatter:<id>   once per so many seconds
  cooldown:knock:<room>       its owner told lately that its link seated someone not
Updates:
  update:<update_id>          the dedupe mark of an update: being handled (for 30 s), or
                              handled, holding its answer (service.infra.store.claims;
                              expires). A room keeps the ids of the updates that changed
                              it last too (Room.handled), written with the change.
Indexes (sorted sets, one key per bucket: `<index>:{<bucket's tag>}`, in the slot of the
rooms it holds: service.table.buckets; service.infra.indexes reads them):
  rooms:due                   playing rooms by when their next timer or bot move is due
  rooms:timers                playing rooms by when their phase's next timer is due
                              (service.infra.timers: the timers are not RQ jobs)
  rooms:idle                  open rooms by when they end if nobody acts (workers.expiry)
  sync:pending                chat messages waiting for the outbox, by since when
  presses:pending             presses answered and queued, not applied yet, by since when
Telegram:
  limit:chat:<chat>, limit:group:<chat>, limit:bot   send slots (its flood limits)
  notice:<id>, notices:<chat> a notice waiting to be sent, a chat's waiting notices
  bot:username, bot:inline    what getMe said last
  bot:widgets                 whether the Bot API takes widgets (serve's probe)
  widgets:<chat>              hash: each widget message of ours in the chat -> what its
                              caption and buttons show (a digest: edited only on a change)
Channels (pub/sub):
  view:changed                a room's id, published with each committed change of it
                              (the open views repaint it: service.view.live)
WhatsApp:
  wa:id:<bsuid>               the player id of a WhatsApp person
  wa:next                     the counter player ids are made from
  wa:seq:<player>             the number of the person's newest message from us
  wa:pace:<player>            their send pace; wa:template:<player> their turn template
  wa:stale:<message>          a stale tap already answered
"""

from __future__ import annotations

from typing import Literal

from service.table import buckets

# ----- rooms ----------------------------------------------------------------------

ROOM_PATTERN = "game:{*}:room"  # SCAN: every room


def _room_part(room_id: str, part: str) -> str:
    return f"game:{{{room_id}}}:{part}"


def room_key(room_id: str) -> str:
    return _room_part(room_id, "room")


def room_of_key(key: str) -> str:
    """The room id a `game:{<room>}:…` key names."""
    return key[len("game:{") : key.index("}:")]


def room_part_key(room_id: str, part: str) -> str:
    """One of the keys kept beside a room (service.table.privacy.ROOM_PARTS)."""
    return _room_part(room_id, part)


def live_key(room_id: str) -> str:
    """When each player last acted or was prompted (`<user>`), and for which turn
    (`<user>:turn`): whether their next turn comes as a new, notifying message."""
    return _room_part(room_id, "live")


def moves_key(room_id: str) -> str:
    """The moves each human may press and have queued in the room's phase (aclaim)."""
    return _room_part(room_id, "moves")


def presses_key(room_id: str) -> str:
    """The room's presses queued for a worker, oldest first (QueuedPress.arg): every
    change applies them first, and its commit takes them off (service.infra.commit)."""
    return _room_part(room_id, "presses")


def msgs_key(room_id: str) -> str:
    """The outbox's message id of each of the room's targets."""
    return _room_part(room_id, "msgs")


def sent_key(room_id: str) -> str:
    """The outbox's digest of what each of the room's targets shows."""
    return _room_part(room_id, "sent")


def msgs_pattern(part: Literal["msgs", "sent"]) -> str:
    """SCAN: every room's `msgs` (or `sent`) hash."""
    return f"game:{{*}}:{part}"


def blocked_notices_key(room_id: str) -> str:
    return _room_part(room_id, "blocked_notices")


def answer_key(room_id: str, user: int) -> str:
    """What a player asked to be answered with their hand in the group, alone (a press's
    or an ephemeral command's id: service.desk.showing), until the outbox answers it."""
    return _room_part(room_id, f"answer:{user}")


def lock_key(room_id: str, target: str) -> str:
    """The outbox's lock on one of the room's messages."""
    return _room_part(room_id, f"lock:{target}")


def chat_key(chat_id: int, thread_id: int | None) -> str:
    return f"chat:{chat_id}:{thread_id or 0}"


CHAT_PATTERN = "chat:*"  # SCAN: every chat's open room


def chat_pattern(chat_id: int) -> str:
    """SCAN: the open room of each of a chat's topics."""
    return f"chat:{chat_id}:*"


# ----- people ---------------------------------------------------------------------


def user_key(user_id: int) -> str:
    return f"user:{user_id}"


# A person's choice of how their hand is shown (a field of `user_key`, set by /look):
# LOOK_TEXT, as text; absent (or anything else), drawn where their chat can draw it.
USER_LOOK = "look"
LOOK_TEXT = "text"
LOOK_PICTURES = "pictures"


def user_rooms_key(user_id: int) -> str:
    """The rooms a person sat in (the people index: forgetting needs no scan)."""
    return f"user:{user_id}:rooms"


def user_seated_key(user_id: int) -> str:
    """The open rooms a person sat down at (a room found closed is dropped), and
    `SEATED_BUILT` once the set was made: the screens that name their table look here,
    not at every room the person ever sat in."""
    return f"open:seated:{user_id}"


SEATED_BUILT = "*"  # a member of every `user_seated_key` set made (an empty one is gone)


def user_hints_key(user_id: int) -> str:
    """The hints a person has been shown, each with where it was first (the phase it
    stays shown through)."""
    return f"user:{user_id}:hints"


def user_chats_key(user_id: int | str) -> str:
    """The chats a person has statistics in (the people index)."""
    return f"user:{user_id}:chats"


def chat_stats_key(chat_id: int | str) -> str:
    return f"stats:chat:{chat_id}"


def user_stats_key(user_id: int) -> str:
    return f"stats:user:{user_id}"


def chat_open_key(chat_id: int) -> str:
    """The rooms opened in a chat (its cap)."""
    return f"open:chat:{chat_id}"


def user_open_key(user_id: int) -> str:
    """The rooms a person opened (their cap)."""
    return f"open:user:{user_id}"


def rules_cooldown_key(chat_id: int, thread_id: int | None) -> str:
    """The rules posted in a chat's topic lately."""
    return f"cooldown:rules:{chat_id}:{thread_id or 0}"


def chatter_cooldown_key(user_id: int) -> str:
    """A person answered lately for chatting to the bot."""
    return f"cooldown:chatter:{user_id}"


def knock_cooldown_key(room_id: str) -> str:
    """A table's owner told lately that someone followed its link and was not seated
    (it names no visitor)."""
    return f"cooldown:knock:{room_id}"


# ----- updates --------------------------------------------------------------------


def update_key(update_id: int | str) -> str:
    """An update's dedupe mark (service.infra.store.claims)."""
    return f"update:{update_id}"


UPDATE_PATTERN = "update:*"  # SCAN: every dedupe mark

# ----- indexes (sorted sets, a key per bucket) ------------------------------------

Index = Literal["rooms:due", "sync:pending", "presses:pending", "rooms:idle", "rooms:timers"]
DUE_KEY: Index = "rooms:due"  # playing room id -> when it next needs a job
PENDING_SYNC: Index = "sync:pending"  # "<room>|<target>" -> since when it waits
PENDING_PRESSES: Index = "presses:pending"  # QueuedPress.member -> when it was answered
IDLE_KEY: Index = "rooms:idle"  # open room id -> when it ends if nobody acts in it
TIMERS_KEY: Index = "rooms:timers"  # room id -> when its phase's next timer is due
INDEXES: tuple[Index, ...] = (DUE_KEY, PENDING_SYNC, PENDING_PRESSES, IDLE_KEY, TIMERS_KEY)


def bucket_key(index: Index, bucket: int) -> str:
    """One bucket of an index (its key before buckets was the index's name alone)."""
    return f"{index}:{{{buckets.tag(bucket)}}}"


def index_key(index: Index, room_id: str) -> str:
    """The bucket of an index that holds a room's entries."""
    return bucket_key(index, buckets.bucket_of(room_id))


# ----- Telegram -------------------------------------------------------------------

BOT_USERNAME = "bot:username"  # the bot's username, as getMe said last
BOT_INLINE = "bot:inline"  # "1" or "0", as getMe's supports_inline_queries said last
BOT_EPHEMERAL = "bot:ephemeral"  # "1" or "0": the Bot API took an ephemeral probe (botfather)
BOT_WIDGETS = "bot:widgets"  # "1" or "0": the Bot API took a widget probe (botfather)
BOT_LIMIT = "limit:bot"  # the bot's send slots
VIEW_CHANNEL = "view:changed"  # a room's id, published with each committed change of it


def chat_limit_key(chat_id: int) -> str:
    """A chat's send slots."""
    return f"limit:chat:{chat_id}"


def group_limit_key(chat_id: int) -> str:
    """A group's send slots (a tighter limit than a chat's)."""
    return f"limit:group:{chat_id}"


def widgets_key(chat_id: int) -> str:
    """Our widget messages in a chat, each with its caption's digest (telegram.delivery)."""
    return f"widgets:{chat_id}"


def notice_key(notice_id: str) -> str:
    """A notice's parameters, waiting for its job."""
    return f"notice:{notice_id}"


def notices_key(chat_id: int) -> str:
    """The notices waiting in a chat."""
    return f"notices:{chat_id}"


# ----- WhatsApp -------------------------------------------------------------------

WA_NEXT = "wa:next"  # the counter WhatsApp people's player ids are made from


def wa_update_id(wamid: str) -> str:
    """A WhatsApp message as an update id (its dedupe mark is `update:wa:<wamid>`)."""
    return f"wa:{wamid}"


def wa_id_key(bsuid: str) -> str:
    """The player id of a WhatsApp person."""
    return f"wa:id:{bsuid}"


def wa_seq_key(player: int) -> str:
    """The number of the person's newest message from us."""
    return f"wa:seq:{player}"


def wa_pace_key(player: int) -> str:
    """The pace of the messages sent to the person."""
    return f"wa:pace:{player}"


def wa_template_key(player: int) -> str:
    """When the person's turn template last went."""
    return f"wa:template:{player}"


def wa_sent_key(wamid: str) -> str:
    """The room a message we sent showed (a status about it names the message only)."""
    return f"wa:sent:{wamid}"


def wa_stale_key(message_id: str) -> str:
    """A stale tap on one message answered already."""
    return f"wa:stale:{message_id}"
