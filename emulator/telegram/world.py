"""The emulated Telegram: users, bots, chats, their messages, pending queries, files,
and the log of everything that happened. Lives on the server's event loop; nothing here
does I/O.
"""

from __future__ import annotations

import itertools
import re
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from emulator.common.events import EventBus
from emulator.config import EmulatorConfig
from emulator.telegram.errors import ApiError, bad_request, forbidden, unauthorized
from emulator.telegram.formatting import Entity

JSON = dict[str, Any]

# What a bot that is an admin may do, as ChatMemberAdministrator names it.
ADMIN_RIGHTS: JSON = {
    "can_be_edited": False,
    "is_anonymous": False,
    "can_manage_chat": True,
    "can_delete_messages": True,
    "can_manage_video_chats": False,
    "can_restrict_members": False,
    "can_promote_members": False,
    "can_change_info": False,
    "can_invite_users": True,
    "can_post_stories": False,
    "can_edit_stories": False,
    "can_delete_stories": False,
}

# Member statuses, as getChatMember names them.
CREATOR = "creator"
ADMINISTRATOR = "administrator"
MEMBER = "member"
LEFT = "left"
KICKED = "kicked"
PRESENT = (CREATOR, ADMINISTRATOR, MEMBER)
ADMINS = (CREATOR, ADMINISTRATOR)

# The shared identities Telegram puts in `from` when a message is not sent as a user:
# an anonymous group admin (with `sender_chat` the group) and a channel (`sender_chat`
# the channel).
GROUP_ANONYMOUS_BOT = 1087968824
CHANNEL_BOT = 136817688
UPGRADED = "group chat was upgraded to a supergroup chat"
TOPIC_COLORS = (7322096, 16766590, 13338331, 9367192, 16749490, 16478047)


_TOKEN_RE = re.compile(r"[1-9][0-9]{0,14}:[A-Za-z0-9_-]+")

# Answered callback and inline queries kept for the log; older ones are forgotten.
MAX_QUERIES = 20_000


def valid_token(token: str) -> bool:
    """A bot token has Telegram's form: `<bot id>:<secret>`."""
    return bool(_TOKEN_RE.fullmatch(token))


@dataclass
class Account:
    """A user or a bot."""

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None
    is_bot: bool = False

    def to_api(self) -> JSON:
        out: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            out["last_name"] = self.last_name
        if self.username:
            out["username"] = self.username
        if self.language_code and not self.is_bot:
            out["language_code"] = self.language_code
        return out

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name


@dataclass
class Webhook:
    url: str
    secret_token: str | None = None
    max_connections: int = 40
    allowed_updates: tuple[str, ...] = ()
    ip_address: str | None = None


@dataclass
class Bot:
    account: Account
    token: str
    privacy_mode: bool = True  # BotFather's /setprivacy
    inline_mode: bool = False  # /setinline: inline queries reach the bot
    inline_placeholder: str = ""  # /setinline's placeholder text
    inline_feedback: int = 0  # /setinlinefeedback: percent of chosen results reported
    webhook: Webhook | None = None
    commands: dict[str, list[JSON]] = field(default_factory=dict)
    profile: dict[str, str] = field(default_factory=dict)
    mini_apps: dict[str, str] = field(default_factory=dict)  # /newapp: short name -> URL
    # Like Telegram, update ids go on growing across restarts (a bot dedupes by them):
    # start from the clock, so a restarted emulator never repeats an earlier run's ids.
    next_update_id: int = field(default_factory=lambda: int(time.time() * 10) % 2**31)

    @property
    def id(self) -> int:
        return self.account.id

    @property
    def username(self) -> str:
        assert self.account.username is not None
        return self.account.username

    def new_update_id(self) -> int:
        self.next_update_id += 1
        return self.next_update_id - 1

    def menu(self, private: bool, language_code: str | None) -> list[JSON]:
        """The command menu a user sees in a private chat or a group, as Telegram picks
        it: the chat kind's list in their language, then in none, then the default
        scope's (setMyCommands keys: scope|chat|user|language)."""
        kind = "all_private_chats" if private else "all_group_chats"
        lang = (language_code or "")[:2].lower()
        for scope in (kind, "default"):
            for code in (lang, ""):
                found = self.commands.get(f"{scope}|||{code}")
                if found:
                    return found
        return []


