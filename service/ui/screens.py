"""Platform-neutral screens: what a chat shows of a room, already translated.

A screen is text plus rows of buttons; a chat adapter (Telegram, WhatsApp) renders it.
This module holds what every game's screens share: the screen and its buttons, how rows
fit a phone, card names, and `TablePainter` (a room's buttons, names, lobby buttons and
shared settings). Each game's painter, in its own module (`service.ui.follow_suit`,
`service.ui.cuartetos`), builds its screens from the engine's *views* only, so a screen
for the group or for one player can hold nothing that player may not see. No game's
presets are named here: each game's module names its own (`service.ui.games` lists them).
"""

from __future__ import annotations

import functools
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

from engine.kernel.cards import JOKER_CODE, SUIT_SYMBOLS
from engine.kernel.tip import Tip
from engine.registry import find_game
from service.i18n import LANGUAGE_NAMES, Translator, _
from service.table import targets
from service.table.log import LogKind, LogLine
from service.table.names import shown
from service.table.room import Room
from service.ui import spans
from service.ui.clock import moment, when

if TYPE_CHECKING:
    from service.ui.picture import Picture
from service.ui.intents import (
    Command,
    CommandName,
    Intent,
    Move,
    OpenPrivate,
    OpenView,
    Option,
    Press,
    ShowCards,
)

SPANISH_SUITS = {"D": _("oros"), "H": _("copas"), "S": _("espadas"), "C": _("bastos")}
# Spanish-suited ranks by their Spanish names (the English catalog names them in English).
SPANISH_FACES = {"A": _("As"), "J": _("Sota"), "Q": _("Caballo"), "K": _("Rey")}
# French-suited ranks stay symbols on cards; /rules spells them out once.
FRENCH_FACES = {"A": _("Ace"), "K": _("King"), "Q": _("Queen"), "J": _("Jack")}
# French suits by their names, where a sentence names a suit (a tip).
FRENCH_SUITS = {"S": _("spades"), "H": _("hearts"), "D": _("diamonds"), "C": _("clubs")}
TIP_MARK = "💡"
CARD_SEPARATOR = " · "

# Buttons: a phone about 390 px wide shows some 32 characters across one row of buttons,
# and each button of a row of n gets an n-th of it (Telegram cuts a longer label with …).
ROW_WIDTH = 32
MAX_ROW_BUTTONS = 8  # Telegram's limit of buttons in one row


def spanish_suits(deck: str, suit_style: str) -> bool:
    """Whether cards show with Spanish suits (only a Spanish deck can)."""
    return suit_style == "spanish" and deck.startswith("spanish")


def rank_name(rank: str, spanish: bool, tr: Translator) -> str:
    """A rank as cards show it: Sota, Caballo, Rey and As in Spanish suits, else as is."""
    return tr.gettext(SPANISH_FACES[rank]) if spanish and rank in SPANISH_FACES else rank


def card_name(code: str, spanish: bool, tr: Translator) -> str:
    """A card for people: `As de oros`, `Caballo de copas`; `10♥`, `K♠`; 🃏 the joker."""
    if code == JOKER_CODE:
        return "🃏"
    if spanish:
        return tr.once(_spanish_card_name, code)  # some 40 a screen
    return code[:-1] + SUIT_SYMBOLS[code[-1]]


def _spanish_card_name(code: str, tr: Translator) -> str:
    rank, suit = code[:-1], code[-1]
    name = rank_name(rank, True, tr)
    return tr.gettext("{rank} of {suit}", rank=name, suit=tr.gettext(SPANISH_SUITS[suit]))


def card_list(codes: Iterable[str], spanish: bool, tr: Translator) -> str:
    return CARD_SEPARATOR.join(card_name(c, spanish, tr) for c in codes) or "—"


