"""The bot's command menu (the "/" button and the list Telegram shows while typing "/"):
set with setMyCommands when `burro serve` starts, in every language we speak, one list
for private chats and one for groups. Setting the same lists again changes nothing, so
every serve process may do it.

Telegram picks a list by the person's interface language, a two-letter code: "pt"
stands for both Portuguese catalogs and takes the Brazilian one (Telegram's own
Portuguese interface is Brazilian); the list without a code (English) is for the rest.
"""

from __future__ import annotations

from typing import Any

from service.i18n import Translator, _
from service.platforms.telegram.botapi import BotApi

# Telegram's language code -> our catalog; None: the list for every other language.
MENU_LANGUAGES: dict[str | None, str] = {None: "en", "es": "es", "pt": "pt_BR", "id": "id"}

PRIVATE = (
    ("play", _("play against bots")),
    ("rules", _("the rules, short")),
    ("stats", _("your games, wins and burros")),
    ("language", _("choose your language")),
    ("privacy", _("what I keep about you")),
    ("story", _("every move of this hand")),
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
SCOPES = (("all_private_chats", PRIVATE), ("all_group_chats", GROUP))


def menus() -> list[dict[str, Any]]:
    """Every setMyCommands call to make: one per scope and language."""
    calls = []
    for scope, commands in SCOPES:
        for code, lang in MENU_LANGUAGES.items():
            tr = Translator(lang)
            listed = [{"command": name, "description": tr.gettext(text)} for name, text in commands]
            call: dict[str, Any] = {"commands": listed, "scope": {"type": scope}}
            if code is not None:
                call["language_code"] = code
            calls.append(call)
    return calls


def register(api: BotApi) -> None:
    """Set the command menus (setMyCommands for each scope and language)."""
    for call in menus():
        api.call("setMyCommands", **call)
