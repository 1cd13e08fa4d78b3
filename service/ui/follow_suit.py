"""The follow-suit games' screens (Spanish, Portuguese and Brazilian Burro, Burro em Pé,
Cangkul): the lobby, the group's table, a player's hand with the buttons of their legal
moves, the news of a hand and the settings, each built from the engine's views only, so
a screen holds nothing its reader may not see.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.follow_suit import tip as tips
from engine.follow_suit.game import GameState, to_move
from engine.follow_suit.rules import Rules
from engine.follow_suit.views import PlayerView, PublicView, player_view, public_view
from engine.kernel.rules import LETTERS
from engine.kernel.tip import Tip
from service.i18n import Translator, _
from service.table import games as table_games
from service.table.log import LogKind, LogLine
from service.table.room import Room
from service.ui import hints
from service.ui.intents import (
    Choice,
    Move,
    NotPlayable,
    Press,
)
from service.ui.picture import (
    ACTING,
    BOT,
    OUT,
    YOU,
    Action,
    HandCard,
    Picture,
    SeatPicture,
    hand_cards,
    moves,
    one_line,
)
from service.ui.screens import (
    CARD_SEPARATOR,
    Button,
    Screen,
    TablePainter,
    Tone,
    burro_text,
    cancelled_screen,
    duration,
    fit,
    grouped,
    last_result,
    rank_order_text,
    spanish_suits,
    winners_text,
)
from service.ui.story import Teller, story_row

# The follow-suit presets by their names, as the chat shows and lists them.
PRESET_NAMES = {
    "spanish": _("Spanish Burro"),
    "spanish48": _("Spanish Burro, 48 cards"),
    "brazilian": _("Brazilian Burro"),
    "portuguese": _("Portuguese Burro (Burro Deitado)"),
    "burro_em_pe": _("Burro em Pé (the tent)"),
    "cangkul": _("Cangkul / Donkey"),
}


# A tip's words, by its reason (engine.follow_suit.tip): the move, then why.
TIP_WORDS = {
    tips.LEAD_JOKER: _("Lead {card}: it wins the trick, and your last card leads next."),
    tips.LEAD_AFTER_JOKER: _("Play {card}: the joker wins this trick anyway, so give a low card."),
    tips.LEAD_VOID: _("Lead {card}: someone has no {suit} and must dig in the stock."),
    tips.LEAD_VOID_EMPTY: _("Lead {card}: someone has no {suit} and cannot follow."),
    tips.LEAD_LATE_SINGLETON: _("Lead {card}: the stock is nearly gone, so hold fewer suits."),
    tips.LEAD_KEEP_SUITS: _("Lead {card}: keep a card in every suit while the stock is big."),
    tips.LEAD_BOSS: _("Lead {card}: nobody can beat it, and winning the trick means leading."),
    tips.LEAD_LONG: _(
        "Lead {card} from your longest suit, {suit}: the others run out of it first."
    ),
    tips.LEAD_COUNT: _("Lead {card}: count the cards played, few {suit} are left for the others."),
    tips.FOLLOW_ONLY: _("Play {card}: it is the only card you may play."),
    tips.FOLLOW_HIGH: _("Play {card}: high cards win tricks, and winning means leading."),
    tips.FOLLOW_CHEAP: _("Play {card}: the cheapest card that wins, and winning means leading."),
    tips.FOLLOW_LOW: _("Play {card}, your lowest: you cannot win this trick."),
    tips.FOLLOW_UNDER_JOKER: _("Play {card}, your lowest: the joker wins this trick."),
    tips.VOID_JOKER: _("Play {card}: you have no {suit}, and the joker wins without digging."),
    tips.DRAW: _("Draw: you have no {suit}, so dig in the stock until one turns up."),
    tips.DRAW_TALLER: _("Draw from the taller half of the tent: you have no {suit}."),
    tips.PASS: _("Pass: you have no {suit} and the stock is empty."),
}


class FollowSuitPainter(TablePainter):
    """Builds the screens of one follow-suit room in one language."""

    min_players = 2
    preset_names = PRESET_NAMES
    folded = False  # the screen drawn last folded its story (its button goes below)

    def __init__(self, room: Room, lang: str, bot_username: str = "burro_bot") -> None:
        super().__init__(room, lang, bot_username)
        self._views: dict[int, tuple[GameState, PlayerView]] = {}

    def view_of(self, seat: int) -> PlayerView:
        """`seat`'s view of the game as it stands, worked out once for each state of it
        (one screen asks several times: its text, its picture, its hints)."""
        game = self.room.game
        assert isinstance(game, GameState)
        kept = self._views.get(seat)
        if kept is None or kept[0] is not game:  # (states are frozen: a move makes another)
            kept = self._views[seat] = (game, player_view(game, seat))
        return kept[1]

    def rules(self) -> Rules:
        rules = self.room.game.rules if self.room.game else table_games.rules_of(self.room.settings)
        assert isinstance(rules, Rules), "a follow-suit painter for a passing game"
        return rules

    def score_text(self, seat: int, score: int) -> str:
        rules = self.rules()
        if rules.scoring == "letters":
            return "-".join(LETTERS[:score]) or "·"
        if rules.scoring == "wins":
            return self.tr.ngettext("{n} win", "{n} wins", score)
        return self.tr.ngettext("{n} point", "{n} points", score)

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
        return Screen("\n".join(lines), fit([*rows, *self.story_rows()]))

    def table_lines(self, view: PublicView, reader: int | None = None) -> list[str]:
        _ = self._
        title = _("🫏 {preset} · hand {n}", preset=self.preset_name(), n=view.hand_no)
        lines = [self.headline(title)]
        for seat in range(view.seats):
            lines.append(self.seat_line(view, seat))
        lines.append("")
        if view.trick:
            played = CARD_SEPARATOR.join(
                f"{self.card(c)} ({self.seat_name(s)})" for s, c in view.trick
            )
            lines.append(_("On the table: {cards}", cards=played))
        lines.append(self.stock_line(view))
        recent = self.story(reader)
        if recent:
            lines += ["", *recent]
        mine = reader is not None and view.to_move == reader and not view.game_over
        status = [] if mine else [self.status_line(view)]  # "Your turn!" says it below
        lines += ["", *status, self.legend(self.marks(view))]
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
        due = self.turn_deadline()
        if due is None:
            return _("{name} to play.", name=self.name(view.to_move))
        return _(
            "{name} to play until {time}.", name=self.name(view.to_move), time=self.moment(due)
        )

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
        return ", ".join(self.seat_name(s) for s in seats) or "—"

    def legend(self, marks: Iterable[str]) -> str:
        """What the marks shown on a table mean, in one line."""
        return CARD_SEPARATOR.join(self._(LEGEND[m]) for m in LEGEND if m in set(marks))

    def story(self, reader: int | None, keep: int = 5) -> list[str]:
        """What happened since the screen's story began (`after`), for `reader` (None:
        the group), folded to `keep` moves (service.ui.story)."""
        hand_no = self.room.game.hand_no if self.room.game else 0
        teller = Teller(self.tr, self.event_text, self.card, self.name, hand_no)
        lines = teller.story(self.room.log, self.story_after(reader), reader, keep)
        self.folded = self.folded or teller.folded > 0
        return lines

    def story_rows(self) -> list[tuple[Button, ...]]:
        """The whole story's button, under a screen that folded its story."""
        return [story_row(self.room.id, self.tr)] if self.folded else []

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
            names = ", ".join(self.seat_name(s) for s in line.order)
            text += " " + _("Out of cards, in order: {names}.", names=names)
        return text

    def hand(self, seat: int, with_table: bool = False) -> Screen:
        """A player's private hand: every card, and only the legal actions as buttons."""
        if self.room.status == "cancelled":
            return cancelled_screen(self.tr)
        view = self.view_of(seat)
        _ = self._
        lines = []
        if self.room.private or with_table:
            lines += [*self.table_lines(view, seat), ""]
        else:  # what was done for them and the tricks; others' moves once it is their turn
            story = self.story(seat, keep=4 if self.own_turn(view) else 0)
            lines += [*self.name_lines(), *story, ""] if story else self.name_lines()
        if not (self.room.private or with_table) and self.own_turn(view):
            if view.trick:
                lines.append(
                    _("On the table: {cards}", cards=self.cards(c for _s, c in view.trick))
                )
            lines.append(self.stock_line(view))
        lines.append(_("Your cards: {cards}", cards=self.cards(view.hand)))
        lines.append(self.prompt(view))
        lines += hints.hint_lines(self.shown_hints & set(self.due(view)), self.tr)
        rows = (
            *self.action_rows(view),
            *self.tip_rows(view.legal),
            *self.story_rows(),
            *self.view_rows(seat),
        )
        return Screen("\n".join(lines), rows)

    def tip_words(self, tip: Tip) -> str:
        """A tip in one sentence: the move, and the seed texts' tip that makes it."""
        words = TIP_WORDS[tip.reason]
        suit = self.suit_word(tip.suit) if tip.suit else self._("the suit led")
        card = self.card(tip.card) if tip.card else ""
        return self._(words, card=card, suit=suit)

    def picture(self, seat: int | None) -> Picture:
        """The table drawn for `seat` (None: the public table, no hand, no taps): from
        the seat's view only, its taps the very presses of its hand's buttons."""
        assert isinstance(self.room.game, GameState)
        view = public_view(self.room.game) if seat is None else self.view_of(seat)
        hand: tuple[HandCard, ...] = ()
        actions: tuple[Action, ...] = ()
        status = self.status_line(view)
        if isinstance(view, PlayerView):
            taps, actions = moves(self.action_rows(view))
            hand = hand_cards(view.hand, taps)
            status = self.picture_prompt(view)
        shown = [*view.hand] if isinstance(view, PlayerView) else []
        shown += [code for _s, code in view.trick]
        return Picture(
            style="spanish" if self.spanish() else "french",
            title=self.headline(
                self._("🫏 {preset} · hand {n}", preset=self.preset_name(), n=view.hand_no)
            ),
            seats=tuple(self.seat_picture(view, s, seat) for s in range(view.seats)),
            middle=view.trick,
            piles=view.piles,
            hand=hand,
            actions=actions,
            status=one_line(status),
            story=self.picture_story(seat),
            names=tuple((code, self.card(code)) for code in dict.fromkeys(shown)),
            over=view.game_over,
        )

    def seat_picture(self, view: PublicView, seat: int, reader: int | None) -> SeatPicture:
        playing = not view.game_over and view.to_move == seat
        flags = (
            (ACTING if playing else 0)
            | (YOU if seat == reader else 0)
            | (OUT if seat in view.out else 0)
            | (BOT if self.room.is_bot_seat(seat) else 0)
        )
        return SeatPicture(
            self.seat_name(seat), view.counts[seat], self.short_score(seat, view), flags
        )

    def short_score(self, seat: int, view: PublicView) -> str:
        """A seat's score as a picture shows it: its letters, else its number."""
        score, scoring = view.scores[seat], self.rules().scoring
        if scoring == "letters":
            return LETTERS[:score]
        return "" if scoring == "single" else str(score)

    def picture_prompt(self, view: PlayerView) -> str:
        """The hand's prompt; waiting, whom for (a picture is redrawn as the game goes,
        unlike a group's hand, which only promises a reminder)."""
        acting, seat = view.to_move, view.seat
        away = seat in view.out or self.room.seats[seat].removed or view.game_over
        if acting is not None and acting != seat and not away:
            return self._("Waiting for {name}.", name=self.name(acting))
        return self.prompt(view) or self.status_line(view)

    def picture_story(self, reader: int | None, keep: int = 4) -> tuple[str, ...]:
        """The last moves as the text tells them, plain; the text's folding untouched."""
        folded = self.folded
        try:
            return tuple(one_line(line) for line in self.story(reader, keep)[-keep:])
        finally:
            self.folded = folded

    def hints_due(self, seat: int, met: frozenset[str] = frozenset()) -> list[str]:
        """The hints the decision in front of `seat` calls for (service.ui.hints)."""
        if self.room.status != "playing" or not isinstance(self.room.game, GameState):
            return []
        due = self.due(self.view_of(seat))
        return hints.fitting_hand(due, met, lambda: self.bare_hand(seat).text, self.tr)

    def due(self, view: PlayerView) -> list[str]:
        """On their own turn: what the burro is; digging in the stock while they draw or
        once cards were drawn for them this hand (why, beside the draws their story
        tells); following the suit led when they choose among its cards."""
        if view.game_over or view.to_move != view.seat:
            return []
        due = [hints.BURRO]
        digging = view.drawing or any(a.startswith("draw") for a in view.legal)
        if digging or self.dug(view):
            due.append(hints.DIG)
        if not digging and view.led is not None and any(a.startswith("play:") for a in view.legal):
            due.append(hints.FOLLOW)
        return due

    def dug(self, view: PlayerView) -> bool:
        """Cards were drawn for them in this hand (their story tells it): digging for a
        suit is explained with their next turn, even if no draw was left to them."""
        return any(
            line.kind == LogKind.DRAW and line.seat == view.seat and line.hand_no == view.hand_no
            for line in self.room.log
        )

    def own_turn(self, view: PlayerView) -> bool:
        """The hand is the player's to act on (or the game is over)."""
        return view.game_over or view.to_move == view.seat

    def prompt(self, view: PlayerView) -> str:
        _ = self._
        if view.game_over:
            return "" if self.room.private else self.game_over_text(view)
        if view.to_move == view.seat:
            if view.drawing and "draw" in "".join(view.legal):
                if any(a.startswith("play:") for a in view.legal):  # a house rule's choice
                    return _("Play a card of the led suit now, or keep drawing.")
                return _("Keep drawing until a card of the led suit turns up.")
            due = self.turn_deadline()
            if due is None:
                return _("Your turn!")
            return _("Your turn until {time}.", time=self.moment(due))
        if view.to_move is None:
            return ""
        if view.seat in view.out:  # nothing more to play in this hand
            return _("✅ You are out of cards: the others play on.")
        if self.room.seats[view.seat].removed:  # no turn of theirs comes to remind of
            return _("🤖 A bot plays your seat now: you were away too often.")
        if not self.room.private:  # a group's hand waits unedited: nothing that goes stale
            return _("🔔 I will remind you when it is your turn.")
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
        others = [
            self.button(extra[a], Move(a), self.cost(view, a)) for a in view.legal if a in extra
        ]
        if others:
            rows.append(tuple(others))
        if view.game_over and self.room.private:
            rows.append((self.command(_("🔁 Play again"), "rematch"),))
        return fit(rows)

    def cost(self, view: PlayerView, action: str) -> Tone | None:
        """A move that costs the player cards, drawn as a danger: a draw they cannot
        avoid (no card of theirs may be played), a pass that takes the trick's cards."""
        if action.startswith("draw"):
            forced = not any(a.startswith("play:") for a in view.legal)
            return "danger" if forced else None
        if action == "pass" and self.rules().empty_stock != "pass":
            return "danger"  # pickup_after_trick, take_the_table: the cards come to them
        return None

    def card_rows(self, view: PlayerView) -> list[tuple[Button, ...]]:
        """The playable cards in the hand's order, a suit's cards on rows of their own."""
        playable = [c for c in view.hand if f"play:{c}" in view.legal]
        return grouped(
            (code[-1], self.button(self.card(code), Move(f"play:{code}"), "go"))
            for code in playable
        )

    def choices(self, seat: int) -> list[Choice]:
        """A player's hand as a list (Telegram's inline results): draw or pass when they
        are legal, then every card, the playable ones marked."""
        view = self.view_of(seat)
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

    def nudge(self) -> Screen:
        """The group's reminder that someone's turn waits, and until when."""
        assert isinstance(self.room.game, GameState)
        seat = to_move(self.room.game)
        name = self.called_name(seat) if seat is not None else ""
        due = self.turn_deadline()
        if due is None:
            return Screen(self._("⏰ {name}, it is your turn in Burro!", name=name))
        said = self._(
            "⏰ {name}, it is your turn in Burro until {time}!", name=name, time=self.moment(due)
        )
        return Screen(said)

    def news_lines(self) -> list[str]:
        """How the last hand ended and the scores; the game's result once it is over."""
        assert isinstance(self.room.game, GameState)
        view = public_view(self.room.game)
        result = last_result(self.room, RESULTS, view.hand_no)
        lines = [self.event_text(result, 0)] if result is not None else []
        if self.rules().scoring != "single":
            scores = CARD_SEPARATOR.join(
                f"{self.seat_name(s)}: {self.score_text(s, view.scores[s])}"
                for s in range(view.seats)
            )
            lines.append(self._("Scores: {scores}", scores=scores))
        if view.game_over:
            lines.append(self.game_over_text(view))
        return lines

    def rules_text(self) -> str:
        return rules_text(self.rules(), self.tr)

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


RESULTS = (LogKind.BURRO, LogKind.WINNER, LogKind.NO_BURRO, LogKind.TRICK_CAP)


# The marks a table shows beside names, explained in its last line.
LEGEND = {
    "▶️": _("▶️ to play"),
    "✅": _("✅ out of cards"),
    "🎴": _("🎴 dealer"),
    "🤖": _("🤖 bot"),
}


EMPTY_STOCK = {
    "pass": _("pass"),
    "pickup_after_trick": _("pick up the trick"),
    "take_the_table": _("take the table"),
}


HAND_ENDS = {
    "last_holder_loses": _("last with cards loses"),
    "first_out_wins": _("first out wins"),
}


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
