"""Ephemeral messages (Bot API 10.2, reshaped in 10.3 and 10.4): a message in a group
that one member sees, sent with `ephemeral_message_parameters`, changed with
`editEphemeralMessage*` and `deleteEphemeralMessage`.

As Telegram models them: `message_id` 0 and an `ephemeral_message_id` of their own in
the chat, `receiver_user`; seen by their receiver only (their app: the web chat, the
control API's chat views for that user); shown in place of the pressed message when
`replace_callback_query_message` asks; not delivered to a receiver whose app is offline
and gone when it restarts (delivery "is not guaranteed, especially if they are
offline"), the bot none the wiser. A user's ephemeral command (a command the bot marked
`is_ephemeral`) is one the bot and its sender see; the bot may answer it, ephemerally,
within 15 seconds.

The references give no error texts for ephemeral sends. Where this module refuses, the
words are guesses in Telegram's style, and each rule the references leave open is read
the stricter way (marked GUESS): an ephemeral message must answer its receiver's press
or ephemeral command (none unprompted), one per press, and a press only within the
15 seconds its answer has.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from emulator.telegram.errors import QUERY_TOO_OLD, bad_request
from emulator.telegram.params import Params
from emulator.telegram.world import PRESENT, Bot, CallbackQuery, Conversation, Message, World

# GUESSES: no reference gives these refusals' words.
PRIVATE_CHAT = "ephemeral messages can't be sent to private chats"
NOT_A_MEMBER = "USER_NOT_PARTICIPANT"
NO_RECEIVER = "receiver_user_id is empty"
UNPROMPTED = "an ephemeral message must answer its receiver's callback query or ephemeral message"
OTHER_USER = "USER_ID_INVALID"
OTHER_CHAT = "QUERY_ID_INVALID"
ALREADY_ANSWERED = "QUERY_ID_INVALID"
REPLACE_WITHOUT_QUERY = "replace_callback_query_message needs callback_query_id"
# The reference: "must be false when the query came from an ephemeral message".
REPLACE_EPHEMERAL = "replace_callback_query_message must be False for an ephemeral message"
REPLY_NOT_EPHEMERAL = "a reply to an ephemeral message must be an ephemeral message"
NO_REPLY_KEYBOARD = "REPLY_MARKUP_INVALID"
# Telegram's own words where the same refusal exists for ordinary messages.
REPLY_NOT_FOUND = "message to be replied not found"
EDIT_NOT_FOUND = "message to edit not found"
DELETE_NOT_FOUND = "message to delete not found"


@dataclass(frozen=True)
class Ephemeral:
    """Where an ephemeral send goes: to whom, answering which press or message."""

    receiver_id: int
    query: CallbackQuery | None
    replaces: int | None


def _parameters(params: Params) -> dict[str, Any] | None:
    value = params.json("ephemeral_message_parameters")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise bad_request("can't parse ephemeral message parameters JSON object")
    return value


def _query(world: World, bot: Bot, query_id: Any) -> CallbackQuery:
    """The press an ephemeral message answers: the bot's, within its 15 seconds, and
    answered with no other ephemeral message yet (GUESS: one per press)."""
    query = world.callback_queries.get(str(query_id))
    too_old = query is not None and time.monotonic() - query.created > world.config.answer_timeout
    if query is None or query.bot_id != bot.id or too_old:
        raise bad_request(QUERY_TOO_OLD)
    if query.ephemeral_replies:
        raise bad_request(ALREADY_ANSWERED)
    return query


def destination(world: World, bot: Bot, params: Params) -> tuple[Conversation, Ephemeral | None]:
    """The conversation a send goes to, and where in it an ephemeral one goes (10.4: an
    answer to a press may leave chat_id and receiver_user_id to the press)."""
    found = _parameters(params)
    if found is None:
        return world.bot_conversation(bot, params.chat_id()), None
    query_id = found.get("callback_query_id")
    query = _query(world, bot, query_id) if query_id not in (None, "") else None
    if params.has("chat_id") or query is None or query.chat_id is None:
        conv = world.bot_conversation(bot, params.chat_id())
    else:
        conv = world.conversation(query.chat_id, query.scope)
    receiver = found.get("receiver_user_id", query.user_id if query else None)
    if not isinstance(receiver, int) or isinstance(receiver, bool):
        raise bad_request(NO_RECEIVER)
    _check_receiver(conv, receiver, query)
    replaces = _replaced(query, bool(found.get("replace_callback_query_message")))
    if query is None and not _replies_to_ephemeral(params):
        raise bad_request(UNPROMPTED)  # GUESS: none unprompted
    return conv, Ephemeral(receiver, query, replaces)


def _replies_to_ephemeral(params: Params) -> bool:
    reply = params.json("reply_parameters")
    return isinstance(reply, dict) and reply.get("ephemeral_message_id") is not None


def _check_receiver(conv: Conversation, receiver: int, query: CallbackQuery | None) -> None:
    if conv.chat.type == "private":
        raise bad_request(PRIVATE_CHAT)
    if conv.chat.members.get(receiver) not in PRESENT:
        raise bad_request(NOT_A_MEMBER)
    if query is not None and query.user_id != receiver:
        raise bad_request(OTHER_USER)
    if query is not None and query.chat_id != conv.chat.id:
        raise bad_request(OTHER_CHAT)


def _replaced(query: CallbackQuery | None, replace: bool) -> int | None:
    """The message shown in place of, when asked: the pressed one."""
    if not replace:
        return None
    if query is None:
        raise bad_request(REPLACE_WITHOUT_QUERY)
    if query.ephemeral_message_id is not None or not query.message_id:
        raise bad_request(REPLACE_EPHEMERAL)
    return query.message_id


def replied_ephemeral(
    world: World, conv: Conversation, ephemeral_id: int, target: Ephemeral | None
) -> Message:
    """The user's ephemeral message a send replies to: only ephemerally, to its sender,
    within 15 seconds of it (ReplyParameters.ephemeral_message_id)."""
    if target is None:
        raise bad_request(REPLY_NOT_EPHEMERAL)
    replied = conv.ephemeral.get(ephemeral_id)
    late = replied is not None and time.monotonic() - replied.created > world.config.answer_timeout
    if replied is None or replied.deleted or late:
        raise bad_request(REPLY_NOT_FOUND)
    if replied.sender_id != target.receiver_id:
        raise bad_request(OTHER_USER)
    return replied


def check_markup(markup: dict[str, Any] | None) -> None:
    """An ephemeral message takes an inline keyboard without login buttons (the reference:
    "Not supported for ephemeral messages"); GUESS: no reply keyboard either."""
    if markup is None:
        return
    if "inline_keyboard" not in markup:
        raise bad_request(NO_REPLY_KEYBOARD)
    if any("login_url" in b for row in markup["inline_keyboard"] for b in row):
        raise bad_request("BUTTON_TYPE_INVALID")


def make_ephemeral(world: World, message: Message, target: Ephemeral) -> None:
    """Mark a new message ephemeral: its receiver, whether it reaches them, what it
    stands in place of; the press it answers is answered ephemerally once."""
    message.message_id = 0
    message.receiver_id = target.receiver_id
    message.replaces = target.replaces
    message.reached = target.receiver_id not in world.offline
    message.created = time.monotonic()
    if target.query is not None:
        target.query.ephemeral_replies += 1


Editor = Callable[[Bot, Message, Params], Any]


class EphemeralMethods:
    """editEphemeralMessage* and deleteEphemeralMessage: each returns True, whether or
    not the receiver's app shows the change (Telegram does not know either)."""

    def __init__(self, world: World, edits: dict[str, Editor]) -> None:
        self.world = world
        self.edits = edits  # the ordinary edit's handler for each kind, on a Message

    def handlers(self) -> dict[str, Callable[[Bot, Params], Any]]:
        out: dict[str, Callable[[Bot, Params], Any]] = {
            f"editephemeralmessage{kind}": self._edit(kind) for kind in self.edits
        }
        out["deleteephemeralmessage"] = self.delete
        return out

    def find(self, bot: Bot, params: Params, missing: str) -> Message:
        """The bot's ephemeral message the call names (chat, receiver and id)."""
        conv = self.world.bot_conversation(bot, params.chat_id())
        found = conv.ephemeral.get(params.required_int("ephemeral_message_id"))
        receiver = params.required_int("receiver_user_id")
        if found is None or found.deleted or found.sender_id != bot.id:
            raise bad_request(missing)
        if found.receiver_id != receiver:
            raise bad_request(missing)
        return found

    def _edit(self, kind: str) -> Callable[[Bot, Params], Any]:
        def handler(bot: Bot, params: Params) -> bool:
            message = self.find(bot, params, EDIT_NOT_FOUND)
            self.edits[kind](bot, message, params)
            return True

        return handler

    def delete(self, bot: Bot, params: Params) -> bool:
        message = self.find(bot, params, DELETE_NOT_FOUND)
        message.deleted = True
        self.world.publish_message(message)
        return True


def restart_app(world: World, user_id: int) -> int:
    """The user's app restarts: the ephemeral messages it showed them are gone (how many)."""
    gone = 0
    for conv in world.conversations.values():
        for message in conv.ephemeral.values():
            if message.receiver_id == user_id and message.reached and not message.deleted:
                message.reached = False
                world.publish_message(message)
                gone += 1
    return gone
