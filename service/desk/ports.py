"""What the desk asks of the platforms without knowing them: their words for the
commands (a `Manual`), and the links that open a table from each of them (`Links`).

A platform's own vocabulary (`/burro` on Telegram, `hola` on WhatsApp) is its parser's;
the texts that name it come from the same place, so help never names a command the
person's platform does not read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from service.desk.asks import Line
from service.i18n import Translator
from service.table.room import Room


class Manual(Protocol):
    """A platform's texts that name its own commands, in the reader's language."""

    def welcome(self, tr: Translator) -> Line:
        """What a person is shown who says nothing we read and has no game going on."""

    def greeting(self, tr: Translator, zone: str) -> str:
        """A newcomer's first words from us, above the desk's choices (play now, a
        family's table, how to play): one line of the game, where their cards will
        come and how to come back; where the platform tells no time zone, the one we
        guessed for them (`zone`, service.table.zones) and how to change it."""

    def help(self, tr: Translator, games: str) -> Line:
        """Every command, and the games (`games`: one a line) to name after them."""

    def chatter(self, tr: Translator, playing: bool) -> Line:
        """The answer to words we do not read (`playing`: the person has a game on)."""

    @property
    def app(self) -> str:
        """The platform's name as people know it (the privacy notice names it)."""

    def forget_word(self, tr: Translator) -> str:
        """How a person asks to be forgotten here, as the privacy notice quotes it."""

    def kept(self, tr: Translator) -> str:
        """The privacy notice's line on what this platform keeps beside what every one
        does (or says it does not keep); "" for none."""

    def where_forget(self, tr: Translator) -> str:
        """Said to someone who asks to be forgotten where it cannot be confirmed."""

    def forgotten(self, tr: Translator) -> str:
        """Said once a person is forgotten: how they come back."""

    @property
    def chatter_cooldown(self) -> int:
        """Seconds between two answers to words we do not read (0: every time)."""


class Links(Protocol):
    """Links that open a table, from every platform that serves it."""

    def private(self, room: str, join: bool = False) -> str | None:
        """The link that opens `room` in the person's private chat with the Telegram bot
        (`join` seats them first); None where there is no such bot."""

    def invitations(self, room: str, lang: str) -> dict[str, str]:
        """For a family's table: a link by platform name, to share in a family's chat."""

    def group(self, room: Room) -> str | None:
        """The link that opens the room's table in its group, where its platform has
        one; None elsewhere."""


# What a platform keeps of a person beside the store's keys, deleted when they ask to
# be forgotten (Telegram: replies waiting for their chat; WhatsApp: their BSUID's keys).
Forgetting = Callable[[int], None]


def no_traces(player: int) -> None:
    return None
