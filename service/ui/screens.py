"""Platform-neutral screens: what a chat shows of a room, already translated.

A screen is text plus rows of buttons; a chat adapter (Telegram today, WhatsApp next)
renders it. Screens are built from engine *views* only, so a screen for the group or
for one player can hold nothing that player may not see.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter

from engine.follow_suit.game import GameState, to_move
from engine.follow_suit.rules import LETTERS, Rules
from engine.follow_suit.views import PlayerView, PublicView, player_view, public_view
from engine.kernel.cards import JOKER_CODE, SUIT_SYMBOLS
from service.i18n import LANGUAGE_NAMES, Translator, _
from service.table.log import LogKind, LogLine
from service.table.room import Room
from service.ui.intents import (
    Choice,
    Command,
    CommandName,
    Intent,
    Move,
    NotPlayable,
    OpenPrivate,
    Option,
    Press,
    ShowCards,
)

PRESET_NAMES = {
    "spanish": _("Spanish Burro"),
    "spanish48": _("Spanish Burro, 48 cards"),
    "brazilian": _("Brazilian Burro"),
    "portuguese": _("Portuguese Burro (Burro Deitado)"),
    "burro_em_pe": _("Burro em Pé (the tent)"),
    "cangkul": _("Cangkul / Donkey"),
    "cuartetos": _("Cuartetos (pass the cards)"),
}
SPANISH_SUITS = {"D": _("oros"), "H": _("copas"), "S": _("espadas"), "C": _("bastos")}
# Spanish-suited ranks by their Spanish names (the English catalog names them in English).
SPANISH_FACES = {"A": _("As"), "J": _("Sota"), "Q": _("Caballo"), "K": _("Rey")}
# French-suited ranks stay symbols on cards; /rules spells them out once.
FRENCH_FACES = {"A": _("Ace"), "K": _("King"), "Q": _("Queen"), "J": _("Jack")}
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
    rank, suit = code[:-1], code[-1]
    if spanish:
        name = rank_name(rank, spanish, tr)
        return tr.gettext("{rank} of {suit}", rank=name, suit=tr.gettext(SPANISH_SUITS[suit]))
    return rank + SUIT_SYMBOLS[suit]


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


@dataclass(frozen=True)
class Button:
    label: str
    intent: Intent  # what pressing it means (service.ui.intents); the platform renders it


@dataclass(frozen=True)
class Screen:
    text: str
    rows: tuple[tuple[Button, ...], ...] = ()


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


class Painter:
    """Builds the screens of one room in one language."""

    def __init__(self, room: Room, lang: str, bot_username: str = "burro_bot") -> None:
        self.room = room
        self.bot_username = bot_username
        self.tr = Translator(lang)
        self._ = self.tr.gettext

    # ----- small pieces ------------------------------------------------------------

    def button(self, label: str, what: Move | Command | Option) -> Button:
        """A button that acts on the room as it is now: a move names the phase it was drawn
        for (service.table.play), anything else the room's version."""
        version = self.room.phase_version if isinstance(what, Move) else self.room.version
        return Button(label, Press(self.room.id, version, what))

    def command(self, label: str, name: CommandName) -> Button:
        return self.button(label, Command(name))

    def chat_rows(self) -> tuple[Button, ...]:
        """A group table's way to a player's cards: a list here, or the private chat."""
        return (
            Button(self._("🃏 My cards"), ShowCards(self.room.id)),
            Button(self._("💬 In private"), OpenPrivate(self.room.id)),
        )

    def spanish(self) -> bool:
        rules = self.rules()
        return spanish_suits(rules.deck, rules.suit_style)

    def card(self, code: str) -> str:
        """A card for people, in the room's suit style."""
        return card_name(code, self.spanish(), self.tr)

    def cards(self, codes: Iterable[str]) -> str:
        return card_list(codes, self.spanish(), self.tr)

    def rules(self) -> Rules:
        rules = self.room.game.rules if self.room.game else self.room.settings.rules()
        assert isinstance(rules, Rules), "a follow-suit painter for a passing game"
        return rules

    def name(self, seat: int) -> str:
        seat_info = self.room.seats[seat]
        return seat_info.name + (" 🤖" if seat_info.bot else "")

    def preset_name(self) -> str:
        return self._(PRESET_NAMES[self.room.settings.preset])

    def score_text(self, seat: int, score: int) -> str:
        rules = self.rules()
        if rules.scoring == "letters":
            return "-".join(LETTERS[:score]) or "·"
        if rules.scoring == "wins":
            return self.tr.ngettext("{n} win", "{n} wins", score)
        return self.tr.ngettext("{n} point", "{n} points", score)

    # ----- the lobby ---------------------------------------------------------------

    def lobby(self) -> Screen:
        _ = self._
        room = self.room
        lines = [
            _("🫏 New game of Burro: {preset}", preset=self.preset_name()),
            self.rules_line(),
            "",
            _("Players ({n}):", n=len(room.seats)),
            *(f"  {i + 1}. {self.name(i)}" for i in range(len(room.seats))),
        ]
        if room.private:
            lines += ["", _("Add bots (up to 7), choose the game in Settings, then Start.")]
        elif len(room.seats) < 2:
            lines += ["", _("Tap Join to sit down. The game starts with 2 or more players.")]
        return Screen("\n".join(lines), self.lobby_rows())

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

    def rules_line(self) -> str:
        rules, settings = self.rules(), self.room.settings
        return self._(
            "{hand} cards each · {goal} · turn time {timeout}",
            hand=rules.hand_size,
            goal=self.goal_text(rules),
            timeout=duration(settings.turn_timeout, self.tr),
        )

    def goal_text(self, rules: Rules) -> str:
        _ = self._
        if rules.scoring == "letters":
            return _("B-U-R-R-O loses")
        if rules.scoring == "wins":
            return _("first to {n} wins", n=rules.target)
        if rules.scoring == "single":
            return _("one hand")
        return self.tr.ngettext("{n} point loses", "{n} points lose", rules.target)

    # ----- the table ---------------------------------------------------------------

    def table(self) -> Screen:
        """The group's table message: everything public, nobody's cards."""
        assert isinstance(self.room.game, GameState)
        view = public_view(self.room.game)
        lines = self.table_lines(view)
        rows: list[tuple[Button, ...]] = []
        if not view.game_over and not self.room.private:
            rows.append(self.chat_rows())
        if view.game_over or self.room.status == "over":
            rows.append((self.command(self._("🔁 Rematch"), "rematch"),))
        return Screen("\n".join(lines), fit(rows))

    def table_lines(self, view: PublicView) -> list[str]:
        _ = self._
        lines = [_("🫏 {preset} · hand {n}", preset=self.preset_name(), n=view.hand_no)]
        for seat in range(view.seats):
            lines.append(self.seat_line(view, seat))
        lines.append("")
        if view.trick:
            played = CARD_SEPARATOR.join(
                f"{self.card(c)} ({self.room.seats[s].name})" for s, c in view.trick
            )
            lines.append(_("On the table: {cards}", cards=played))
        lines.append(self.stock_line(view))
        recent = self.recent_events()
        if recent:
            lines += ["", *recent]
        lines += ["", self.status_line(view), self.legend(self.marks(view))]
        return lines

    def marks(self, view: PublicView) -> set[str]:
        """The marks the seat lines show."""
        marks = {"🎴"}
        if view.to_move is not None:
            marks.add("▶️")
        if view.out:
            marks.add("✅")
        if any(seat.bot for seat in self.room.seats):
            marks.add("🤖")
        return marks

    def seat_line(self, view: PublicView, seat: int) -> str:
        mark = "▶️" if view.to_move == seat else ("✅" if seat in view.out else "▫️")
        dealer = " 🎴" if view.dealer == seat else ""
        cards = self.tr.ngettext("{n} card", "{n} cards", view.counts[seat])
        score = self.score_text(seat, view.scores[seat])
        return f"{mark} {self.name(seat)}{dealer}: {cards} · {score}"

    def stock_line(self, view: PublicView) -> str:
        if len(view.piles) == 2:
            return self._(
                "Stock (tent): {left} left · {right} right", left=view.piles[0], right=view.piles[1]
            )
        return self.tr.ngettext("Stock: {n} card", "Stock: {n} cards", view.stock)

    def status_line(self, view: PublicView) -> str:
        _ = self._
        if view.game_over:
            return self.game_over_text(view)
        if view.to_move is None:
            return ""
        return _("{name} to play.", name=self.name(view.to_move))

    def game_over_text(self, view: PublicView) -> str:
        ng = self.tr.ngettext
        winners, losers = self.seat_names(view.winners), self.seat_names(view.losers)
        if self.rules().scoring == "wins":
            won = ng(
                "🏆 Game over: {names} won.",
                "🏆 Game over: {names} won.",
                len(view.winners),
                names=winners,
            )
            last = ng("Last: {names}.", "Last: {names}.", len(view.losers), names=losers)
            return f"{won} {last}"
        burro = burro_text(self.tr, len(view.losers), losers)
        return f"{burro} {winners_text(self.tr, len(view.winners), winners)}"

    def seat_names(self, seats: Iterable[int]) -> str:
        return ", ".join(self.room.seats[s].name for s in seats) or "—"

    def legend(self, marks: Iterable[str]) -> str:
        """What the marks shown on a table mean, in one line."""
        return CARD_SEPARATOR.join(self._(LEGEND[m]) for m in LEGEND if m in set(marks))

    def recent_events(self, keep: int = 5) -> list[str]:
        """The log in words, a turn's draws and play told as one line."""
        lines: list[str] = []
        pending_draws: dict[int, int] = {}
        hand_no = self.room.game.hand_no if self.room.game else 0
        for line in self.room.log:
            if line.hand_no != hand_no and not (
                line.hand_no == hand_no - 1 and line.kind in RESULTS
            ):
                continue  # cards of an earlier hand may be in hands again: show only results
            if line.kind == LogKind.DRAW:
                pending_draws[line.seat] = pending_draws.get(line.seat, 0) + line.count
                continue
            drawn = pending_draws.pop(line.seat, 0) if line.seat >= 0 else 0
            text = self.event_text(line, drawn)
            if text:
                lines.append(text)
        for seat, drawn in pending_draws.items():
            lines.append(
                self.tr.ngettext(
                    "{name} drew {n} card.", "{name} drew {n} cards.", drawn, name=self.name(seat)
                )
            )
        return lines[-keep:]

    def event_text(self, line: LogLine, drawn: int) -> str:
        _, ng = self._, self.tr.ngettext
        who = self.name(line.seat) if 0 <= line.seat < len(self.room.seats) else ""
        card = self.card(line.card) if line.card else ""
        if line.kind == LogKind.PLAY:
            if drawn:
                return ng(
                    "{name} drew {n} card and played {card}.",
                    "{name} drew {n} cards and played {card}.",
                    drawn,
                    name=who,
                    card=card,
                )
            return _("{name} played {card}.", name=who, card=card)
        if line.kind == LogKind.PASS:
            if drawn:
                return ng(
                    "{name} drew {n} card and passed.",
                    "{name} drew {n} cards and passed.",
                    drawn,
                    name=who,
                )
            return _("{name} passed.", name=who)
        return self.other_event_text(line, who, card)

    def other_event_text(self, line: LogLine, who: str, card: str) -> str:
        _, ng = self._, self.tr.ngettext
        texts = {
            LogKind.PICKUP: lambda: ng(
                "{name} picked up {n} card.", "{name} picked up {n} cards.", line.count, name=who
            ),
            LogKind.TRICK: lambda: _("{name} won the trick.", name=who),
            LogKind.OUT: lambda: _("{name} is out of cards! ✅", name=who),
            LogKind.TOPPLE: lambda: ng(
                "{name} knocked the tent over and took {n} card!",
                "{name} knocked the tent over and took {n} cards!",
                line.count,
                name=who,
            ),
            LogKind.BURRO: lambda: _(
                "🫏 {name} is the burro of hand {n}!", name=who, n=line.hand_no
            ),
            LogKind.WINNER: lambda: _("🏆 {name} won hand {n}!", name=who, n=line.hand_no),
            LogKind.NO_BURRO: lambda: _("Hand {n} ended with no burro.", n=line.hand_no),
            LogKind.TRICK_CAP: lambda: _(
                "Hand {n} was stopped after too many tricks: no result.", n=line.hand_no
            ),
            LogKind.TIMEOUT: lambda: _(
                "⏰ {name} ran out of time; a bot played for them.", name=who
            ),
            LogKind.REMOVED: lambda: _(
                "{name} timed out too often; a bot takes the seat.", name=who
            ),
        }
        make = texts.get(line.kind)
        text = make() if make else ""
        if text and line.order and line.kind in RESULTS:
            names = ", ".join(self.room.seats[s].name for s in line.order)
            text += " " + _("Out of cards, in order: {names}.", names=names)
        return text

    # ----- a player's hand ---------------------------------------------------------

    def hand(self, seat: int, with_table: bool = False) -> Screen:
        """A player's private hand: every card, and only the legal actions as buttons."""
        if self.room.status == "cancelled":
            return cancelled_screen(self.tr)
        assert isinstance(self.room.game, GameState)
        view = player_view(self.room.game, seat)
        _ = self._
        lines = []
        if self.room.private or with_table:
            lines += [*self.table_lines(view), ""]
        else:
            if view.trick:
                lines.append(
                    _("On the table: {cards}", cards=self.cards(c for _s, c in view.trick))
                )
            lines.append(self.stock_line(view))
        lines.append(_("Your cards: {cards}", cards=self.cards(view.hand)))
        lines.append(self.prompt(view))
        return Screen("\n".join(lines), self.action_rows(view))

    def prompt(self, view: PlayerView) -> str:
        _ = self._
        if view.game_over:
            return "" if self.room.private else self.game_over_text(view)
        if view.to_move == view.seat:
            if view.drawing and "draw" in "".join(view.legal):
                return _("Keep drawing until a card of the led suit turns up.")
            return _("Your turn!")
        if view.to_move is None:
            return ""
        return _("Waiting for {name}.", name=self.name(view.to_move))

    def action_rows(self, view: PlayerView) -> tuple[tuple[Button, ...], ...]:
        _ = self._
        rows = self.card_rows(view)
        extra = {
            "draw": _("🂠 Draw"),
            "draw:left": _("⬅️ Draw left ({n})", n=view.piles[0] if view.piles else 0),
            "draw:right": _("Draw right ({n}) ➡️", n=view.piles[-1] if view.piles else 0),
            "pass": _("⏭ Pass"),
        }
        others = [self.button(extra[a], Move(a)) for a in view.legal if a in extra]
        if others:
            rows.append(tuple(others))
        if view.game_over and self.room.private:
            rows.append((self.command(_("🔁 Play again"), "rematch"),))
        return fit(rows)

    def card_rows(self, view: PlayerView) -> list[tuple[Button, ...]]:
        """The playable cards in the hand's order, a suit's cards on rows of their own."""
        playable = [c for c in view.hand if f"play:{c}" in view.legal]
        return grouped(
            (code[-1], self.button(self.card(code), Move(f"play:{code}"))) for code in playable
        )

    def choices(self, seat: int) -> list[Choice]:
        """A player's hand as a list (Telegram's inline results): draw or pass when they
        are legal, then every card, the playable ones marked."""
        assert isinstance(self.room.game, GameState)
        view = player_view(self.room.game, seat)
        _, version = self._, self.room.phase_version
        labels = {
            "draw": _("🂠 Draw"),
            "draw:left": _("⬅️ Draw left"),
            "draw:right": _("Draw right ➡️"),
            "pass": _("⏭ Pass"),
        }
        choices = [
            Choice(Press(self.room.id, version, Move(a)), labels[a], "", labels[a])
            for a in view.legal
            if a in labels
        ]
        playable = {a.removeprefix("play:") for a in view.legal if a.startswith("play:")}
        for index, card in enumerate(view.hand):
            if card in playable:
                press = Press(self.room.id, version, Move(f"play:{card}"))
                choices.append(Choice(press, self.card(card), _("Play this card")))
            else:
                press = Press(self.room.id, version, NotPlayable(index))
                choices.append(Choice(press, self.card(card), _("Not playable now")))
        return choices

    # ----- the group's other messages ----------------------------------------------

    def nudge(self) -> Screen:
        """The group's reminder that someone's turn waits."""
        assert isinstance(self.room.game, GameState)
        seat = to_move(self.room.game)
        name = self.room.seats[seat].name if seat is not None else ""
        return Screen(self._("⏰ {name}, it is your turn in Burro!", name=name))

    def news_lines(self) -> list[str]:
        """How the last hand ended and the scores; the game's result once it is over."""
        assert isinstance(self.room.game, GameState)
        view = public_view(self.room.game)
        result = last_result(self.room, RESULTS, view.hand_no)
        lines = [self.event_text(result, 0)] if result is not None else []
        if self.rules().scoring != "single":
            scores = CARD_SEPARATOR.join(
                f"{self.room.seats[s].name}: {self.score_text(s, view.scores[s])}"
                for s in range(view.seats)
            )
            lines.append(self._("Scores: {scores}", scores=scores))
        if view.game_over:
            lines.append(self.game_over_text(view))
        return lines

    # ----- rules and settings ------------------------------------------------------

    def rules_text(self) -> str:
        return rules_text(self.rules(), self.tr)

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

    def settings(self) -> Screen:
        _ = self._
        s = self.room.settings
        rules = self.rules()
        return self.settings_screen(
            [
                ("preset", _("🎲 Game"), _("Game: {v}", v=self.preset_name())),
                ("hand", _("🃏 Cards"), _("Cards each: {v}", v=rules.hand_size)),
                ("target", _("🎯 Goal"), _("Goal: {v}", v=self.goal_text(rules))),
                (
                    "empty",
                    _("🂠 Empty stock"),
                    _("Empty stock: {v}", v=_(EMPTY_STOCK[rules.empty_stock])),
                ),
                ("end", _("🏁 Hand end"), _("Hand end: {v}", v=_(HAND_ENDS[rules.hand_end]))),
                (
                    "timeout",
                    _("⏱ Turn time"),
                    _("Turn time: {v}", v=duration(s.turn_timeout, self.tr)),
                ),
                ("ontimeout", _("🐢 Late players"), self.timeout_text()),
                *self.shared_settings(rules.suit_style),
            ]
        )

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
        ]

    def settings_screen(self, items: Sequence[tuple[str, str, str]]) -> Screen:
        # items: (the setting's key for lobby.change_setting, its button, its line)
        """Settings: every value a line of the text, every setting a short button that
        changes it (the values are too long for a phone's buttons)."""
        _ = self._
        lines = [_("⚙️ Settings (tap a button to change it)"), *(line for _k, _b, line in items)]
        buttons = [self.button(label, Option(key)) for key, label, _line in items]
        rows = (*flow(buttons), (self.command(_("✔️ Done"), "settings_done"),))
        return Screen("\n".join(lines), rows)


