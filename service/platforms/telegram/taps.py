"""A move's press taken from the update's JSON, without python-telegram-bot's objects.

Most updates `serve` gets are taps on a move's button (a card, draw, pass). Building
PTB's Update for one (the message it came from with its keyboard, the user, the chat)
and routing it through PTB's handlers cost about a tenth of a tap's CPU, for fields the
move never reads (BENCHMARKS.md). `tap_of` takes such a press from the JSON, each field
it reads checked as PTB's objects would carry it, and the webhook hands the desk the
same request PTB's reading would make (commands.request_of). Anything else
(another update or button, a field missing or of another type) goes through PTB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.desk.asks import Place, PressAsk, Request, Sender
from service.platforms.telegram import callbacks
from service.platforms.telegram.people import name_of
from service.ui.intents import Move, Press


@dataclass(frozen=True)
class Tap:
    """A move's press, with what its handling and its log line need."""

    update_id: int
    query_id: str
    press: Press
    user_id: int
    name: str  # people.name_of
    language: str | None
    chat_id: int | None  # the chat of the message pressed (none for an inline one)


def tap_of(update: dict[str, Any]) -> Tap | None:
    """The move an update presses; None for any other update (PTB's to handle)."""
    query = update.get("callback_query")
    if len(update) != 2 or "update_id" not in update or not isinstance(query, dict):
        return None
    user, data = query.get("from"), query.get("data")
    if not (isinstance(query.get("id"), str) and isinstance(query.get("chat_instance"), str)):
        return None
    if not isinstance(data, str):
        return None
    if not isinstance(user, dict) or not _user(user):
        return None
    message = query.get("message")
    if message is not None and not _message(message):
        return None
    raw = callbacks.decode(data)
    press = callbacks.press_of(raw) if raw is not None else None
    if press is None or not isinstance(press.what, Move):
        return None
    return Tap(
        update["update_id"],
        query["id"],
        press,
        user["id"],
        name_of(user["id"], user["first_name"], user.get("username")),
        user.get("language_code"),
        message["chat"]["id"] if message is not None else None,
    )


# Run for every tap: plain tests, no generator nor helper calls (BENCHMARKS.md, #30).
def _user(user: dict[str, Any]) -> bool:
    """Whether a callback query's `from` is a user as Telegram sends one."""
    username, language = user.get("username"), user.get("language_code")
    return (
        type(user.get("id")) is int
        and isinstance(user.get("is_bot"), bool)
        and isinstance(user.get("first_name"), str)
        and (username is None or isinstance(username, str))
        and (language is None or isinstance(language, str))
    )


def _message(message: object) -> bool:
    """Whether the pressed message has what Telegram sends (its id, date and chat)."""
    if not isinstance(message, dict):
        return False
    chat = message.get("chat")
    if type(message.get("message_id")) is not int or type(message.get("date")) is not int:
        return False
    return (
        isinstance(chat, dict) and type(chat.get("id")) is int and isinstance(chat.get("type"), str)
    )


def request_of(tap: Tap) -> Request:
    """The tap as the desk's request (a press on a message of `tap.chat_id`)."""
    place = Place(tap.chat_id, None, tap.chat_id is not None and tap.chat_id > 0)
    return Request(
        tap.update_id, Sender(tap.user_id, tap.name, tap.language), place, PressAsk(tap.press)
    )