def rank_order_text(ranks: Sequence[str], spanish: bool, tr: Translator) -> str:
    """The ranks high to low by their names: `Rey, Caballo, Sota, 7 … As` or
    `A (Ace), K (King) … 2`."""
    names = []
    for rank in ranks:
        if spanish:
            names.append(rank_name(rank, spanish, tr))
        elif rank in FRENCH_FACES:
            names.append(f"{rank} ({tr.gettext(FRENCH_FACES[rank])})")
        else:
            names.append(rank)
    return ", ".join(names)


@functools.lru_cache(maxsize=4096)  # the same card and button names, screen after screen
def label_width(label: str) -> int:
    """How many characters wide a label shows: an emoji or symbol counts two, a
    variation selector or joiner nothing."""
    width = 0
    for char in label:
        category = unicodedata.category(char)
        if category in ("Mn", "Me", "Cf"):
            continue
        wide = category == "So" or unicodedata.east_asian_width(char) in ("W", "F")
        width += 2 if wide else 1
    return width


def row_share(buttons: int) -> int:
    """The width a label may take in a row of `buttons`."""
    return ROW_WIDTH // buttons


# How a button stands out, where a platform can colour it: a move to make (a playable
# card), a call to shout (¡Burro!), a move that costs (taking the pile).
Tone = Literal["go", "call", "danger"]


@dataclass(frozen=True)
class Button:
    label: str
    intent: Intent  # what pressing it means (service.ui.intents); the platform renders it
    tone: Tone | None = None


@dataclass(frozen=True)
class Screen:
    text: str
    rows: tuple[tuple[Button, ...], ...] = ()
    # the same, drawn (a player's hand: service.ui.picture), for a front end that draws
    picture: Picture | None = None


Rows = tuple[tuple[Button, ...], ...]


def cancelled_screen(tr: Translator) -> Screen:
    """What a cancelled game's messages say: no buttons are left to press."""
    return Screen(tr.gettext(_("🫏 This game of Burro was cancelled.")))


def fits(row: Sequence[Button]) -> bool:
    """Whether every label of a row shows whole on a phone."""
    share = row_share(len(row))
    return len(row) <= MAX_ROW_BUTTONS and all(label_width(b.label) <= share for b in row)


def flow(buttons: Iterable[Button]) -> list[tuple[Button, ...]]:
    """Buttons in order, as many to a row as show whole."""
    rows: list[tuple[Button, ...]] = []
    row: tuple[Button, ...] = ()
    for button in buttons:
        if row and not fits((*row, button)):
            rows.append(row)
            row = ()
        row += (button,)
    return [*rows, row] if row else rows


def grouped(buttons: Iterable[tuple[str, Button]]) -> list[tuple[Button, ...]]:
    """Buttons in order, each group's (a suit's, a rank's) on rows of its own."""
    rows: list[tuple[Button, ...]] = []
    for _group, members in groupby(buttons, key=itemgetter(0)):
        rows += flow(button for _key, button in members)
    return rows


def fit(rows: Iterable[Sequence[Button]]) -> Rows:
    """Rows as laid out where they show whole; a row too wide flows onto more rows."""
    out: list[tuple[Button, ...]] = []
    for row in rows:
        out += [tuple(row)] if fits(row) else flow(row)
    return tuple(out)


class SuitedRules(Protocol):
    """What the shared pieces read of a game's rules: how its cards are named."""

    @property
    def deck(self) -> str: ...
    @property
    def suit_style(self) -> str: ...


# The lobby's hint while a group table has too few players, by the game's least.
JOIN_HINTS = {
    2: _("Tap Join to sit down. The game starts with 2 or more players."),
    3: _("Tap Join to sit down. The game starts with 3 or more players."),
}
# The same, where the lobby is shown in the chat of its host, seated already (a family's
# table opened from a person's own chat): what they wait for.
WAIT_HINTS = {
    2: _(
        "You are seated. The game starts with 2 or more players: "
        "wait for your family to join, or add a bot."
    ),
    3: _(
        "You are seated. The game starts with 3 or more players: "
        "wait for your family to join, or add bots."
    ),
}
HOST_TABLE = _("{name}'s table")  # a table whose chat has no name of its own