RESULTS = (LogKind.BURRO, LogKind.WINNER, LogKind.NO_BURRO, LogKind.TRICK_CAP)


def last_result(room: Room, kinds: tuple[LogKind, ...], hand_no: int) -> LogLine | None:
    """The newest log line telling how a hand ended, if it is of this hand or the last."""
    found = [line for line in room.log if line.kind in kinds and line.hand_no >= hand_no - 1]
    return found[-1] if found else None


# The marks a table shows beside names, explained in its last line.
LEGEND = {
    "▶️": _("▶️ to play"),
    "✅": _("✅ out of cards"),
    "🎴": _("🎴 dealer"),
    "🤖": _("🤖 bot"),
}


def burro_text(tr: Translator, count: int, names: str) -> str:
    return tr.ngettext(
        "🏁 Game over: {names} is the burro! 🫏",
        "🏁 Game over: {names} are the burros! 🫏",
        count,
        names=names,
    )


def winners_text(tr: Translator, count: int, names: str) -> str:
    return tr.ngettext("Winner: {names}.", "Winners: {names}.", count, names=names)


EMPTY_STOCK = {
    "pass": _("pass"),
    "pickup_after_trick": _("pick up the trick"),
    "take_the_table": _("take the table"),
}
HAND_ENDS = {
    "last_holder_loses": _("last with cards loses"),
    "first_out_wins": _("first out wins"),
}
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
        tr.gettext(_("📊 {name}"), name=name),
        tr.ngettext("{n} game played", "{n} games played", counts.get("games", 0)),
        tr.ngettext("{n} game won", "{n} games won", counts.get("wins", 0)),
        tr.ngettext("{n} time the burro", "{n} times the burro", counts.get("burro", 0)),
    ]


