"""The bot's command menu (the "/" button and the list Telegram shows while typing "/"):
set with setMyCommands when `burro serve` starts, in every language we speak, one list
for private chats and one for groups. Setting the same lists again changes nothing, so
every serve process may do it.

Telegram picks a list by the person's interface language, a two-letter code: "pt"
stands for both Portuguese catalogs and takes the Brazilian one (Telegram's own
Portuguese interface is Brazilian); the list without a code (English) is for the rest.

Where the Bot API takes ephemeral messages (serve's probe, `probe.py`), the groups' lists
also offer /hand as an ephemeral command (`BotCommand.is_ephemeral`, Bot API 10.2): the
app sends it so that only the bot and its sender see it, and the hand answers it where it
was typed. python-telegram-bot's BotCommand has no such field, so serve sets those lists
by name (`register_ephemeral`, once the probe said yes); `burro serve` first sets the
plain ones (`register`), so a Bot API that stopped taking them loses /hand again.
"""

from __future__ import annotations

import warnings
from typing import NotRequired, TypedDict

from telegram import Bot
from telegram.warnings import PTBUserWarning

from service.i18n import Translator, _
from service.platforms.telegram.botapi import BotApi

# Telegram's language code -> our catalog; None: the list for every other language.
MENU_LANGUAGES: dict[str | None, str] = {None: "en", "es": "es", "pt": "pt_BR", "id": "id"}

PRIVATE = (
    ("play", _("play against bots")),
    ("rules", _("the rules, short")),
    ("stats", _("your games, wins and burros")),
    ("language", _("choose your language")),
    ("look", _("your cards as pictures or as text")),
    ("privacy", _("what I keep about you")),
    ("story", _("every move of this hand")),
    ("tip", _("a tip for your move")),
    ("help", _("all the commands")),
)
GROUP = (
    ("burro", _("open a table here")),
    ("rules", _("the rules, short")),
    ("stats", _("games, wins and burros")),
    ("export", _("a finished hand, as a file")),
    ("cancel", _("end the open game")),
    ("story", _("every move of this hand")),
    ("help", _("all the commands")),
)
GROUP_SCOPE = "all_group_chats"
SCOPES = (("all_private_chats", PRIVATE), (GROUP_SCOPE, GROUP))
# The groups' ephemeral command, after /burro (serve's `register_ephemeral`).
HAND = ("hand", _("your cards, seen by you alone"))
EPHEMERAL = frozenset({HAND[0]})


class Command(TypedDict):
    """Bot API 10.2's BotCommand."""

    command: str
    description: str
    is_ephemeral: NotRequired[bool]


class Scope(TypedDict):
    type: str


class Commands(TypedDict):
    """setMyCommands' parameters."""

    commands: list[Command]
    scope: Scope
    language_code: NotRequired[str]


def menus() -> list[Commands]:
    """Every setMyCommands call `burro serve` makes first: one per scope and language."""
    return [call for scope, commands in SCOPES for call in _calls(scope, commands)]


def ephemeral_menus() -> list[Commands]:
    """The groups' lists with /hand, an ephemeral command: one per language."""
    burro, *rest = GROUP
    return _calls(GROUP_SCOPE, (burro, HAND, *rest))


def _calls(scope: str, commands: tuple[tuple[str, str], ...]) -> list[Commands]:
    calls = []
    for code, lang in MENU_LANGUAGES.items():
        tr = Translator(lang)
        listed = [_command(name, tr.gettext(text)) for name, text in commands]
        call: Commands = {"commands": listed, "scope": {"type": scope}}
        if code is not None:
            call["language_code"] = code
        calls.append(call)
    return calls


def _command(name: str, description: str) -> Command:
    command: Command = {"command": name, "description": description}
    if name in EPHEMERAL:
        command["is_ephemeral"] = True
    return command


def register(api: BotApi) -> None:
    """Set the command menus (setMyCommands for each scope and language)."""
    for call in menus():
        api.call("setMyCommands", **call)


async def register_ephemeral(bot: Bot) -> None:
    """Set the groups' lists with /hand (ephemeral), by name: PTB 22.8's BotCommand
    has no is_ephemeral. TelegramError."""
    with warnings.catch_warnings():  # PTB's "use Bot.setMyCommands": it cannot say this
        warnings.filterwarnings("ignore", "Please use 'Bot.setMyCommands'", PTBUserWarning)
        for call in ephemeral_menus():
            await bot.do_api_request("setMyCommands", api_kwargs=dict(call))
