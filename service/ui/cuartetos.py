"""The passing game's screens: the group's table, each player's hand, lobby, settings.

Built from engine views only, like `service.ui.follow_suit`: the group's table comes from the
public view (who has chosen, letters, the open call), a player's hand from their own
view. A card still in someone's hand is only ever named in that player's private chat;
the table tells a four of a kind by its rank, after the hand.

A call shows one big button to everyone who may respond, in the group and in private:
the same button for ¡Burro! and for a fake word. The word is the only clue.
"""

from __future__ import annotations

from engine.cuartetos import REAL_WORD, CuartetosRules, GameState, player_view, public_view
from engine.cuartetos import tip as tips
from engine.cuartetos.cards import is_four_of_a_kind
from engine.cuartetos.views import CallView, PlayerView, PublicView
from engine.kernel.rules import LETTERS
from engine.kernel.tip import Tip
from service.i18n import Translator, _
from service.table import games as table_games
from service.table.cuartetos.table import is_live
from service.table.log import LogKind, LogLine
from service.ui import hints
from service.ui.intents import Choice, Move, NotPlayable, Press
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
    rank_name,
    rank_order_text,
    spanish_suits,
    winners_text,
)
from service.ui.story import Teller, story_row

PRESET_NAMES = {"cuartetos": _("Cuartetos (pass the cards)")}  # the game's by its name
# Log lines still told once the next hand is dealt.
RESULTS = (LogKind.REAL_CALL, LogKind.CAP, LogKind.LEFT)
# The marks a table shows beside names, explained in its last line.
LEGEND = {
    "✅": _("✅ card chosen"),
    "⏳": _("⏳ still choosing"),
    "📣": _("📣 called"),
    "🫳": _("🫳 hand down"),
    "🚫": _("🚫 left the game"),
    "🎴": _("🎴 dealer"),
    "🤖": _("🤖 bot"),
}
# During a call ⏳ marks who has not put a hand down yet: nobody is choosing then.
CALL_LEGEND = {**LEGEND, "⏳": _("⏳ yet to respond")}


# A tip's words, by its reason (engine.cuartetos.tip).
TIP_WORDS = {
    tips.CALL: _("Tap ¡Burro! now: you have all four {rank} cards."),
    tips.NEARLY: _("Pass {card}: one more {rank} card and you have four of a kind."),
    tips.KEEP: _("Pass {card}: keep collecting {rank} cards, you hold {n} of the four."),
    tips.ANY: _("Pass {card}: no rank is ahead yet, so any card will do."),
}