def games_list(tr: Translator) -> str:
    """Every game by its name, with the word that opens it (`/burro cangkul`)."""
    return "\n".join(
        tr.gettext("• {name}: {word}", name=tr.gettext(name), word=preset)
        for preset, name in PRESET_NAMES.items()
    )


def rules_text(rules: Rules, tr: Translator) -> str:
    """The preset's rules, short, in the reader's language."""
    _ = tr.gettext
    lines = [
        _("🫏 {preset}", preset=_(PRESET_NAMES[rules.preset])),
        _("Each player gets {n} cards; the rest is the stock.", n=rules.hand_size),
        _(
            "Follow the suit that was led. No trumps: the highest card of the led suit wins "
            "the trick, and its winner leads next."
        ),
    ]
    if rules.drawing == "strict":
        lines.append(
            _("Can't follow? Draw from the stock until the suit turns up, and play that card.")
        )
    else:
        lines.append(
            _(
                "You may draw from the stock even when you could play, and stop once "
                "you hold a card of the led suit."
            )
        )
    if rules.tent:
        lines.append(
            _(
                "The stock stands as a tent in two halves: draw from the left or the "
                "right. Knock it over and you take it all!"
            )
        )
    lines.append(
        {
            "pass": _("Stock empty and no card of the suit? Pass."),
            "pickup_after_trick": _(
                "Stock empty and no card of the suit? Pass, and pick up "
                "the trick's cards at its end."
            ),
            "take_the_table": _(
                "Stock empty and no card of the suit? Take the cards on the table."
            ),
        }[rules.empty_stock]
    )
    if rules.hand_end == "first_out_wins":
        lines.append(_("The first player to get rid of all their cards wins the hand."))
    else:
        lines.append(_("Players out of cards are safe; the last one holding cards is the burro."))
    order = rank_order_text(rules.ranks, spanish_suits(rules.deck, rules.suit_style), tr)
    lines.append(_("Card order, high to low: {order}", order=order))
    return "\n".join(lines)
