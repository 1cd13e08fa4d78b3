"""Forum supergroups: topics opened, closed, reopened and deleted, by users (the control
API, see `actions`) or by a bot (the Bot API methods here).

A topic's id is the id of the service message that opened it (`forum_topic_created`);
messages in it carry `message_thread_id` and `is_topic_message`. A bot that is not an
admin cannot write in a closed topic (400 TOPIC_CLOSED); a deleted topic takes its
messages with it (400 "message thread not found", "message to edit not found").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.telegram.errors import bad_request
from emulator.telegram.params import Params
from emulator.telegram.world import (
    ADMINS,
    JSON,
    TOPIC_COLORS,
    Bot,
    Conversation,
    Message,
    Topic,
    World,
)

MAX_TOPIC_NAME = 128


def topic_of(conv: Conversation, thread_id: int) -> Topic:
    """An open or closed topic of a forum; 400 as Telegram answers otherwise."""
    if not conv.chat.is_forum:
        raise bad_request("the chat is not a forum")
    topic = conv.chat.topics.get(thread_id)
    if topic is None:
        raise bad_request("message thread not found")
    return topic


def may_manage(conv: Conversation, topic: Topic, account_id: int) -> bool:
    """The topic's creator or an admin of the chat."""
    return account_id == topic.creator_id or conv.chat.members.get(account_id) in ADMINS


def open_topic(
    world: World, conv: Conversation, creator_id: int, name: str, icon_color: int | None = None
) -> Message:
    """Open a topic; its `forum_topic_created` message (added, not yet delivered)."""
    if not conv.chat.is_forum:
        raise bad_request("the chat is not a forum")
    name = name.strip()
    if not 1 <= len(name) <= MAX_TOPIC_NAME:
        raise bad_request("TOPIC_TITLE_EMPTY" if not name else "TOPIC_TITLE_TOO_LONG")
    color = TOPIC_COLORS[len(conv.chat.topics) % len(TOPIC_COLORS)]
    if icon_color is not None:
        if icon_color not in TOPIC_COLORS:
            raise bad_request("TOPIC_ICON_COLOR_INVALID")
        color = icon_color
    message_id = conv.new_message_id()
    topic = Topic(message_id, name, color, creator_id)
    conv.chat.topics[topic.id] = topic
    created = {"forum_topic_created": {"name": name, "icon_color": color}}
    return _service(world, conv, creator_id, topic.id, created, message_id)


def set_closed(world: World, conv: Conversation, topic: Topic, by: int, closed: bool) -> Message:
    """Close or reopen a topic; its service message (added, not yet delivered)."""
    if topic.closed == closed:
        raise bad_request("TOPIC_NOT_MODIFIED")
    topic.closed = closed
    kind = "forum_topic_closed" if closed else "forum_topic_reopened"
    return _service(world, conv, by, topic.id, {kind: {}})


def remove_topic(world: World, conv: Conversation, topic: Topic) -> None:
    """Delete a topic and every message in it."""
    del conv.chat.topics[topic.id]
    for message in conv.messages.values():
        if message.thread_id == topic.id and not message.deleted:
            message.deleted = True
            world.publish_message(message)
    world.events.publish({"type": "world"})


def _service(
    world: World,
    conv: Conversation,
    sender_id: int,
    thread_id: int,
    service: JSON,
    message_id: int | None = None,
) -> Message:
    message = Message(
        chat_id=conv.chat.id,
        scope=conv.scope,
        message_id=message_id or conv.new_message_id(),
        sender_id=sender_id,
        date=world.now(),
        service=service,
        thread_id=thread_id,
    )
    world.add_message(conv, message)
    world.events.publish({"type": "world"})
    return message


# ----- the Bot API methods -------------------------------------------------------


class ForumMethods:
    """createForumTopic, closeForumTopic, reopenForumTopic, deleteForumTopic."""

    def __init__(self, world: World) -> None:
        self.world = world

    def handlers(self) -> dict[str, Callable[[Bot, Params], Any]]:
        return {
            "createforumtopic": self.create,
            "closeforumtopic": self.close,
            "reopenforumtopic": self.reopen,
            "deleteforumtopic": self.delete,
        }

    def _conversation(self, bot: Bot, params: Params) -> Conversation:
        conv = self.world.bot_conversation(bot, params.chat_id())
        self.world.check_can_write(bot, conv)
        if not conv.chat.is_forum:
            raise bad_request("the chat is not a forum")
        return conv

    def create(self, bot: Bot, params: Params) -> JSON:
        conv = self._conversation(bot, params)
        if conv.chat.members.get(bot.id) not in ADMINS:
            raise bad_request("not enough rights to create a topic")
        message = open_topic(
            self.world, conv, bot.id, params.required_str("name"), params.integer("icon_color")
        )
        assert message.thread_id is not None
        return conv.chat.topics[message.thread_id].to_api()

    def _managed(self, bot: Bot, params: Params) -> tuple[Conversation, Topic]:
        conv = self._conversation(bot, params)
        topic = topic_of(conv, params.required_int("message_thread_id"))
        if not may_manage(conv, topic, bot.id):
            raise bad_request("not enough rights to manage the topic")
        return conv, topic

    def close(self, bot: Bot, params: Params) -> bool:
        conv, topic = self._managed(bot, params)
        set_closed(self.world, conv, topic, bot.id, True)
        return True

    def reopen(self, bot: Bot, params: Params) -> bool:
        conv, topic = self._managed(bot, params)
        set_closed(self.world, conv, topic, bot.id, False)
        return True

    def delete(self, bot: Bot, params: Params) -> bool:
        conv = self._conversation(bot, params)
        topic = topic_of(conv, params.required_int("message_thread_id"))
        if conv.chat.members.get(bot.id) not in ADMINS:
            raise bad_request("not enough rights to delete the topic")
        remove_topic(self.world, conv, topic)
        return True
