"""Telegram's updates read as the desk's asks (service.desk.asks).

A command is a message's own: `/name[@bot] words`, in a new message (an edited message
never runs a command: editing `/cancel` into a typo must not cancel twice), addressed to
us (`/name@otherbot` is another bot's). A press is a callback query: a press of a room's
button (service.ui.tokens), or a desk command's button (`cmd:<name>[:<word>]`; the older
`lang:<code>` and `forget:yes|no` too). Plain words in a private chat are typed. Anything
else, and a command sent as the group or a channel, is not the desk's (None): the
adapter's own features take it (inline mode, chat changes).

Where the Bot API takes ephemeral messages (`personal`), a press in a group and a
member's ephemeral command (`/hand`, registered so) can be answered with a message that
member alone sees: the request says what it answers (`Request.answering`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import get_args

from telegram import Bot, Message, Update, User

from service.desk.asks import (
    Ask,
    CommandAsk,
    CommandName,
    Place,
    PressAsk,
    Request,
    Sender,
    StoryAsk,
    TipAsk,
    TypedAsk,
    UnknownAsk,
)
from service.platforms.telegram import callbacks, inline, people
from service.platforms.telegram.answer import Pressed
from service.platforms.telegram.ephemeral import Answering
from service.platforms.telegram.people import display_name, language_of

# Each slash command, and the desk command it asks for.
COMMANDS: dict[str, CommandName] = {
    "burro": "new",
    "newgame": "new",
    "play": "setup",
    "start": "start",
    "help": "help",
    "rules": "rules",
    "stats": "stats",
    "export": "export",
    "cancel": "cancel",
    "language": "language",
    "privacy": "privacy",
    "forget": "forget",
    "hand": "hand",
    "look": "look",
}
# The hand's whole story, to the sender alone (service.desk.reading).
STORY = ("story", "historia", "cerita")
# The sender's tip for their move now, to them alone (service.desk.tipping).
TIP = ("tip", "pista", "dica", "saran")
DESK_COMMANDS: dict[str, CommandName] = {name: name for name in get_args(CommandName)}
OLD_BUTTONS: dict[str, tuple[CommandName, tuple[str, ...]]] = {
    "forget:yes": ("forget_yes", ()),
    "forget:no": ("forget_no", ()),
}


def request_of(
    update: Update, bot: Bot, bot_username: str, personal: bool = False
) -> Request | None:
    """The desk's request an update makes, or None when it is not the desk's;
    `personal`: the Bot API takes ephemeral messages."""
    try:
        request = _request_of(update, bot, bot_username)
    except (AttributeError, TypeError, ValueError):  # PTB keeps odd field types as sent
        return None
    if request is None or not personal or request.place.private:
        return request
    answering = answering_of(update)
    return replace(request, personal=True, answering=answering.text if answering else None)


def answering_of(update: Update) -> Answering | None:
    """What an ephemeral answer to the update would answer: its press, or the member's
    own ephemeral message (a command the bot registered as ephemeral)."""
    query, message = update.callback_query, update.message
    if query is not None and type(query.id) is str:
        return Answering.press(query.id)
    own = message.api_kwargs.get("ephemeral_message_id") if message is not None else None
    return Answering.command(own) if type(own) is int and own > 0 else None


def _request_of(update: Update, bot: Bot, bot_username: str) -> Request | None:
    query, message = update.callback_query, update.message
    if query is not None and isinstance(query.data, str):
        return press_request(update, bot)
    if message is None or message.from_user is None or message.sender_chat is not None:
        return None
    if not ids(message.from_user.id, message.chat.id):
        return None  # not as Telegram sends them: the adapter's own path answers
    ask: Ask | None = command_of(message, bot_username)
    if ask is None and message.chat.type == "private" and typed(message):
        ask = TypedAsk(message.text or "")
    if ask is None:
        return None
    return Request(
        update.update_id,
        sender_of(message.from_user),
        place_of(message),
        ask,
        is_admin=people.admins(bot),
        message=message.message_id if ids(message.message_id) else None,
    )


def ids(*values: object) -> bool:
    """Whether each is an id as Telegram sends one (PTB keeps fields as they come)."""
    return all(type(value) is int for value in values)


def command_of(message: Message, bot_username: str) -> CommandAsk | StoryAsk | TipAsk | None:
    """The command a message gives us, with its words; None if it gives none."""
    words = (message.text or "").split()
    entities = message.entities or ()
    at_start = any(e.type == "bot_command" and e.offset == 0 for e in entities)
    if not words or not at_start or not words[0].startswith("/"):
        return None
    name, _at, addressee = words[0][1:].partition("@")
    if addressee and addressee.lower() != bot_username.lower():
        return None
    if name.lower() in STORY:
        return StoryAsk()
    if name.lower() in TIP:
        return TipAsk()
    command = COMMANDS.get(name.lower())
    return None if command is None else CommandAsk(command, tuple(words[1:]))


def typed(message: Message) -> bool:
    """Plain words a person wrote: no command (ours or not), no card chosen inline
    (which comes via the bot)."""
    entities = message.entities or ()
    command = any(e.type == "bot_command" and e.offset == 0 for e in entities)
    return isinstance(message.text, str) and message.via_bot is None and not command


def press_request(update: Update, bot: Bot) -> Request | None:
    query = update.callback_query
    assert query is not None
    data = query.data or ""
    if query.from_user is None or not ids(query.from_user.id) or callbacks_inline(data):
        return None
    message = query.message if isinstance(query.message, Message) else None
    if message is not None and not ids(message.chat.id, message.message_id):
        message = None
    place = place_of(message) if message is not None else Place(None, None, False)
    return Request(
        update.update_id, sender_of(query.from_user), place, ask_of(data), people.admins(bot)
    )


def pressed_of(update: Update) -> Pressed | None:
    """The callback query of a press, and the message its button was on."""
    query = update.callback_query
    if query is None or type(query.id) is not str:
        return None
    message = query.message if isinstance(query.message, Message) else None
    chat = message.chat.id if message is not None else None
    message_id = message.message_id if message is not None else None
    return Pressed(query.id, chat, message_id, query.inline_message_id)


def callbacks_inline(data: str) -> bool:
    """A chosen inline result's Confirm: inline mode's own (telegram.inline)."""
    return re.match(inline.CALLBACK_PATTERN, data) is not None


def ask_of(data: str) -> Ask:
    """What a button's data asks for."""
    if data in OLD_BUTTONS:
        return CommandAsk(*OLD_BUTTONS[data])
    if data.startswith("lang:"):
        return CommandAsk("language", (data[5:],))
    if data.startswith("cmd:"):
        word, _sep, rest = data[4:].partition(":")
        command = DESK_COMMANDS.get(word)
        if command is not None:
            return CommandAsk(command, (rest,) if rest else ())
    press = callbacks.press(data)
    return PressAsk(press) if press is not None else UnknownAsk()


def sender_of(user: User) -> Sender:
    return Sender(user.id, display_name(user), language_of(user))


def place_of(message: Message) -> Place:
    topic = message.message_thread_id if message.is_topic_message else None
    return Place(message.chat.id, topic, message.chat.type == "private")