@dataclass
class Topic:
    """A forum topic: its id is the id of the message that created it."""

    id: int
    name: str
    icon_color: int
    creator_id: int
    closed: bool = False

    def to_api(self) -> JSON:
        return {"message_thread_id": self.id, "name": self.name, "icon_color": self.icon_color}


@dataclass
class Chat:
    id: int
    type: str  # "private", "group", "supergroup", "channel"
    title: str | None = None
    user: Account | None = None  # for a private chat: the user
    members: dict[int, str] = field(default_factory=dict)  # account id -> status
    is_forum: bool = False  # a supergroup with topics
    topics: dict[int, Topic] = field(default_factory=dict)  # open or closed, not deleted
    migrated_to: int | None = None  # a group upgraded to this supergroup

    def to_api(self) -> JSON:
        if self.type == "private":
            assert self.user is not None
            out: JSON = {"id": self.id, "type": "private", "first_name": self.user.first_name}
            if self.user.last_name:
                out["last_name"] = self.user.last_name
            if self.user.username:
                out["username"] = self.user.username
            return out
        out = {"id": self.id, "type": self.type, "title": self.title}
        if self.is_forum:
            out["is_forum"] = True
        return out

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")


@dataclass
class Message:
    chat_id: int
    scope: int  # the bot's id in a private chat (each bot has its own), 0 in a group
    message_id: int
    sender_id: int
    date: int
    text: str | None = None
    entities: list[Entity] = field(default_factory=list)
    caption: str | None = None
    caption_entities: list[Entity] = field(default_factory=list)
    document: JSON | None = None
    reply_markup: JSON | None = None  # inline keyboards only
    via_bot_id: int | None = None
    reply_to_message_id: int | None = None
    edit_date: int | None = None
    inline_message_id: str | None = None
    service: JSON | None = None  # new_chat_members, left_chat_member, ...
    thread_id: int | None = None  # the forum topic it was sent in
    sender_chat_id: int | None = None  # sent on behalf of a chat (anonymous admin, channel)
    deleted: bool = False
    history: list[JSON] = field(default_factory=list)  # earlier versions, oldest first
    silent: bool = False  # sent with disable_notification
    notified: list[int] = field(default_factory=list)  # the users it notified
    # An ephemeral message (a group message one user sees): its id among the chat's
    # ephemeral messages (message_id is 0), who sees it (a bot's: the user it was sent
    # to; a user's ephemeral command: the bot), the message it stands in place of for
    # that user, and whether it reached them (not to an offline user; gone after a
    # restart of their app). See `ephemeral.py`.
    ephemeral_id: int | None = None
    receiver_id: int | None = None
    replaces: int | None = None
    reached: bool = True
    created: float = 0.0  # time.monotonic() when sent: the 15-second reply window
    after: int = 0  # an ephemeral message comes after this message of its chat
    # A widget message (Bot API 10.4, `widgets.py`): the Widget object Message.widget
    # carries, whether it may send queries (allow_queries), and protected content.
    widget: JSON | None = None
    widget_queries: bool = False
    protected: bool = False

    @property
    def is_ephemeral(self) -> bool:
        return self.ephemeral_id is not None

    def seen_by(self, user_id: int) -> bool:
        """Whether the user's app shows this message: any message but an ephemeral one
        of another user's, or one that never reached them."""
        if not self.is_ephemeral or user_id == self.sender_id:
            return True
        return self.reached and user_id == self.receiver_id