def table_name(room: Room, tr: Translator) -> str:
    """The table's name as people call it: its group's title, else its host's table
    ("Grandma's table"), else the game's name (a table nobody sits at)."""
    if room.name and not room.private:
        return shown(room.name)
    host = room.host()
    return tr.gettext(HOST_TABLE, name=shown(host.name)) if host else "Burro"


def titled(screen: Screen, room: Room, tr: Translator) -> Screen:
    """A message with no header of its own (a word said to one player, a hand's news in
    their chat), opening with its table's name: for a reader at more than one table."""
    return Screen(f"🫏 {table_name(room, tr)}\n{screen.text}", screen.rows)


class TablePainter(ABC):
    """The pieces of a room's screens that every game shares: buttons that act on
    the room, names, cards in the room's suit style, the lobby, the shared settings.
    Each game's painter builds on it (`service.ui.follow_suit`, `service.ui.cuartetos`)
    and gives its `rules`, its `rules_line`, its `min_players` and its `preset_names`."""

    min_players: ClassVar[int]  # the least players a group table starts with (JOIN_HINTS)
    preset_names: ClassVar[Mapping[str, str]]  # the game's presets by their names

    def __init__(self, room: Room, lang: str, bot_username: str = "burro_bot") -> None:
        self.room = room
        self.bot_username = bot_username
        self.tr = Translator(lang)
        self._ = self.tr.gettext
        # The screen's story begins after this line of the log (service.ui.story.Cursor):
        # the outbox sets it from what the message showed last; 0 tells the whole log.
        self.after = 0
        # The reader sits at more than one table at once: their screens name this one
        # (the outbox sets it; a reader at one table is not told what they know).
        self.named = False
        self.shown_hints: frozenset[str] = frozenset()  # the hints this drawing shows
        # The time zone of the one person a screen is painted for (their hand), where the
        # painter's maker knows it; None: the room's own (the group's table).
        self.reader_zone: str | None = None

    @abstractmethod
    def rules(self) -> SuitedRules:
        """The room's rules, of its game (each game's painter says)."""

    @abstractmethod
    def rules_line(self) -> str:
        """The rules in one line, under the lobby's title."""

    @abstractmethod
    def hand(self, seat: int, with_table: bool = False) -> Screen:
        """A seat's hand in its own chat (with the table above it, `with_table`)."""

    def bare_hand(self, seat: int) -> Screen:
        """The seat's hand as its own chat shows it (with the table where the table is
        not shown elsewhere), without hints: what a hint must fit beside."""
        user = self.room.seats[seat].user_id
        with_table = user is None or not targets.shows_table(self.room, user)
        shown, self.shown_hints = self.shown_hints, frozenset()
        try:
            return self.hand(seat, with_table=with_table)
        finally:
            self.shown_hints = shown

    def story_after(self, reader: int | None) -> int:
        """Where the screen's story begins: after `after`; a finished game's table (the
        group's, or a one-to-one game's), from the start of what the log keeps: anyone
        may read it later, not one reader."""
        table = reader is None or self.room.private
        return 0 if self.room.status == "over" and table else self.after

    def spanish(self) -> bool:
        rules = self.rules()
        return spanish_suits(rules.deck, rules.suit_style)

    def card(self, code: str) -> str:
        """A card for people, in the room's suit style."""
        return card_name(code, self.spanish(), self.tr)

    def cards(self, codes: Iterable[str]) -> str:
        return card_list(codes, self.spanish(), self.tr)

    def button(self, label: str, what: Move | Command | Option, tone: Tone | None = None) -> Button:
        """A button that acts on the room as it is now: a move names the phase it was drawn
        for (service.table.play), anything else the room's version."""
        version = self.room.phase_version if isinstance(what, Move) else self.room.version
        return Button(label, Press(self.room.id, version, what), tone)

    def clock(self, at: float) -> str:
        """A moment as its reader's local time (else the room's), naming the zone."""
        return when(at, self.zone(), self.tr)

    def moment(self, at: float) -> str:
        """A deadline as a screen shows it: `clock`'s words, marked so that where a
        platform can, each reader sees it in their own zone (service.ui.clock)."""
        return moment(at, self.zone(), self.tr)

    def zone(self) -> str:
        return self.reader_zone or self.room.settings.timezone

    def turn_deadline(self) -> float | None:
        """When the turn (the phase) in play times out, where a reader waits on it: a
        table others may share (a one-to-one game against bots waits for no one)."""
        if self.room.private or self.room.status != "playing":
            return None
        return self.room.deadline

    def command(self, label: str, name: CommandName) -> Button:
        return self.button(label, Command(name))

    def chat_rows(self) -> tuple[Button, ...]:
        """A group table's way to a player's cards: a list here, or the private chat; and
        to the table's picture (`fit` flows the row onto two on a phone)."""
        return (
            Button(self._("🃏 My cards"), ShowCards(self.room.id)),
            Button(self._("💬 In private"), OpenPrivate(self.room.id)),
            self.view_button(None),
        )

    def view_button(self, seat: int | None) -> Button:
        """The button that opens the table's picture, on the screen of `seat` (None: the
        group's table): private where that screen goes to a private chat with the bot (a
        one-to-one table; a hand, unless its player plays from the group: `room.mine`)."""
        user = None if seat is None else self.room.seats[seat].user_id
        private = self.room.private or (user is not None and user not in self.room.mine)
        return Button(self._("🖼 Table"), OpenView(self.room.id, private))

    def view_rows(self, seat: int) -> list[tuple[Button, ...]]:
        """Under a hand in play: the table's picture (a platform without the view configured
        leaves the button out)."""
        return [(self.view_button(seat),)] if self.room.status == "playing" else []

    def name(self, seat: int) -> str:
        """A seat's name as a line shows it, with a bot's mark."""
        return self.seat_name(seat) + (" 🤖" if self.room.seats[seat].bot else "")

    def called_name(self, seat: int) -> str:
        """A seat's name in a group's reminder: naming its person, so that it tells them
        (a mention: service.ui.spans) where the platform can."""
        user = self.room.seats[seat].user_id
        name = self.seat_name(seat)
        return spans.mention(user, name) if user is not None else name

    def seat_name(self, seat: int) -> str:
        """A seat's name as a line shows it: isolated if it is right to left
        (`service.table.names.shown`)."""
        return shown(self.room.seats[seat].name)

    def preset_name(self) -> str:
        return self._(self.preset_names[self.room.settings.preset])

    def table_name(self) -> str:
        return table_name(self.room, self.tr)

    def headline(self, line: str) -> str:
        """A screen's first line, the table's name after it when the reader sits at more
        than one table ("🫏 Spanish Burro · hand 1 · Grandma's table")."""
        return f"{line}{CARD_SEPARATOR}{self.table_name()}" if self.named else line

    def name_lines(self) -> list[str]:
        """A screen that has no first line of its own (a hand in a private chat) opens
        with the table's name, when the reader sits at more than one table."""
        return [f"🫏 {self.table_name()}"] if self.named else []

    def lobby(self) -> Screen:
        _ = self._
        room = self.room
        lines = [
            self.headline(_("🫏 New game of Burro: {preset}", preset=self.preset_name())),
            self.rules_line(),
            "",
            _("Players ({n}):", n=len(room.seats)),
            *(f"  {i + 1}. {self.name(i)}" for i in range(len(room.seats))),
        ]
        if room.private:
            lines += ["", _("Add bots (up to 7), choose the game in Settings, then Start.")]
        elif len(room.seats) < self.min_players:
            lines += ["", self.wait_hint()]
        return Screen("\n".join(lines), self.lobby_rows())

    def wait_hint(self) -> str:
        """What a lobby with too few players says: in a group, how to sit down; in the
        chat of its host, seated already, what they wait for."""
        hints = WAIT_HINTS if self.room.seat_of(self.room.chat_id) is not None else JOIN_HINTS
        return self._(hints[self.min_players])

    def lobby_rows(self) -> Rows:
        """The lobby's buttons (both families have the same)."""
        _ = self._
        if self.room.private:
            return fit(
                (
                    (
                        self.command(_("🤖 Add bot"), "add_bot"),
                        self.command(_("➖ Remove bot"), "remove_bot"),
                    ),
                    (
                        self.command(_("⚙️ Settings"), "settings"),
                        self.command(_("▶️ Start"), "start"),
                    ),
                )
            )
        return fit(
            (
                (self.command(_("✋ Join"), "join"), self.command(_("🚪 Leave"), "leave")),
                (self.command(_("🤖 Add bot"), "add_bot"), self.command(_("📖 Rules"), "rules")),
                (self.command(_("⚙️ Settings"), "settings"), self.command(_("▶️ Start"), "start")),
            )
        )

    def timeout_text(self) -> str:
        settings = self.room.settings
        if settings.timeout_action == "remove":
            return self.tr.ngettext(
                "Late players: a bot takes the seat after {n} timeout",
                "Late players: a bot takes the seat after {n} timeouts",
                settings.max_timeouts,
            )
        return self._("Late players: a bot plays their turn")

    def quiet_text(self) -> str:
        hours = self.room.settings.quiet_hours
        if hours is None:
            return self._("off")
        return self._("{start}:00–{end}:00", start=hours[0], end=hours[1])

    def shared_settings(self, suit_style: str) -> list[tuple[str, str, str]]:
        """The settings both families have, as (setting, button, line)."""
        _, s = self._, self.room.settings
        language = (
            _("Language: {v}", v=LANGUAGE_NAMES[s.language])
            if s.language
            else _("Language: as the opener's")
        )
        suits = (
            _("Suits: Spanish (oros, copas…)")
            if suit_style == "spanish"
            else _("Suits: French ♠♥♦♣")
        )
        return [
            (
                "remind",
                _("🔔 Reminder"),
                _("Reminder: {v}", v=duration(s.reminder_after, self.tr)),
            ),
            ("suits", _("♣️ Suits"), suits),
            ("lang", _("🌐 Language"), language),
            ("bot", _("🤖 Bot level"), _("Bot level: {v}", v=_(BOT_LEVEL_NAMES[s.bot_level]))),
            ("quiet", _("🌙 Quiet hours"), _("Quiet hours: {v}", v=self.quiet_text())),
            ("tz", _("🌍 Time zone"), _("Time zone: {v}", v=s.timezone)),
            *self.tips_setting(),
        ]

    def tips_setting(self) -> list[tuple[str, str, str]]:
        """Tips: off by default at a table of people, always on at one with bots (a
        one-to-one table has nothing to choose)."""
        _ = self._
        if self.room.private:
            return []
        if any(seat.bot is not None for seat in self.room.seats):
            line = _("Tips: on, with bots at the table")
        else:
            line = _("Tips: on") if self.room.settings.tips else _("Tips: off")
        return [("tips", _("💡 Tips"), line)]

    # ----- a tip --------------------------------------------------------------------

    def tip_rows(self, legal: Sequence[str]) -> list[tuple[Button, ...]]:
        """The tip's button under a hand with a choice to make, at a table with tips."""
        if self.room.status != "playing" or len(legal) < 2 or not self.room.tips_shown():
            return []
        # Drawn for the phase, as the moves beside it: an old prompt's tip is out of date.
        press = Press(self.room.id, self.room.phase_version, Command("tip"))
        return [(Button(self._("💡 Tip"), press),)]

    def tip_text(self, seat: int) -> str | None:
        """`seat`'s tip now, one sentence in the reader's words (None: no choice to
        make); worked out by the game from the seat's own view."""
        if self.room.game is None or self.room.status != "playing":
            return None
        game = find_game(self.room.settings.preset)[0]
        tip = game.tip(game.player_view(self.room.game, seat))
        return None if tip is None else f"{TIP_MARK} {self.tip_words(tip)}"

    @abstractmethod
    def tip_words(self, tip: Tip) -> str:
        """A tip's reason in words (each game words its own reasons)."""

    def suit_word(self, suit: str) -> str:
        """A suit by its name: `copas` in Spanish suits, `hearts` in French ones."""
        names = SPANISH_SUITS if self.spanish() else FRENCH_SUITS
        return self._(names[suit]) if suit in names else ""

    def rank_word(self, rank: str) -> str:
        """A rank by its name: `Rey` in Spanish suits, `King` (or `7`) in French ones."""
        if self.spanish():
            return rank_name(rank, True, self.tr)
        return self._(FRENCH_FACES[rank]) if rank in FRENCH_FACES else rank

    def settings_screen(self, items: Sequence[tuple[str, str, str]]) -> Screen:
        # items: (the setting's key for lobby.change_setting, its button, its line)
        """Settings: every value a line of the text, every setting a short button that
        changes it (the values are too long for a phone's buttons)."""
        _ = self._
        lines = [_("⚙️ Settings (tap a button to change it)"), *(line for _k, _b, line in items)]
        buttons = [self.button(label, Option(key)) for key, label, _line in items]
        rows = (*flow(buttons), (self.command(_("✔️ Done"), "settings_done"),))
        return Screen("\n".join(lines), rows)


