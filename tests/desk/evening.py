"""A family evening as platform-neutral steps, and each platform's wire for them.

A step says who does what in the desk's terms: says a command with its words, types
plain words, taps a button of a room's screen (a press at a version), or chooses a
button of the desk's own reply (`cmd:<name>[:<word>]`); `Redelivered` is the platform
sending the previous update once more. `TelegramWire` and `WhatsAppWire` turn a step
into what each platform really posts: a Bot API Update (a private chat's message with
its `bot_command` entity, a callback query), and a Cloud API notification (`entry[].
changes[].value` with our number's `metadata`, the sender's `contacts` entry, a text or
an interactive `button_reply` / `list_reply` message).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

from service.desk.asks import CommandName
from service.platforms.telegram import callbacks
from service.ui import tokens
from service.ui.intents import Command, Move, Press

ROOM = "familia1"  # the family's table (a room id: eight letters and digits)
PHONE_ID = "100000000000001"  # our business number's id (BURRO_WHATSAPP_PHONE_ID)
OUR_NUMBER = "15550009999"
BOT_USERNAME = "burro_bot"
SENT_AT = 1_700_000_000


@dataclass(frozen=True)
class Person:
    """Someone of the family, as each platform names them."""

    name: str
    telegram_id: int
    bsuid: str  # the WhatsApp business-scoped user id (its country says the language)
    phone: str


ABUELA = Person("Abuela", 1001, "ES.1502576394655801", "34600000001")
NIETO = Person("Nieto", 1002, "ES.1502576394655802", "34600000002")


@dataclass(frozen=True)
class Says:
    """A command in words: `/stats` on Telegram, `estadisticas` on WhatsApp."""

    who: Person
    command: CommandName
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class Types:
    """Plain words (a table's code, shared by a link, is one)."""

    who: Person
    text: str


@dataclass(frozen=True)
class Taps:
    """A button of a room's screen: a press of the room at a version."""

    who: Person
    press: Press


@dataclass(frozen=True)
class Chooses:
    """A button of one of the desk's replies (its `Choice.ask`)."""

    who: Person
    data: str


@dataclass(frozen=True)
class Redelivered:
    """The platform posts the previous update again (it did not get our answer)."""


Act = Says | Types | Taps | Chooses  # what a person does
Step = Act | Redelivered


def move(version: int, action: str) -> Press:
    return Press(ROOM, version, Move(action))


def managing(version: int, name: str) -> Press:
    return Press(ROOM, version, Command(name))  # type: ignore[arg-type]


# The evening: Abuela opens a family table and shares its code; Nieto joins; they
# play; Nieto taps an earlier turn's card and the platform delivers that tap twice;
# he switches to English and looks at the privacy notice; Abuela checks her stats and
# cancels the game; Nieto asks to be forgotten, says no, then yes.
EVENING: tuple[Step, ...] = (
    Chooses(ABUELA, "cmd:family"),  # the welcome's "👪 Family table"
    Types(NIETO, ROOM),  # the table's code, as her link shares it
    Taps(ABUELA, managing(2, "start")),
    Taps(NIETO, move(3, "play:7D")),
    Taps(ABUELA, move(4, "draw")),
    Taps(NIETO, move(3, "play:5D")),  # a button of an earlier turn
    Redelivered(),
    Says(NIETO, "language"),
    Chooses(NIETO, "cmd:language:en"),
    Says(NIETO, "language", ("es",)),
    Says(ABUELA, "stats"),
    Says(ABUELA, "rules"),
    Taps(ABUELA, managing(5, "cancel")),  # the "Yes, cancel the game" of the question
    Says(NIETO, "privacy"),
    Says(NIETO, "forget"),
    Chooses(NIETO, "cmd:forget_no"),
    Says(NIETO, "forget"),
    Chooses(NIETO, "cmd:forget_yes"),
)

# Each platform's words for the commands of the evening.
SLASH: dict[CommandName, str] = {
    "setup": "/play",
    "stats": "/stats",
    "rules": "/rules",
    "language": "/language",
    "privacy": "/privacy",
    "forget": "/forget",
}
WORDS: dict[CommandName, str] = {
    "setup": "ajustes",
    "stats": "estadisticas",
    "rules": "reglas",
    "language": "idioma",
    "privacy": "privacidad",
    "forget": "olvidar",
}


def said(step: Says, words: dict[CommandName, str]) -> str:
    return " ".join([words[step.command], *step.words])


# ----- Telegram ------------------------------------------------------------------------


class TelegramWire:
    """Steps as the Bot API's Updates to our webhook, each person in their private chat
    with the bot; `Redelivered` repeats the previous Update as it was."""

    def __init__(self) -> None:
        self.ids = itertools.count(700_000_001)
        self.last: dict[str, Any] = {}

    def update(self, step: Step) -> dict[str, Any]:
        if isinstance(step, Redelivered):
            return self.last
        body: dict[str, Any]
        if isinstance(step, Says):
            body = {"message": self.message(step.who, said(step, SLASH), command=True)}
        elif isinstance(step, Types):
            body = {"message": self.message(step.who, step.text, command=False)}
        elif isinstance(step, Taps):
            body = {"callback_query": self.query(step.who, callbacks.data(step.press))}
        else:
            body = {"callback_query": self.query(step.who, step.data)}
        self.last = {"update_id": next(self.ids), **body}
        return self.last

    def message(self, who: Person, text: str, command: bool) -> dict[str, Any]:
        found: dict[str, Any] = {
            "message_id": next(self.ids) % 100_000,
            "date": SENT_AT,
            "chat": {"id": who.telegram_id, "type": "private", "first_name": who.name},
            "from": user(who),
            "text": text,
        }
        if command:
            length = len(text.split()[0])
            found["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
        return found

    def query(self, who: Person, data: str) -> dict[str, Any]:
        """A press on a message of ours in the person's chat (a callback query's
        `message` is the one its button was on)."""
        return {
            "id": str(next(self.ids)),
            "from": user(who),
            "chat_instance": f"-{who.telegram_id}",
            "data": data,
            "message": {
                "message_id": 42,
                "date": SENT_AT,
                "chat": {"id": who.telegram_id, "type": "private", "first_name": who.name},
                "from": {
                    "id": 999,
                    "is_bot": True,
                    "first_name": "Burro",
                    "username": BOT_USERNAME,
                },
                "text": "🫏",
            },
        }


def user(who: Person) -> dict[str, Any]:
    return {"id": who.telegram_id, "is_bot": False, "first_name": who.name, "language_code": "es"}


# ----- WhatsApp ------------------------------------------------------------------------


class WhatsAppWire:
    """Steps as the Cloud API's notifications for our number; a tap answers the prompt
    it was on (`context`); `Redelivered` repeats the previous notification."""

    def __init__(self) -> None:
        self.ids = itertools.count(1)
        self.last = b""

    def notification(self, step: Step) -> bytes:
        if isinstance(step, Redelivered):
            return self.last
        n = next(self.ids)
        message = {
            "from": step.who.phone,
            "from_user_id": step.who.bsuid,
            "id": f"wamid.evening{n}",
            "timestamp": str(SENT_AT + n),
            **content(step),
        }
        if isinstance(step, Taps | Chooses):
            message["context"] = {"from": OUR_NUMBER, "id": f"wamid.prompt{n}"}
        contact = {"profile": {"name": step.who.name}, "wa_id": step.who.phone}
        value = {
            "messaging_product": "whatsapp",
            "metadata": {"display_phone_number": OUR_NUMBER, "phone_number_id": PHONE_ID},
            "contacts": [{**contact, "user_id": step.who.bsuid}],
            "messages": [message],
        }
        entry = {"id": "1", "changes": [{"field": "messages", "value": value}]}
        self.last = json.dumps({"object": "whatsapp_business_account", "entry": [entry]}).encode()
        return self.last


def content(step: Act) -> dict[str, Any]:
    """A message's type and its part: typed text, or a tapped button (a list's row for
    the languages: five choices are a list on WhatsApp)."""
    if isinstance(step, Says):
        return {"type": "text", "text": {"body": said(step, WORDS)}}
    if isinstance(step, Types):
        return {"type": "text", "text": {"body": step.text}}
    data = tokens.text(step.press) if isinstance(step, Taps) else step.data
    kind = "list_reply" if data.startswith("cmd:language:") else "button_reply"
    return {"type": "interactive", "interactive": {"type": kind, kind: {"id": data, "title": "…"}}}