@dataclass
class Conversation:
    """What one chat shows: a group, or a user's private chat with one bot."""

    chat: Chat
    scope: int
    messages: dict[int, Message] = field(default_factory=dict)
    next_message_id: int = 1
    reply_keyboard: JSON | None = None
    # ephemeral messages by their own ids (a group's only); not kept across restarts
    ephemeral: dict[int, Message] = field(default_factory=dict)
    next_ephemeral_id: int = 1

    def new_message_id(self) -> int:
        self.next_message_id += 1
        return self.next_message_id - 1

    def new_ephemeral_id(self) -> int:
        self.next_ephemeral_id += 1
        return self.next_ephemeral_id - 1


@dataclass
class CallbackQuery:
    id: str
    bot_id: int
    user_id: int
    data: str
    chat_id: int | None
    scope: int
    message_id: int | None
    inline_message_id: str | None
    created: float
    answer: JSON | None = None
    ephemeral_message_id: int | None = None  # a press on an ephemeral message
    ephemeral_replies: int = 0  # ephemeral messages sent in answer to it


@dataclass
class InlineQuery:
    id: str
    bot_id: int
    user_id: int
    query: str
    offset: str
    chat_id: int | None
    scope: int
    created: float
    answer: JSON | None = None


@dataclass
class StoredFile:
    file_id: str
    file_unique_id: str
    file_name: str
    mime_type: str
    content: bytes
    file_path: str