class CuartetosPainter(TablePainter):
    """Builds the screens of one cuartetos room in one language."""

    min_players = 3
    preset_names = PRESET_NAMES
    folded = False  # the screen drawn last folded its story (its button goes below)
    # The hints its reader has not met yet, as the outbox found them (service.ui.hints).

    # ----- small pieces ------------------------------------------------------------

    def rules(self) -> CuartetosRules:
        # The screens registry gives this painter cuartetos rooms only.
        if self.room.game:
            return self.game().rules
        rules: CuartetosRules = table_games.rules_of(self.room.settings)
        return rules

    def game(self) -> GameState:
        game: GameState = self.room.game
        return game

    def play_press(self, action: str) -> Press:
        """A move of the current phase (see service.table.cuartetos.moves)."""
        return Press(self.room.id, self.room.phase_version, Move(action))

    def play_button(self, label: str, action: str, tone: Tone | None = None) -> Button:
        """A button of the current phase (see service.table.cuartetos.moves)."""
        return Button(label, self.play_press(action), tone)

    def rank(self, rank: str) -> str:
        return rank_name(rank, self.spanish(), self.tr)

    def names(self, seats: list[int] | tuple[int, ...]) -> str:
        return ", ".join(self.seat_name(s) for s in seats)

    def letters(self, count: int) -> str:
        return "-".join(LETTERS[:count]) or "·"

    def shout(self, word: str) -> str:
        return f"¡{word.upper()}!"

    def pace_text(self, rules: CuartetosRules) -> str:
        values = {
            "choose": duration(round(rules.pass_window), self.tr),
            "respond": duration(round(rules.response_window), self.tr),
        }
        if is_live(rules):
            return self._("live: {choose} to pass, {respond} to respond", **values)
        return self._("slow: {choose} to pass, {respond} to respond", **values)

    def goal_text(self, rules: CuartetosRules) -> str:
        return self._("{letters} loses", letters=self.letters(rules.target))

    def rules_line(self) -> str:
        rules = self.rules()
        return self._(
            "4 cards each · {goal} · {pace}", goal=self.goal_text(rules), pace=self.pace_text(rules)
        )

    # ----- settings ----------------------------------------------------------------

    def settings(self) -> Screen:
        _ = self._
        rules = self.rules()
        return self.settings_screen(
            [
                ("preset", _("🎲 Game"), _("Game: {v}", v=self.preset_name())),
                ("pace", _("⏱ Pace"), _("Pace: {v}", v=self.pace_text(rules))),
                ("target", _("🎯 Goal"), _("Goal: {v}", v=self.goal_text(rules))),
                *self.shared_settings(rules.suit_style),
            ]
        )

    def rules_text(self) -> str:
        return rules_text(self.rules(), self.tr)

    # ----- the table ---------------------------------------------------------------

    def table(self) -> Screen:
        """The group's table: rounds, who has chosen, letters, the call; no cards."""
        view = public_view(self.game())
        rows: list[tuple[Button, ...]] = []
        if view.call is not None and view.waiting:
            rows.append((self.respond_button(view.call),))
        if not view.game_over and not self.room.private:
            rows.append(self.chat_rows())
        if view.game_over or self.room.status == "over":
            rows.append((self.command(self._("🔁 Rematch"), "rematch"),))
        lines = self.table_lines(view)
        return Screen("\n".join(lines), fit([*rows, *self.story_rows()]))

    def respond_button(self, call: CallView) -> Button:
        """The big button: the same for a real call and a fake one, but for the word (and
        drawn as a call either way)."""
        return self.play_button(f"🫳 {self.shout(call.word)}", "respond", "call")

    def table_lines(self, view: PublicView, reader: int | None = None) -> list[str]:
        _ = self._
        lines = [self.header(view)]
        if not view.game_over:
            lines.append(
                _("Cards go to the left ⬅️")
                if view.direction == "clockwise"
                else _("Cards go to the right ➡️")
            )
        lines += [self.seat_line(view, seat) for seat in range(view.seats)]
        if view.deadline is not None and not view.game_over:
            lines += ["", self.deadline_line(view)]
        recent = self.story(view, reader)
        if recent:
            lines += ["", *recent]
        lines += ["", *self.status_lines(view), self.legend(view)]
        return lines

    def legend(self, view: PublicView) -> str:
        """What the marks of the seat lines mean, those shown only."""
        marks = {self.seat_line(view, seat).split(" ", 1)[0] for seat in range(view.seats)}
        marks.add("🎴")
        if any(seat.bot for seat in self.room.seats):
            marks.add("🤖")
        legend = CALL_LEGEND if view.call is not None and not view.game_over else LEGEND
        return CARD_SEPARATOR.join(self._(legend[m]) for m in legend if m in marks)

    def header(self, view: PublicView) -> str:
        return self.headline(
            self._(
                "🫏 {preset} · hand {hand} · round {round}",
                preset=self.preset_name(),
                hand=view.hand_no,
                round=view.rotation + 1,
            )
        )

    def seat_line(self, view: PublicView, seat: int) -> str:
        if seat not in view.players:
            return f"🚫 {self.name(seat)}: {self.letters(view.letters[seat])}"
        call = view.call
        if view.game_over:
            mark = "▫️"
        elif call is not None:
            mark = "📣" if seat == call.caller else ("🫳" if seat in call.responded else "⏳")
        else:
            mark = "✅" if seat in view.chosen else "⏳"
        dealer = " 🎴" if view.dealer == seat else ""
        return f"{mark} {self.name(seat)}{dealer}: {self.letters(view.letters[seat])}"

    def deadline_line(self, view: PublicView) -> str:
        """How long the phase lasts (live tables) or until when (slow ones)."""
        rules, due = self.rules(), view.deadline
        assert due is not None
        live = is_live(rules)
        if view.call is not None:
            if live:
                seconds = duration(round(rules.response_window), self.tr)
                return self._("⏱ {time} to respond.", time=seconds)
            return self._("⏳ Respond by {time}.", time=self.moment(due))
        if live:
            return self._("⏱ {time} to choose.", time=duration(round(rules.pass_window), self.tr))
        return self._("⏳ Choose by {time}.", time=self.moment(due))

    def status_lines(self, view: PublicView) -> list[str]:
        _ = self._
        if view.game_over:
            return [self.game_over_text(view)]
        call = view.call
        if call is not None:
            lines = [
                _("📣 {name}: {word}", name=self.name(call.caller), word=self.shout(call.word))
            ]
            if call.responded:
                lines.append(_("Hands down: {names}", names=self.names(call.responded)))
            return lines
        waiting = [s for s in view.waiting if s in view.players]
        return [_("Choosing: {names}", names=self.names(waiting))] if waiting else []

    def game_over_text(self, view: PublicView) -> str:
        winners = winners_text(self.tr, len(view.winners), self.names(view.winners) or "—")
        if view.end == "too_few_players":
            return f"{self._('🏁 Game over: too few players are left.')} {winners}"
        losers = self.names(view.losers) or "—"
        return f"{burro_text(self.tr, len(view.losers), losers)} {winners}"

    def story(self, view: PublicView, reader: int | None, keep: int = 5) -> list[str]:
        """What happened since the screen's story began, for `reader` (None: the
        group), folded to `keep` lines (service.ui.story)."""
        teller = Teller(self.tr, self.told, self.card, self.name, view.hand_no)
        lines = teller.story(self.room.log, self.story_after(reader), reader, keep)
        self.folded = self.folded or teller.folded > 0
        return lines

    def story_rows(self) -> list[tuple[Button, ...]]:
        """The whole story's button, under a screen that folded its story."""
        return [story_row(self.room.id, self.tr)] if self.folded else []

    def told(self, line: LogLine, drawn: int) -> str:
        return self.event_text(line)  # nobody draws in this game

    def event_text(self, line: LogLine) -> str:
        _ = self._
        seats = len(self.room.seats)
        who = self.name(line.seat) if 0 <= line.seat < seats else ""
        if line.kind == LogKind.TIMEOUT:
            return _("⏰ {name} did not choose in time: a card went for them.", name=who)
        if line.kind == LogKind.FALSE_CALL:
            return _("🙊 {name} called ¡Burro! without four of a kind: a letter.", name=who)
        if line.kind == LogKind.FAKE_CALL:
            if line.order:
                return self.tr.ngettext(
                    "🎭 {name} shouted {word}: {fooled} fell for it, a letter.",
                    "🎭 {name} shouted {word}: {fooled} fell for it, a letter each.",
                    len(line.order),
                    name=who,
                    word=self.shout(line.word),
                    fooled=self.names(line.order),
                )
            return _(
                "🎭 {name} shouted {word}: nobody fell for it, so a letter for {name}.",
                name=who,
                word=self.shout(line.word),
            )
        if line.kind == LogKind.REAL_CALL:
            called = _(
                "🫏 {name} called ¡Burro! with four of a kind ({rank}) in hand {n}.",
                name=who,
                rank=self.rank(line.card[:-1]) if line.card else "?",
                n=line.hand_no,
            )
            if line.count:
                slow = self.tr.ngettext(
                    "{names} did not respond in time: a letter.",
                    "{names} did not respond in time: a letter each.",
                    len(line.losers),
                    names=self.names(line.losers),
                )
            else:
                slow = _(
                    "{names} was the last to respond: a letter.", names=self.names(line.losers)
                )
            return f"{called} {slow}"
        if line.kind == LogKind.ABSENT:
            return _("💤 {name} was away too long: a letter.", name=who)
        if line.kind == LogKind.LEFT:
            return _("🚪 {name} was away too often and leaves the game.", name=who)
        if line.kind == LogKind.CAP:
            return self.tr.ngettext(
                "Hand {hand} ended after {n} round with no ¡Burro!: a letter for {names}.",
                "Hand {hand} ended after {n} rounds with no ¡Burro!: a letter for {names}.",
                line.count,
                hand=line.hand_no,
                names=self.names(line.losers),
            )
        return ""

    def news_lines(self) -> list[str]:
        """How the last hand ended and the letters; the game's result once it is over."""
        view = public_view(self.game())
        result = last_result(self.room, RESULTS, view.hand_no)
        lines = [self.event_text(result)] if result is not None else []
        scores = CARD_SEPARATOR.join(
            f"{self.seat_name(s)}: {self.letters(view.letters[s])}" for s in range(view.seats)
        )
        lines.append(self._("Letters: {scores}", scores=scores))
        if view.game_over:
            lines.append(self.game_over_text(view))
        return lines

    def choices(self, seat: int) -> list[Choice]:
        """The hand as a list (Telegram's inline results): the response to an open call,
        ¡Burro!, the fake call, then each card to pass, the others not playable now. What
        the group sees posted for a call is the shout alone: a fake looks like ¡Burro!."""
        view = player_view(self.game(), seat)
        _ = self._
        choices = []
        for action in view.legal:
            if action == "respond" and view.call is not None:
                label = said = self.respond_button(view.call).label
            elif action == "burro":
                label, said = _("🫏 ¡Burro!"), f"📣 {self.shout(REAL_WORD)}"
            elif action.startswith("fake:"):
                word = self.shout(action.partition(":")[2])
                label, said = _("🎭 Fake call: {word}", word=word), f"📣 {word}"
            else:
                continue
            choices.append(Choice(self.play_press(action), label, "", said))
        for index, card in enumerate(view.hand):
            if "pass:" + card in view.legal:
                press = self.play_press("pass:" + card)
                choices.append(Choice(press, self.card(card), _("Pass this card")))
            else:
                press = Press(self.room.id, self.room.phase_version, NotPlayable(index))
                choices.append(Choice(press, self.card(card), _("Not playable now")))
        return choices

    def nudge(self) -> Screen:
        """The group's reminder of who has yet to choose, and until when (slow tables)."""
        view = public_view(self.game())
        waiting = [s for s in view.waiting if not self.room.is_bot_seat(s)]
        names = ", ".join(self.called_name(s) for s in waiting)
        due = view.deadline if view.call is None and not is_live(self.rules()) else None
        if due is None:
            return Screen(self._("⏰ {names}: choose your card in Burro!", names=names))
        return Screen(
            self._(
                "⏰ {names}: choose your card in Burro before {time}!",
                names=names,
                time=self.moment(due),
            )
        )

    # ----- a player's hand ---------------------------------------------------------

    def hand(self, seat: int, with_table: bool = False) -> Screen:
        """A player's private screen: their cards, what they gave and got, and their
        buttons (cards to pass, ¡Burro!, a fake call; the response button)."""
        if self.room.status == "cancelled":
            return cancelled_screen(self.tr)
        view = player_view(self.game(), seat)
        _ = self._
        if self.room.private or with_table:
            lines = [*self.table_lines(view, seat), ""]
        else:
            mine = self.letters(view.letters[seat])
            lines = [self.header(view), _("Your letters: {letters}", letters=mine)]
            lines += self.story(view, seat, keep=3)
        if seat in view.players and not view.game_over:
            lines.append(
                _(
                    "You pass to {next}; you get cards from {previous}.",
                    next=self.name(view.gives_to),
                    previous=self.name(view.gets_from),
                )
            )
            if view.received and view.rotation:
                lines.append(_("You got: {card}", card=self.card(view.received[-1])))
        lines.append(_("Your cards: {cards}", cards=self.cards(view.hand)))
        prompt = self.prompt(view)
        if prompt:
            lines += ["", prompt]
        lines += hints.hint_lines(self.shown_hints & set(self.due(view)), self.tr)
        rows = (
            *self.action_rows(view),
            *self.tip_rows(view.legal),
            *self.story_rows(),
            *self.view_rows(seat),
        )
        return Screen("\n".join(lines), rows)

    def tip_words(self, tip: Tip) -> str:
        """A tip in one sentence: the card to pass and the rank it keeps, or the call."""
        words = TIP_WORDS[tip.reason]
        card = self.card(tip.card) if tip.card else ""
        return self._(words, card=card, rank=self.rank_word(tip.rank), n=tip.count)

    def picture(self, seat: int | None) -> Picture:
        """The table drawn for `seat` (None: the public table, no hand, no taps): from
        the seat's view only, its taps the very presses of its hand's buttons. A real
        ¡Burro!'s four of a kind lies in the middle once its caller has shown it."""
        view = public_view(self.game()) if seat is None else player_view(self.game(), seat)
        hand: tuple[HandCard, ...] = ()
        actions: tuple[Action, ...] = ()
        towards = None
        status = " ".join(self.status_lines(view))
        if isinstance(view, PlayerView):
            taps, actions = moves(self.action_rows(view))
            hand = hand_cards(view.hand, taps)
            status = self.prompt(view) or status
            if view.seat in view.players and not view.game_over:
                towards = view.gives_to
        middle = self.shown_four(view)
        shown = [*view.hand] if isinstance(view, PlayerView) else []
        shown += [code for _s, code in middle]
        return Picture(
            style="spanish" if self.spanish() else "french",
            title=self.header(view),  # the table named too, for a reader at more than one
            seats=tuple(self.seat_picture(view, s, seat) for s in range(view.seats)),
            middle=middle,
            towards=towards,
            hand=hand,
            actions=actions,
            status=one_line(status),
            story=self.picture_story(view, seat),
            names=tuple((code, self.card(code)) for code in dict.fromkeys(shown)),
            over=view.game_over,
        )

    def seat_picture(self, view: PublicView, seat: int, reader: int | None) -> SeatPicture:
        dealt = seat in view.players
        flags = (
            (ACTING if dealt and not view.game_over and seat in view.waiting else 0)
            | (YOU if seat == reader else 0)
            | (0 if dealt else OUT)
            | (BOT if self.room.is_bot_seat(seat) else 0)
        )
        cards = 4 if dealt else 0  # a hand is always four cards
        return SeatPicture(self.seat_name(seat), cards, LETTERS[: view.letters[seat]], flags)

    def shown_four(self, view: PublicView) -> tuple[tuple[int, str], ...]:
        """The four of a kind a real ¡Burro! showed: the game's last hand's, or the hand
        before this one's until this one's first card is chosen."""
        summary = view.hand_result
        if summary is None and view.rotation == 0 and not view.chosen and view.call is None:
            summary = view.last_hand
        if summary is None or summary.caller is None:
            return ()
        return tuple((summary.caller, code) for code in summary.shown)

    def picture_story(self, view: PublicView, reader: int | None, keep: int = 4) -> tuple[str, ...]:
        """The last moves as the text tells them, plain; the text's folding untouched."""
        folded = self.folded
        try:
            return tuple(one_line(line) for line in self.story(view, reader, keep)[-keep:])
        finally:
            self.folded = folded

    def hints_due(self, seat: int, met: frozenset[str] = frozenset()) -> list[str]:
        """The hints the decision in front of `seat` calls for (service.ui.hints)."""
        if self.room.status != "playing" or not self.room.game:
            return []
        due = self.due(player_view(self.game(), seat))
        return hints.fitting_hand(due, met, lambda: self.bare_hand(seat).text, self.tr)

    def due(self, view: PlayerView) -> list[str]:
        """A call to answer: what the word means; choosing: the goal, four of a kind to
        call, and, after the first choice of the game, the fake call."""
        if view.game_over or view.seat not in view.players:
            return []
        if view.call is not None:
            return [hints.RESPOND] if "respond" in view.legal else []
        if view.my_choice or not view.legal:
            return []
        due = [hints.GOAL]
        if "burro" in view.legal and is_four_of_a_kind(view.hand):
            due.append(hints.FOUR)
        fake = any(a.startswith("fake:") for a in view.legal)
        if fake and (view.rotation or view.hand_no > 1):
            due.append(hints.FAKE)
        return due

    def prompt(self, view: PlayerView) -> str:
        _ = self._
        if view.game_over:
            return "" if self.room.private else self.game_over_text(view)
        if view.seat not in view.players:
            return _("You are out of this game.")
        call = view.call
        if call is not None:
            word = self.shout(call.word)
            if call.caller == view.seat:
                return _("📣 You shouted {word}: waiting for the others.", word=word)
            if view.seat in call.responded:
                return _("🫳 Your hand is down.")
            return _(
                "📣 {name}: {word}\nHand down, quick, or let it go!",
                name=self.name(call.caller),
                word=word,
            )
        if view.my_choice:
            return _("✅ You pass {card}. Waiting for the others.", card=self.card(view.my_choice))
        rules = self.rules()
        if is_live(rules) or view.deadline is None:
            return _("Choose the card to pass.")
        return _("Choose the card to pass, by {time}.", time=self.moment(view.deadline))

    def action_rows(self, view: PlayerView) -> tuple[tuple[Button, ...], ...]:
        _ = self._
        rows: list[tuple[Button, ...]] = []
        if view.call is not None and "respond" in view.legal:
            rows.append((self.respond_button(view.call),))
        passes = [c for c in view.hand if f"pass:{c}" in view.legal]
        # a rank's cards on rows of their own: four of a kind is what a hand collects
        rows += grouped((c[:-1], self.play_button(self.card(c), f"pass:{c}", "go")) for c in passes)
        burro = "burro" in view.legal
        calls = [self.play_button(_("🫏 ¡Burro!"), "burro", "call")] if burro else []
        fake = next((a for a in view.legal if a.startswith("fake:")), None)
        if fake is not None:
            word = self.shout(fake.partition(":")[2])
            calls.append(self.play_button(_("🎭 Fake call: {word}", word=word), fake))
        if calls:
            rows.append(tuple(calls))
        if view.game_over and self.room.private:
            rows.append((self.command(_("🔁 Play again"), "rematch"),))
        return fit(rows)


