"""What comes in, on any platform, as the desk reads it: who asks (a `Sender`), where
(a `Place`), what (an `Ask`), and what the desk answers them (a `Reply`).

A platform's parser turns its update into a `Request`; the desk handles it and returns
a `Reply` in the sender's language, which the platform's adapter draws its own way
(Telegram: a popup on the pressed button, a message with inline buttons, a file;
WhatsApp: a text, reply buttons or a list). The adapter adds nothing of its own: every
use case, and every word it says, is the desk's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from service.table.identity import TELEGRAM
from service.table.room import Room
from service.ui.intents import Press

# What names an update once, for its dedupe mark: Telegram's update_id, or a platform's
# own message id as text ("wa:<wamid>").
Mark = int | str

# The commands a person may give, on any platform (a Telegram slash command, a WhatsApp
# word or a button of the desk's own replies). Their meaning is in `service.desk.desk`.
CommandName = Literal[
    "new",  # open a table: a group's lobby, or in a private chat a game against bots
    "play",  # a game against bots in the private chat
    "setup",  # a game against bots, set up in its lobby first
    "hello",  # a greeting: the person's game shown again, a newcomer greeted, else a game
    "resume",  # the person's game shown again, else the welcome
    "start",  # the private chat opened (Telegram's /start, with a link's payload)
    "family",  # a family's table opened from a private chat, with links to share
    "join",  # sit at the table a code names
    "help",
    "rules",
    "stats",
    "export",
    "cancel",
    "language",
    "privacy",
    "forget",  # the question; `forget_yes` / `forget_no` answer it
    "forget_yes",
    "forget_no",
    "quiet",  # no more reminders
    "loud",  # reminders again
    "hour",  # the person's time zone, told or set
    "hand",  # the person's hand at the table of this chat, shown to them alone (showing)
    "look",  # the person's cards drawn (pictures) or written (text), told or chosen
]


@dataclass(frozen=True)
class Sender:
    """Who sent the update: their player id on the platform, their name as the platform
    gives it (cleaned), and the language the platform hints."""

    player: int
    name: str
    lang_hint: str | None = None
    platform: str = TELEGRAM


@dataclass(frozen=True)
class Place:
    """Where the update came from: a chat (and forum topic), or None for a press on a
    message with no chat (Telegram's inline messages)."""

    chat: int | None
    topic: int | None = None
    private: bool = True


@dataclass(frozen=True)
class PressAsk:
    """A button of a room's screen pressed (`tapped`), or typed as its words."""

    press: Press
    tapped: bool = True
    # What the pressed message was, where a platform keeps every old prompt (WhatsApp):
    # an old prompt is told so once.
    prompt: str | None = None


@dataclass(frozen=True)
class CommandAsk:
    """A command with its words (`/burro cangkul`, `unirme abc12345`)."""

    name: CommandName
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class TypedAsk:
    """Words that are no command: a move typed against the current prompt, or chatter."""

    text: str


@dataclass(frozen=True)
class TypedMoveAsk:
    """A move typed in words (`card:7D`, `draw`, `pass` …, as `words.move_of` reads
    it) that is no button of the person's current prompt in `room`: the desk says
    precisely why it cannot be played, and offers the live choices."""

    room: str
    move: str


@dataclass(frozen=True)
class StoryAsk:
    """The whole story of the hand at `room` (None: the person's active game), asked in
    words (`/story`, `historia`); a button asks it as a press (`Command("story")`)."""

    room: str | None = None


@dataclass(frozen=True)
class TipAsk:
    """The person's tip for their move now, asked in words (`/tip`, `pista`, `dica`,
    `saran`); a button asks it as a press (`Command("tip")`)."""


@dataclass(frozen=True)
class UnknownAsk:
    """A button that is not one of ours, or a message the desk cannot read (a photo)."""

    button: bool = True


Ask = PressAsk | CommandAsk | TypedAsk | TypedMoveAsk | StoryAsk | TipAsk | UnknownAsk

# Whether a person administers a room's chat (Telegram asks getChatMember; a platform
# with no groups of ours answers False). Asked only when a use case needs it.
IsAdmin = Callable[[Room, int], Awaitable[bool]]


async def no_admins(room: Room, player: int) -> bool:
    return False


@dataclass(frozen=True)
class Request:
    """One update to handle: everything the desk needs, passed down (no context
    variables). `mark` dedupes it; `message` is the asking message's id in its chat."""

    mark: Mark
    sender: Sender
    place: Place
    ask: Ask
    is_admin: IsAdmin = no_admins
    message: int | None = None
    # The platform edits a message in place; where it cannot, every message is new (a
    # rematch's first message is then the person's first turn, not a table of bots).
    edits: bool = True
    # In a group, the platform can show the sender messages they alone see (Telegram's
    # ephemeral messages), in answer to their own asks: `answering` is the platform's
    # own words for what this one would answer, if it can be (a press, a command sent
    # so); `personal`, whether the platform can at all.
    answering: str | None = None
    personal: bool = False


# ----- the reply ---------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """A button of a reply: `ask` is its data, read back by the platform's parser as
    the same ask (a desk command `cmd:<name>[:<arg>]` or a press's token), or `url`."""

    label: str
    ask: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class Attachment:
    """A file sent with a line (an exported hand)."""

    name: str
    data: bytes


@dataclass(frozen=True)
class Line:
    """A message to the place the update came from, in the sender's language: its text,
    its buttons in rows, a file. `busy` is said instead of a file the chat's flood
    budget cannot take now."""

    text: str
    choices: tuple[tuple[Choice, ...], ...] = ()
    file: Attachment | None = None
    busy: str | None = None


@dataclass(frozen=True)
class Reply:
    """What the desk answers: a press's popup (an alert, or a link to open instead),
    and lines for the sender's place. `quiet`: the popup only echoes what the screens
    now show (a platform without popups leaves it out). `replaced`: the pressed message
    answered its question and goes (the cancel question). `private`: the lines go to
    the sender's own chat wherever they asked. An empty reply answers nothing."""

    popup: str | None = None
    alert: bool = False
    quiet: bool = False
    url: str | None = None
    lines: tuple[Line, ...] = field(default=())
    replaced: bool = False
    # The lines are the sender's alone: a group's ask is answered in their private chat.
    private: bool = False

    @staticmethod
    def say(text: str, *choices: tuple[Choice, ...]) -> Reply:
        return Reply(lines=(Line(text, tuple(choices)),))


Nothing = Reply()