class World:
    def __init__(self, config: EmulatorConfig) -> None:
        self.config = config
        self.users: dict[int, Account] = {}
        self.bots: dict[int, Bot] = {}
        self.chats: dict[int, Chat] = {}
        self.conversations: dict[tuple[int, int], Conversation] = {}
        self.started: set[tuple[int, int]] = set()  # (bot id, user id)
        self.offline: set[int] = set()  # users whose app is offline (ephemeral messages)
        self.time_zones: dict[int, str] = {}  # user id -> IANA zone their app shows times in
        self.blocked: set[tuple[int, int]] = set()
        self.callback_queries: dict[str, CallbackQuery] = {}
        self.inline_queries: dict[str, InlineQuery] = {}
        self.inline_messages: dict[str, tuple[int, int, int]] = {}
        self.files: dict[str, StoredFile] = {}
        self.log: deque[JSON] = deque(maxlen=config.log_limit)
        self.events = EventBus()
        self._seq = itertools.count(1)
        self._ids = itertools.count(1)
        self.changes = 0  # bumped with each call and update logged: persist.keep saves then
        self._load_cast()
        self._load_system_accounts()

    # ----- setup -------------------------------------------------------------

    def _load_cast(self) -> None:
        by_name: dict[str, Account] = {}
        for spec in self.config.cast.users:
            user = Account(
                spec.id, spec.first_name, spec.last_name, spec.username, spec.language_code
            )
            self.users[user.id] = user
            by_name[spec.first_name] = user
            self.chats[user.id] = Chat(user.id, "private", user=user)
        for group in self.config.cast.groups:
            chat = Chat(group.id, group.type, title=group.title)
            for name in group.members:
                chat.members[by_name[name].id] = CREATOR if name == group.owner else MEMBER
            self.chats[chat.id] = chat
            self.conversations[(chat.id, 0)] = Conversation(chat, 0)

    def _load_system_accounts(self) -> None:
        """The identities of messages not sent as a user (never users of the cast)."""
        self.system: dict[int, Account] = {
            GROUP_ANONYMOUS_BOT: Account(
                GROUP_ANONYMOUS_BOT, "Group", username="GroupAnonymousBot", is_bot=True
            ),
            CHANNEL_BOT: Account(CHANNEL_BOT, "Channel", username="Channel_Bot", is_bot=True),
        }

    def new_id(self) -> int:
        return next(self._ids)

    def renumber_files(self, start: int) -> None:
        """New files are numbered from `start` on (a world restored with its files)."""
        self._ids = itertools.count(start)

    def forget_old_queries(self) -> None:
        """Keep the query tables bounded in a long run (a soak test, a day of play)."""
        for table in (self.callback_queries, self.inline_queries):
            while len(table) > MAX_QUERIES:
                del table[next(iter(table))]

    def now(self) -> int:
        return int(time.time())

    # ----- bots --------------------------------------------------------------

    def bot_for_token(self, token: str) -> Bot:
        """The bot a token stands for, created on first sight; 401 for a malformed token."""
        if not valid_token(token):
            raise unauthorized()
        bot_id = int(token.partition(":")[0])
        bot = self.bots.get(bot_id)
        if bot is None:
            return self.add_bot(token)
        if bot.token != token:
            raise unauthorized()
        return bot

    def add_bot(self, token: str) -> Bot:
        bot_id = int(token.partition(":")[0])
        if bot_id in self.users:
            raise unauthorized()
        username = self.config.bot_username if not self.bots else f"burro{len(self.bots) + 1}_bot"
        account = Account(bot_id, self.config.bot_first_name, username=username, is_bot=True)
        bot = Bot(
            account,
            token,
            privacy_mode=self.config.privacy_mode,
            inline_mode=self.config.inline_mode,
            inline_placeholder=self.config.inline_placeholder,
            inline_feedback=self.config.inline_feedback,
        )
        self.bots[bot_id] = bot
        for spec in self.config.cast.users:
            self.conversations[(spec.id, bot_id)] = Conversation(self.chats[spec.id], bot_id)
            if spec.started_bot:
                self.started.add((bot_id, spec.id))
        for group in self.config.cast.groups:
            if group.bot_member:
                self.chats[group.id].members[bot_id] = MEMBER
        self.events.publish({"type": "world"})
        return bot

    def account(self, account_id: int) -> Account:
        if account_id in self.users:
            return self.users[account_id]
        if account_id in self.system:
            return self.system[account_id]
        return self.bots[account_id].account

    # ----- conversations -----------------------------------------------------

    def conversation(self, chat_id: int, scope: int) -> Conversation:
        conv = self.conversations.get((chat_id, scope))
        if conv is None:
            raise bad_request("chat not found")
        return conv

    def bot_conversation(self, bot: Bot, chat_ref: int | str) -> Conversation:
        """The conversation a bot means by a chat_id; 400 when it does not know the chat."""
        chat = self._chat_by_ref(chat_ref)
        if chat is None:
            raise bad_request("chat not found")
        if chat.type == "private":
            return self.conversation(chat.id, bot.id)
        if chat.id not in self.chats or bot.id not in chat.members:
            raise bad_request("chat not found")
        if chat.migrated_to is not None:
            raise ApiError(400, f"Bad Request: {UPGRADED}", migrate_to_chat_id=chat.migrated_to)
        return self.conversation(chat.id, 0)

    def topic_to_write(self, bot: Bot, conv: Conversation, thread_id: int | None) -> int | None:
        """The forum topic a bot's new message goes to (400 for a deleted topic, or a
        closed one unless the bot is an admin); None for General or a chat without topics."""
        if thread_id is None:
            return None
        chat = conv.chat
        topic = chat.topics.get(thread_id) if chat.is_forum else None
        if topic is None:
            if chat.is_forum or chat.type == "supergroup":
                raise bad_request("message thread not found")
            return None  # a reply chain in a basic group: Telegram ignores it
        if topic.closed and chat.members.get(bot.id) not in ADMINS:
            raise bad_request("TOPIC_CLOSED")
        return topic.id

    def _chat_by_ref(self, chat_ref: int | str) -> Chat | None:
        if isinstance(chat_ref, int):
            return self.chats.get(chat_ref)
        name = chat_ref.removeprefix("@").lower()
        for user in self.users.values():
            if user.username and user.username.lower() == name:
                return self.chats[user.id]
        return None

    def check_can_write(self, bot: Bot, conv: Conversation) -> None:
        """Telegram's 403s: a user who never started the bot, blocked it, or a group the
        bot is not in."""
        chat = conv.chat
        if chat.type == "private":
            if (bot.id, chat.id) in self.blocked:
                raise forbidden("bot was blocked by the user")
            if (bot.id, chat.id) not in self.started:
                raise forbidden("bot can't initiate conversation with a user")
            return
        status = chat.members.get(bot.id, LEFT)
        kind = "supergroup chat" if chat.type == "supergroup" else "group chat"
        if status == KICKED:
            raise forbidden(f"bot was kicked from the {kind}")
        if status not in PRESENT:
            raise forbidden(f"bot is not a member of the {kind}")

    def add_message(self, conv: Conversation, message: Message) -> Message:
        conv.messages[message.message_id] = message
        message.notified = self.recipients(conv, message)
        for user_id in message.notified:
            self.record(
                "notification",
                user_id=user_id,
                chat_id=message.chat_id,
                scope=message.scope,
                message_id=message.message_id,
                text=message.text or message.caption or "",
            )
        self.publish_message(message)
        return message

    def add_ephemeral(self, conv: Conversation, message: Message) -> Message:
        """An ephemeral message: its own id, and a notification for its receiver only
        (when it reaches them)."""
        message.ephemeral_id = conv.new_ephemeral_id()
        message.after = conv.next_message_id - 1
        conv.ephemeral[message.ephemeral_id] = message
        receiver = message.receiver_id
        if receiver in self.users and message.reached and not message.silent:
            message.notified = [receiver]
            self.record(
                "notification",
                user_id=receiver,
                chat_id=message.chat_id,
                scope=message.scope,
                message_id=0,
                ephemeral_message_id=message.ephemeral_id,
                text=message.text or message.caption or "",
            )
        self.publish_message(message)
        return message

    def visible_messages(self, conv: Conversation, user_id: int | None) -> list[Message]:
        """A chat as one user's app shows it (None: as everyone sees it, no ephemeral
        message): their ephemeral messages in order, one shown in place of the pressed
        message standing where that message stood."""
        if user_id is None:
            return list(conv.messages.values())
        mine = [m for m in conv.ephemeral.values() if m.seen_by(user_id)]
        in_place = {m.replaces: m for m in mine if m.replaces is not None and not m.deleted}
        placed = {id(m) for m in in_place.values()}
        following: dict[int, list[Message]] = {}
        for message in mine:
            if id(message) not in placed:
                following.setdefault(message.after, []).append(message)
        shown = following.get(0, [])
        for message in conv.messages.values():
            shown.append(in_place.get(message.message_id, message))
            shown += following.get(message.message_id, [])
        return shown

    def recipients(self, conv: Conversation, message: Message) -> list[int]:
        """The users a new message notifies: everyone in the chat but its sender, unless
        it was sent silently (an edit notifies nobody; a service message neither)."""
        if message.silent or message.service:
            return []
        chat = conv.chat
        if chat.type == "private":
            members = [chat.user.id] if chat.user is not None else []
        else:
            members = [i for i, status in chat.members.items() if status in PRESENT]
        return [i for i in members if i in self.users and i != message.sender_id]

    def find_message(self, chat_id: int, scope: int, message_id: int) -> Message | None:
        conv = self.conversations.get((chat_id, scope))
        if conv is None:
            return None
        message = conv.messages.get(message_id)
        if message is None or message.deleted:
            return None
        return message

    def find_inline_message(self, inline_message_id: str) -> Message | None:
        where = self.inline_messages.get(inline_message_id)
        return self.find_message(*where) if where else None

    # ----- JSON shapes -------------------------------------------------------

    def message_json(self, message: Message, *, with_reply: bool = True) -> JSON:
        chat = self.chats[message.chat_id]
        out: JSON = {
            "message_id": message.message_id,
            "from": self.account(message.sender_id).to_api(),
            "chat": chat.to_api(),
            "date": message.date,
        }
        if message.is_ephemeral and message.receiver_id is not None:
            out["receiver_user"] = self.account(message.receiver_id).to_api()
            out["ephemeral_message_id"] = message.ephemeral_id
        if message.sender_chat_id is not None:
            out["sender_chat"] = self.chats[message.sender_chat_id].to_api()
        if message.thread_id is not None:
            out["message_thread_id"] = message.thread_id
            out["is_topic_message"] = True
        if message.edit_date is not None:
            out["edit_date"] = message.edit_date
        if with_reply and message.reply_to_message_id is not None:
            replied = self.conversation(message.chat_id, message.scope).messages.get(
                message.reply_to_message_id
            )
            if replied is not None and not replied.deleted:
                out["reply_to_message"] = self.message_json(replied, with_reply=False)
        if message.via_bot_id is not None:
            out["via_bot"] = self.account(message.via_bot_id).to_api()
        if message.text is not None:
            out["text"] = message.text
            if message.entities:
                out["entities"] = message.entities
        if message.document is not None:
            out["document"] = message.document
        if message.widget is not None:
            out["widget"] = message.widget
        if message.protected:
            out["has_protected_content"] = True
        if message.caption:
            out["caption"] = message.caption
            if message.caption_entities:
                out["caption_entities"] = message.caption_entities
        if message.service:
            out.update(message.service)
        if message.reply_markup is not None:
            out["reply_markup"] = message.reply_markup
        return out

    def message_view(self, message: Message) -> JSON:
        """A message as the web chat and the control API show it."""
        view = self.message_json(message)
        sender = self.account(message.sender_id)
        view["_emulator"] = {
            "scope": message.scope,
            "deleted": message.deleted,
            "sender_name": sender.name,
            "inline_message_id": message.inline_message_id,
            "history": message.history,
            "notified": message.notified,
        }
        if message.is_ephemeral:
            view["_emulator"].update(
                receiver_id=message.receiver_id,
                replaces=message.replaces,
                reached=message.reached,
            )
        return view

    def publish_message(self, message: Message) -> None:
        self.events.publish({"type": "message", "message": self.message_view(message)})

    # ----- log ---------------------------------------------------------------

    def record(self, kind: str, **fields: Any) -> JSON:
        entry: JSON = {"seq": next(self._seq), "time": time.time(), "kind": kind, **fields}
        self.changes += 1
        self.log.append(entry)
        return entry

    def entries(self, since: int = 0) -> Iterator[JSON]:
        return (entry for entry in self.log if entry["seq"] > since)

    # ----- lookups for the control API ---------------------------------------

    def find_user(self, ref: int | str) -> Account:
        if isinstance(ref, int) or (isinstance(ref, str) and ref.lstrip("-").isdigit()):
            user = self.users.get(int(ref))
            if user is None:
                raise LookupError(f"no user {ref}")
            return user
        name = ref.removeprefix("@").lower()
        for user in self.users.values():
            if user.first_name.lower() == name or (user.username or "").lower() == name:
                return user
        raise LookupError(f"no user {ref!r}")

    def find_bot(self, ref: int | str | None) -> Bot:
        if ref is None:
            if not self.bots:
                raise LookupError("no bot has connected yet")
            return next(iter(self.bots.values()))
        if isinstance(ref, int) or ref.isdigit():
            bot = self.bots.get(int(ref))
        else:
            name = ref.removeprefix("@").lower()
            bot = next((b for b in self.bots.values() if b.username.lower() == name), None)
        if bot is None:
            raise LookupError(f"no bot {ref!r}")
        return bot

    def find_conversation(self, ref: int | str, bot: int | str | None = None) -> Conversation:
        """A group by id or title, or a private chat by its user (id, name, username)."""
        chat: Chat | None = None
        if isinstance(ref, int) or ref.lstrip("-").isdigit():
            chat = self.chats.get(int(ref))
        else:
            title = ref.lower()
            chat = next(
                # an upgraded group's title names its supergroup now
                (
                    c
                    for c in self.chats.values()
                    if c.title and c.title.lower() == title and c.migrated_to is None
                ),
                None,
            )
            if chat is None:
                chat = self.chats[self.find_user(ref).id]
        if chat is None:
            raise LookupError(f"no chat {ref!r}")
        if chat.is_group:
            return self.conversations[(chat.id, 0)]
        return self.conversations[(chat.id, self.find_bot(bot).id)]