def rules_text(rules: CuartetosRules, tr: Translator) -> str:
    """The passing game's rules, short, in the reader's language."""
    _ = tr.gettext
    return "\n".join(
        [
            _("🫏 {preset}", preset=_(PRESET_NAMES[rules.preset])),
            _(
                "Four cards each, of as many ranks as players. Every round all choose a card "
                "at once and pass it to the next player."
            ),
            _(
                "The ranks in play, one per player, taken in this order: {ranks}",
                ranks=rank_order_text(
                    rules.rank_choice, spanish_suits(rules.deck, rules.suit_style), tr
                ),
            ),
            _(
                "Four of a kind? Tap ¡Burro!: everyone else must put a hand down at once. "
                "The last one, or anyone too slow, takes a letter."
            ),
            _("¡Burro! without four of a kind costs a letter."),
            _(
                "Once a hand you may shout a fake word such as ¡Barro!: whoever falls for it "
                "takes a letter; if nobody does, you take it. Read before you tap!"
            ),
            tr.ngettext(
                "Too slow to choose? A card goes for you; away {n} round in a row costs a letter.",
                "Too slow to choose? A card goes for you; away {n} rounds in a row costs a letter.",
                rules.absent_after,
            ),
            _("Spell {letters} and you lose.", letters="-".join(LETTERS[: rules.target])),
        ]
    )
