"""What the cast's users do: write, tap buttons, use inline mode, follow links, block
or add the bot. Each action changes the world and queues the updates Telegram would send
to each bot concerned.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlparse

from emulator.telegram import forum
from emulator.telegram.errors import ApiError
from emulator.telegram.formatting import detect_entities, utf16_len
from emulator.telegram.webapp import open_by_button, open_by_link
from emulator.telegram.webhook import Delivery
from emulator.telegram.world import (
    ADMIN_RIGHTS,
    ADMINISTRATOR,
    ADMINS,
    CHANNEL_BOT,
    CREATOR,
    GROUP_ANONYMOUS_BOT,
    JSON,
    KICKED,
    LEFT,
    MEMBER,
    PRESENT,
    Account,
    Bot,
    CallbackQuery,
    Chat,
    Conversation,
    InlineQuery,
    Message,
    World,
)

_T = TypeVar("_T")
MAX_USER_TEXT = 4096
MAX_INLINE_QUERY = 256


class ActionError(Exception):
    """A user action the emulated client would not allow."""


class UserActions:
    def __init__(self, world: World, delivery: Callable[[Bot], Delivery]) -> None:
        self.world = world
        self.delivery = delivery

    # ----- helpers -----------------------------------------------------------

    def _send_update(self, bot: Bot, kind: str, payload: JSON, chat_key: int) -> int:
        update_id = bot.new_update_id()
        self.delivery(bot).enqueue({"update_id": update_id, kind: payload}, chat_key)
        return update_id

    def _bots_receiving(self, conv: Conversation, message: Message) -> list[Bot]:
        """Which bots get a message update for a user's message (privacy mode rules)."""
        if conv.chat.type == "private":
            return [self.world.bots[conv.scope]]
        receivers: list[Bot] = []
        for bot in self.world.bots.values():
            if conv.chat.members.get(bot.id) not in PRESENT:
                continue
            admin = conv.chat.members.get(bot.id) == ADMINISTRATOR  # admins see everything
            if not bot.privacy_mode or admin or self._meant_for(bot, conv, message):
                receivers.append(bot)
        return receivers

    def _meant_for(self, bot: Bot, conv: Conversation, message: Message) -> bool:
        if message.service or message.via_bot_id == bot.id:
            return True
        if message.reply_to_message_id is not None:
            replied = conv.messages.get(message.reply_to_message_id)
            if replied is not None and replied.sender_id == bot.id:
                return True
        text = message.text or ""
        if _mentions(bot, text, message.entities):
            return True
        match = re.match(r"/[A-Za-z0-9_]+(?:@([A-Za-z0-9_]+))?", text)
        if match:
            target = match.group(1)
            return target is None or target.lower() == bot.username.lower()
        return False

    def _member_check(self, user: Account, conv: Conversation) -> None:
        if conv.chat.migrated_to is not None:
            raise ActionError(f"{conv.chat.title} was upgraded to a supergroup")
        if conv.chat.is_group and conv.chat.members.get(user.id) not in PRESENT:
            raise ActionError(f"{user.first_name} is not a member of {conv.chat.title}")
        if conv.chat.type == "private" and conv.chat.id != user.id:
            raise ActionError(f"{user.first_name} cannot write in another user's private chat")

    def _deliver_message(self, conv: Conversation, message: Message) -> list[int]:
        payload = self.world.message_json(message)
        return [
            self._send_update(bot, "message", payload, conv.chat.id)
            for bot in self._bots_receiving(conv, message)
        ]

    # ----- messages ----------------------------------------------------------

    def send_message(
        self,
        user: Account,
        conv: Conversation,
        text: str,
        reply_to: int | None = None,
        thread_id: int | None = None,
        send_as: str | None = None,
    ) -> Message:
        """A user writes; in a forum, in topic `thread_id` (None: General); `send_as`
        "anonymous" (an admin hiding behind the group) or "channel" (their channel)."""
        self._member_check(user, conv)
        topic = self._user_topic(user, conv, thread_id)
        sender_id, sender_chat = self._sender(user, conv, send_as)
        text = text.strip()
        if not text:
            raise ActionError("empty message")
        if utf16_len(text) > MAX_USER_TEXT:
            raise ActionError("message is too long")
        if conv.chat.type == "private":
            key = (conv.scope, user.id)
            if key in self.world.blocked:  # writing again restarts the bot
                self.world.blocked.discard(key)
                self._my_chat_member(self.world.bots[conv.scope], conv, user, KICKED, MEMBER)
            self.world.started.add(key)
        if (
            reply_to is not None
            and self.world.find_message(conv.chat.id, conv.scope, reply_to) is None
        ):
            raise ActionError(f"no message {reply_to} to reply to")
        ephemeral_bot = self._ephemeral_command_bot(user, conv, text) if not send_as else None
        if ephemeral_bot is not None:
            return self._ephemeral_command(user, conv, text, ephemeral_bot, topic)
        message = Message(
            chat_id=conv.chat.id,
            scope=conv.scope,
            message_id=conv.new_message_id(),
            sender_id=sender_id,
            date=self.world.now(),
            text=text,
            entities=detect_entities(text),
            reply_to_message_id=reply_to,
            thread_id=topic,
            sender_chat_id=sender_chat,
        )
        self.world.add_message(conv, message)
        self._deliver_message(conv, message)
        return message

    def _ephemeral_command_bot(self, user: Account, conv: Conversation, text: str) -> Bot | None:
        """The bot whose group command menu marks this command `is_ephemeral`: the app
        sends it as an ephemeral message that only the user and that bot see."""
        match = re.match(r"/([A-Za-z0-9_]+)(?:@([A-Za-z0-9_]+))?(?:\s|$)", text)
        if match is None or not conv.chat.is_group:
            return None
        for bot in self.world.bots.values():
            if conv.chat.members.get(bot.id) not in PRESENT:
                continue
            if match.group(2) and match.group(2).lower() != bot.username.lower():
                continue
            for command in bot.menu(False, user.language_code):
                if command["command"] == match.group(1).lower() and command.get("is_ephemeral"):
                    return bot
        return None

    def _ephemeral_command(
        self, user: Account, conv: Conversation, text: str, bot: Bot, topic: int | None
    ) -> Message:
        message = Message(
            chat_id=conv.chat.id,
            scope=conv.scope,
            message_id=0,
            sender_id=user.id,
            date=self.world.now(),
            text=text,
            entities=detect_entities(text),
            thread_id=topic,
            receiver_id=bot.id,
            created=time.monotonic(),
        )
        self.world.add_ephemeral(conv, message)
        self._send_update(bot, "message", self.world.message_json(message), conv.chat.id)
        return message

    def _user_topic(self, user: Account, conv: Conversation, thread_id: int | None) -> int | None:
        if thread_id is None:
            return None
        topic = conv.chat.topics.get(thread_id)
        if topic is None:
            raise ActionError(f"no topic {thread_id} in {conv.chat.title or 'this chat'}")
        if topic.closed and conv.chat.members.get(user.id) not in ADMINS:
            raise ActionError(f"the topic {topic.name!r} is closed")
        return topic.id

    def _sender(
        self, user: Account, conv: Conversation, send_as: str | None
    ) -> tuple[int, int | None]:
        """(from, sender_chat) of a user's message."""
        if not send_as:
            return user.id, None
        if not conv.chat.is_group:
            raise ActionError("only in a group can one write as the group or a channel")
        if send_as == "anonymous":
            if conv.chat.members.get(user.id) not in ADMINS:
                raise ActionError(f"{user.first_name} is not an admin of {conv.chat.title}")
            return GROUP_ANONYMOUS_BOT, conv.chat.id
        if send_as == "channel":
            return CHANNEL_BOT, self._channel_of(user).id
        raise ActionError(f"unknown 'send_as' {send_as!r}: anonymous or channel")

    def _channel_of(self, user: Account) -> Chat:
        """The user's own channel (made on first use), to write in groups as."""
        channel_id = -1002000000000 - user.id
        channel = self.world.chats.get(channel_id)
        if channel is None:
            channel = Chat(channel_id, "channel", title=f"{user.first_name}'s channel")
            channel.members[user.id] = CREATOR
            self.world.chats[channel_id] = channel
        return channel

    def open_link(self, user: Account, url: str, chat: Chat | None = None) -> JSON:
        """Follow a link: `t.me/<bot>?start=<payload>` opens the bot's private chat and
        sends `/start <payload>`; `?startgroup=` adds the bot to the first group of the
        user's without it; `t.me/<bot>/<app>?startapp=` opens a Mini App (from `chat`)."""
        parsed = urlparse(url if "://" in url else f"https://{url}")
        if parsed.netloc.lower() not in ("t.me", "telegram.me"):
            return {"kind": "external", "url": url}
        username = parsed.path.strip("/").split("/")[0]
        bot = next(
            (b for b in self.world.bots.values() if b.username.lower() == username.lower()), None
        )
        if bot is None:
            raise ActionError(f"no bot @{username}")
        mini_app = open_by_link(bot, user, parsed.path, parsed.query, chat)
        if mini_app is not None:
            return mini_app
        query = parse_qs(parsed.query)
        conv = self.world.conversations[(user.id, bot.id)]
        if "start" in query or not query:
            payload = query.get("start", [""])[0]
            text = f"/start {payload}" if payload else "/start"
            message = self.send_message(user, conv, text)
            return {
                "kind": "start",
                "chat_id": conv.chat.id,
                "scope": conv.scope,
                "message_id": message.message_id,
            }
        return {"kind": "external", "url": url}

    # ----- buttons -----------------------------------------------------------

    def tap(
        self,
        user: Account,
        message: Message,
        button: str | int | tuple[int, int],
        target: Conversation | None = None,
        shown: str | None = None,
    ) -> JSON:
        """Tap an inline keyboard button, named by its text, its callback_data, its
        position (row, column) or its index counted across rows. `shown`: the
        callback_data of the button as the user's app draws it, which is what the app
        sends; Telegram refuses it when no button of the message holds it any more."""
        conv = self.world.conversation(message.chat_id, message.scope)
        self._member_check(user, conv)
        if not message.seen_by(user.id):
            raise ActionError(f"{user.first_name} does not see that ephemeral message")
        if shown is not None:
            return self._shown_callback(user, message, shown)
        found = self._find_button(message, button)
        if found is None:
            raise ActionError(f"no button {button!r} on message {message.message_id}")
        if "callback_data" in found:
            return self._callback(user, message, found["callback_data"])
        owner = message.via_bot_id or message.sender_id
        bot = self.world.bots.get(owner)
        if "switch_inline_query_current_chat" in found:
            assert bot is not None
            query = self.inline_query(user, bot, conv, found["switch_inline_query_current_chat"])
            return {"kind": "inline_query", "query_id": query.id, "query": query.query}
        if "switch_inline_query" in found:
            if target is None:
                return {"kind": "choose_chat", "query": found["switch_inline_query"]}
            assert bot is not None
            query = self.inline_query(user, bot, target, found["switch_inline_query"])
            return {"kind": "inline_query", "query_id": query.id, "query": query.query}
        if "url" in found:
            return {
                "kind": "url",
                "url": found["url"],
                "opened": self.open_link(user, found["url"], conv.chat),
            }
        if "copy_text" in found:
            return {"kind": "copy_text", "text": found["copy_text"].get("text")}
        if "web_app" in found and bot is not None:
            return open_by_button(bot, user, found["web_app"])
        kind = next(key for key in found if key != "text")
        return {"kind": "unsupported", "button": kind}

    def _shown_callback(self, user: Account, message: Message, shown: str) -> JSON:
        """A callback button's data as an app that has not yet drawn the message's edit
        sends it: refused as Telegram refuses it once the message's buttons changed."""
        rows: list[list[JSON]] = (message.reply_markup or {}).get("inline_keyboard", [])
        if all(b.get("callback_data") != shown for row in rows for b in row):
            raise ActionError("DATA_INVALID: the message's buttons changed since it was drawn")
        return self._callback(user, message, shown)

    def _find_button(self, message: Message, button: str | int | tuple[int, int]) -> JSON | None:
        rows: list[list[JSON]] = (message.reply_markup or {}).get("inline_keyboard", [])
        if isinstance(button, tuple):
            row, col = button
            if 0 <= row < len(rows) and 0 <= col < len(rows[row]):
                return rows[row][col]
            return None
        flat = [b for row in rows for b in row]
        if isinstance(button, int):
            return flat[button] if 0 <= button < len(flat) else None
        for key in ("text", "callback_data"):
            for candidate in flat:
                if candidate.get(key) == button:
                    return candidate
        return None

    def _callback(self, user: Account, message: Message, data: str) -> JSON:
        owner = message.via_bot_id if message.inline_message_id else message.sender_id
        bot = self.world.bots.get(owner or 0)
        if bot is None:
            raise ActionError("the message's keyboard belongs to no bot")
        query_id = str(secrets.randbits(62))
        payload: JSON = {
            "id": query_id,
            "from": user.to_api(),
            "chat_instance": str(abs(hash((message.chat_id, message.scope))) % 10**18),
            "data": data,
        }
        if message.inline_message_id:
            payload["inline_message_id"] = message.inline_message_id
        else:
            payload["message"] = self.world.message_json(message)
        self.world.forget_old_queries()
        self.world.callback_queries[query_id] = CallbackQuery(
            id=query_id,
            bot_id=bot.id,
            user_id=user.id,
            data=data,
            chat_id=message.chat_id,
            scope=message.scope,
            message_id=message.message_id,
            inline_message_id=message.inline_message_id,
            created=time.monotonic(),
            ephemeral_message_id=message.ephemeral_id,
        )
        update_id = self._send_update(bot, "callback_query", payload, message.chat_id)
        return {"kind": "callback", "query_id": query_id, "update_id": update_id}

    # ----- inline mode -------------------------------------------------------

    def inline_query(
        self, user: Account, bot: Bot, conv: Conversation | None, query: str, offset: str = ""
    ) -> InlineQuery:
        if not bot.inline_mode:  # the client gets BOT_INLINE_DISABLED; the bot hears nothing
            raise ActionError(
                f"@{bot.username} can't be used in inline mode (BotFather: /setinline)"
            )
        if len(query) > MAX_INLINE_QUERY:
            raise ActionError("inline query is too long")
        if conv is not None:
            self._member_check(user, conv)
        query_id = str(secrets.randbits(62))
        payload: JSON = {"id": query_id, "from": user.to_api(), "query": query, "offset": offset}
        if conv is not None:
            payload["chat_type"] = "sender" if conv.chat.type == "private" else conv.chat.type
        state = InlineQuery(
            id=query_id,
            bot_id=bot.id,
            user_id=user.id,
            query=query,
            offset=offset,
            chat_id=conv.chat.id if conv else None,
            scope=conv.scope if conv else 0,
            created=time.monotonic(),
        )
        self.world.forget_old_queries()
        self.world.inline_queries[query_id] = state
        self._send_update(bot, "inline_query", payload, user.id)
        return state

    def choose_inline_result(self, user: Account, query: InlineQuery, result_id: str) -> Message:
        if query.user_id != user.id:
            raise ActionError("that inline query is another user's")
        if query.answer is None:
            raise ActionError("the bot has not answered that inline query")
        result = next((r for r in query.answer["results"] if r["id"] == result_id), None)
        if result is None:
            raise ActionError(f"no result {result_id!r} in the bot's answer")
        if query.chat_id is None:
            raise ActionError("that inline query has no chat to send to")
        bot = self.world.bots[query.bot_id]
        conv = self.world.conversation(query.chat_id, query.scope)
        content: JSON = result.get("input_message_content") or {}
        markup = result.get("reply_markup")
        message = Message(
            chat_id=conv.chat.id,
            scope=conv.scope,
            message_id=conv.new_message_id(),
            sender_id=user.id,
            date=self.world.now(),
            text=content.get("message_text") or f"[{result.get('type', 'result')}]",
            entities=list(content.get("entities") or []),
            reply_markup=markup,
            via_bot_id=bot.id,
        )
        chosen: JSON = {"result_id": result_id, "from": user.to_api(), "query": query.query}
        if markup is not None:
            message.inline_message_id = f"AgAAA{secrets.token_urlsafe(18)}"
            self.world.inline_messages[message.inline_message_id] = (
                conv.chat.id,
                conv.scope,
                message.message_id,
            )
            chosen["inline_message_id"] = message.inline_message_id
        self.world.add_message(conv, message)
        if secrets.randbelow(100) < bot.inline_feedback:  # BotFather's /setinlinefeedback
            self._send_update(bot, "chosen_inline_result", chosen, user.id)
        self._deliver_message(conv, message)
        return message

    # ----- membership --------------------------------------------------------

    def _my_chat_member(
        self, bot: Bot, conv: Conversation, user: Account, old: str, new: str
    ) -> None:
        def member(status: str) -> JSON:
            out: JSON = {"status": status, "user": bot.account.to_api()}
            if status == KICKED:
                out["until_date"] = 0
            if status == ADMINISTRATOR:
                out.update(ADMIN_RIGHTS)
            return out

        payload = {
            "chat": conv.chat.to_api(),
            "from": user.to_api(),
            "date": self.world.now(),
            "old_chat_member": member(old),
            "new_chat_member": member(new),
        }
        self._send_update(bot, "my_chat_member", payload, conv.chat.id)

    def block_bot(self, user: Account, bot: Bot) -> None:
        key = (bot.id, user.id)
        if key in self.world.blocked:
            return
        self.world.blocked.add(key)
        self._my_chat_member(bot, self.world.conversations[(user.id, bot.id)], user, MEMBER, KICKED)

    def unblock_bot(self, user: Account, bot: Bot) -> None:
        key = (bot.id, user.id)
        if key not in self.world.blocked:
            return
        self.world.blocked.discard(key)
        self._my_chat_member(bot, self.world.conversations[(user.id, bot.id)], user, KICKED, MEMBER)

    def add_bot_to_group(self, user: Account, bot: Bot, conv: Conversation) -> None:
        self._member_check(user, conv)
        old = conv.chat.members.get(bot.id, LEFT)
        if old in PRESENT:
            return
        conv.chat.members[bot.id] = MEMBER
        self._my_chat_member(bot, conv, user, old, MEMBER)
        self._service_message(
            user,
            conv,
            {"new_chat_members": [bot.account.to_api()], "new_chat_member": bot.account.to_api()},
        )
        self.world.events.publish({"type": "world"})

    def remove_bot_from_group(
        self, user: Account, bot: Bot, conv: Conversation, kick: bool = False
    ) -> None:
        """Remove the bot (`kick`: ban it too, so that it cannot be added back)."""
        self._member_check(user, conv)
        old = conv.chat.members.get(bot.id, LEFT)
        if old not in PRESENT:
            return
        new = KICKED if kick else LEFT
        conv.chat.members[bot.id] = new
        self._service_message(user, conv, {"left_chat_member": bot.account.to_api()})
        self._my_chat_member(bot, conv, user, old, new)
        self.world.events.publish({"type": "world"})

    def _service_message(self, user: Account, conv: Conversation, service: dict[str, Any]) -> None:
        message = Message(
            chat_id=conv.chat.id,
            scope=conv.scope,
            message_id=conv.new_message_id(),
            sender_id=user.id,
            date=self.world.now(),
            service=service,
        )
        self.world.add_message(conv, message)
        self._deliver_message(conv, message)

    # ----- groups that change ------------------------------------------------

    def _admin_check(self, user: Account, conv: Conversation) -> None:
        self._member_check(user, conv)
        if conv.chat.members.get(user.id) not in ADMINS:
            raise ActionError(f"{user.first_name} is not an admin of {conv.chat.title}")

    def migrate_group(self, user: Account, conv: Conversation) -> Chat:
        """Upgrade a basic group to a supergroup (as Telegram does when, say, its history
        is made visible to new members): a new chat id; `migrate_to_chat_id` in the old
        group and `migrate_from_chat_id` in the new one; the old id is refused from now on."""
        self._admin_check(user, conv)
        old = conv.chat
        if old.type != "group":
            raise ActionError(f"{old.title} is not a basic group")
        new_id = -1000000000000 + old.id
        while new_id in self.world.chats:
            new_id -= 1
        new = Chat(new_id, "supergroup", title=old.title, members=dict(old.members))
        self.world.chats[new_id] = new
        target = Conversation(new, 0)
        self.world.conversations[(new_id, 0)] = target
        self._service_message(user, conv, {"migrate_to_chat_id": new_id})
        old.migrated_to = new_id
        self._service_message(user, target, {"migrate_from_chat_id": old.id})
        for bot in self.world.bots.values():  # each bot joins the supergroup; no "left"
            if new.members.get(bot.id) in PRESENT:  # for the old group (as on Telegram)
                self._my_chat_member(bot, target, user, LEFT, new.members[bot.id])
        self.world.events.publish({"type": "world"})
        return new

    def set_forum(self, user: Account, conv: Conversation, enabled: bool) -> None:
        """Turn topics on or off in a supergroup (its owner only)."""
        self._member_check(user, conv)
        if conv.chat.type != "supergroup":
            raise ActionError("only a supergroup can have topics")
        if conv.chat.members.get(user.id) != CREATOR:
            raise ActionError(f"only the owner of {conv.chat.title} can change its topics")
        conv.chat.is_forum = enabled
        self.world.events.publish({"type": "world"})

    def create_topic(self, user: Account, conv: Conversation, name: str) -> int:
        self._member_check(user, conv)
        message = self._forum_call(lambda: forum.open_topic(self.world, conv, user.id, name))
        self._deliver_message(conv, message)
        assert message.thread_id is not None
        return message.thread_id

    def close_topic(self, user: Account, conv: Conversation, thread_id: int, closed: bool) -> None:
        """Close (or reopen) a topic: its creator or an admin."""
        self._member_check(user, conv)
        topic = self._forum_call(lambda: forum.topic_of(conv, thread_id))
        if not forum.may_manage(conv, topic, user.id):
            raise ActionError(f"{user.first_name} may not manage the topic {topic.name!r}")
        message = self._forum_call(
            lambda: forum.set_closed(self.world, conv, topic, user.id, closed)
        )
        self._deliver_message(conv, message)

    def delete_topic(self, user: Account, conv: Conversation, thread_id: int) -> None:
        """Delete a topic and its messages (its creator or an admin); bots get no update."""
        self._member_check(user, conv)
        topic = self._forum_call(lambda: forum.topic_of(conv, thread_id))
        if not forum.may_manage(conv, topic, user.id):
            raise ActionError(f"{user.first_name} may not delete the topic {topic.name!r}")
        forum.remove_topic(self.world, conv, topic)

    def _forum_call(self, call: Callable[[], _T]) -> _T:
        try:
            return call()
        except ApiError as error:
            raise ActionError(error.description.removeprefix("Bad Request: ")) from None

    def delete_message(self, user: Account, conv: Conversation, message_id: int) -> None:
        """A user deletes a message: any in their private chat with a bot (for both
        sides), their own in a group, any in a group they administer. Bots are not told."""
        self._member_check(user, conv)
        message = self.world.find_message(conv.chat.id, conv.scope, message_id)
        if message is None:
            raise ActionError(f"no message {message_id} to delete")
        own = message.sender_id == user.id and message.sender_chat_id is None
        admin = conv.chat.members.get(user.id) in ADMINS
        if conv.chat.is_group and not (own or admin):
            raise ActionError(f"{user.first_name} may not delete that message")
        message.deleted = True
        self.world.publish_message(message)


def _mentions(bot: Bot, text: str, entities: list[Any]) -> bool:
    """Whether a message mentions the bot (@username, or a text mention of it)."""
    for entity in entities:
        if entity.get("type") == "text_mention" and entity.get("user", {}).get("id") == bot.id:
            return True
        if entity.get("type") == "mention":
            start, length = entity["offset"], entity["length"]
            said = text.encode("utf-16-le")[2 * start : 2 * (start + length)].decode("utf-16-le")
            if said.lower() == f"@{bot.username.lower()}":
                return True
    return False