def last_result(room: Room, kinds: tuple[LogKind, ...], hand_no: int) -> LogLine | None:
    """The newest log line telling how a hand ended, if it is of this hand or the last."""
    found = [line for line in room.log if line.kind in kinds and line.hand_no >= hand_no - 1]
    return found[-1] if found else None


def burro_text(tr: Translator, count: int, names: str) -> str:
    return tr.ngettext(
        "🏁 Game over: {names} is the burro! 🫏",
        "🏁 Game over: {names} are the burros! 🫏",
        count,
        names=names,
    )


def winners_text(tr: Translator, count: int, names: str) -> str:
    return tr.ngettext("Winner: {names}.", "Winners: {names}.", count, names=names)


BOT_LEVEL_NAMES = {"easy": _("easy"), "heuristic": _("good"), "strong": _("strong")}


def duration(seconds: int, tr: Translator) -> str:
    if seconds % 3600 == 0 and seconds >= 3600:
        return tr.ngettext("{n} hour", "{n} hours", seconds // 3600)
    if seconds % 60 == 0 and seconds >= 60:
        return tr.ngettext("{n} minute", "{n} minutes", seconds // 60)
    return tr.ngettext("{n} second", "{n} seconds", seconds)


def stats_lines(tr: Translator, name: str, counts: dict[str, int]) -> list[str]:
    """A person's own statistics."""
    return [
        tr.gettext(_("📊 {name}"), name=shown(name)),
        tr.ngettext("{n} game played", "{n} games played", counts.get("games", 0)),
        tr.ngettext("{n} game won", "{n} games won", counts.get("wins", 0)),
        tr.ngettext("{n} time the burro", "{n} times the burro", counts.get("burro", 0)),
    ]


def list_games(tr: Translator, names: Mapping[str, str]) -> str:
    """Presets by their names (`names`: preset -> name), each with the word that opens
    it (`/burro <preset>`)."""
    return "\n".join(
        tr.gettext("• {name}: {word}", name=tr.gettext(name), word=preset)
        for preset, name in names.items()
    )
