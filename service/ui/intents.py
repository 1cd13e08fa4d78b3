"""What a button means, for any chat platform: typed intents instead of encoded strings.

A screen's button carries one intent; each chat adapter turns it into its own wire form
(`service.platforms.<name>`: Telegram's in its `callbacks` and `render`) and decodes a
press back into the same intent for the handlers.

    Press(room, version, Move("play:10H"))    # a game action, the engine's string
    Press(room, version, Command("join"))     # a table command
    Press(room, version, Option("hand"))      # change one lobby setting
    OpenPrivate(room)                         # open this room in the player's private chat
    ShowCards(room)                           # show my cards here, as a list (inline)
    OpenView(room, private=True)              # open the table's picture (the view page)

`version` is the room's version, or the game's phase version for the moves of a game
whose players act at once (the passing game): the press names the state it was drawn
for, so that a stale button is harmless.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# A table command: what the lobby, the settings and a finished game's buttons ask for.
CommandName = Literal[
    "join",
    "leave",
    "add_bot",
    "remove_bot",
    "start",
    "settings",  # open the settings
    "settings_done",  # close them
    "rules",
    "cancel",  # the cancel question's yes
    "keep_playing",  # … and its no
    "rematch",  # a new game with the same players (private: play again)
    "story",  # the hand's whole story, to the reader alone (service.desk.reading)
    "hand",  # the presser's hand, shown to them alone where they pressed (desk.showing)
    "tip",  # the presser's tip for their move now, to them alone (service.desk.tipping)
]


@dataclass(frozen=True)
class Move:
    """A game action, as the engine spells it (`play:10H`, `draw:left`, `pass:7S`,
    `burro`, `fake` for this round's fake word, `respond`)."""

    action: str


@dataclass(frozen=True)
class Command:
    """A table command (see CommandName)."""

    name: CommandName


@dataclass(frozen=True)
class Option:
    """Change one setting of the lobby (`service.table.lobby.change_setting`'s key)."""

    key: str


@dataclass(frozen=True)
class NotPlayable:
    """The card at `index` of a hand listed in full: choosing it only says it cannot be
    played now."""

    index: int


What = Move | Command | Option | NotPlayable


@dataclass(frozen=True)
class Press:
    """A button that acts on a room, drawn for its `version` (see the module's doc)."""

    room: str
    version: int
    what: What


@dataclass(frozen=True)
class OpenPrivate:
    """A link that opens the room in the player's private chat with the bot."""

    room: str


@dataclass(frozen=True)
class ShowCards:
    """Show the player's cards in this chat, as a list only they see (Telegram: an
    inline query); a platform without such a list leaves the button out."""

    room: str


@dataclass(frozen=True)
class OpenView:
    """Open the table's picture, the page `serve` draws it on (service.view; Telegram: the
    bot's Mini App; WhatsApp: a link signed for the reader, sent when asked). `private`:
    the screen goes to a private chat with the bot (a one-to-one table, a player's own
    hand), where Telegram opens the page from the button itself; a group's button is a
    link to the bot's Mini App instead (Telegram refuses the other kind there)."""

    room: str
    private: bool


Intent = Press | OpenPrivate | ShowCards | OpenView


@dataclass(frozen=True)
class Choice:
    """One entry of a player's hand shown as a list (Telegram: the inline results): its
    press, what the list shows, and what choosing it posts where everyone sees it
    (None: the platform's neutral words)."""

    press: Press
    title: str
    description: str = ""
    said: str | None = None
