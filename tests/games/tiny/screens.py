"""Tiny's screens: what the table core's players see of it, in plain words. A game with
no translations of its own speaks English everywhere; the buttons are its intents."""

from __future__ import annotations

from typing import Any

from service.i18n import Translator
from service.table import games as table_games
from service.table.room import Room
from service.ui import tokens
from service.ui.intents import Choice, Command, Move, Press
from service.ui.picture import YOU, HandCard, Picture, SeatPicture, hand_cards
from service.ui.screens import Button, Screen
from tests.games.tiny.game import PlayerView, PublicView, Rules, player_view, public_view


class TinyPainter:
    def __init__(self, room: Room, lang: str, bot_username: str = "burro_bot") -> None:
        self.room, self.tr = room, Translator(lang)

    def names(self, seats: tuple[int, ...]) -> str:
        return ", ".join(self.room.seats[s].name for s in seats)

    def command(self, label: str, name: Any) -> Button:
        return Button(label, Press(self.room.id, self.room.version, Command(name)))

    def lobby(self) -> Screen:
        seated = ", ".join(seat.name for seat in self.room.seats)
        rows = ((self.command("Join", "join"), self.command("Start", "start")),)
        return Screen(f"Tiny (high card) — at the table: {seated}", rows)

    def settings(self) -> Screen:
        return Screen("Tiny has no settings.", ((self.command("Done", "settings_done"),),))

    def table(self) -> Screen:
        if self.room.game is None:
            return self.lobby()
        view = public_view(self.room.game)
        return Screen("\n".join(self.table_lines(view)))

    def table_lines(self, view: PublicView) -> list[str]:
        lines = [f"Tiny, hand {view.hand_no}"]
        lines += [f"{seat.name}: {view.points[s]} points" for s, seat in enumerate(self.room.seats)]
        if view.table:
            lines.append("On the table: " + " ".join(c for _, c in view.table))
        if view.winners:
            lines.append(f"Winners: {self.names(view.winners)}")
        elif view.to_move is not None:
            lines.append(f"To play: {self.room.seats[view.to_move].name}")
        return lines

    def hand(self, seat: int, with_table: bool = False) -> Screen:
        assert self.room.game is not None
        view = player_view(self.room.game, seat)
        buttons = tuple(Button(self.card(a[5:]), self.move(a)) for a in view.legal)
        table = self.table_lines(public_view(self.room.game)) if with_table else []
        return Screen("\n".join([*table, self.prompt(view)]), (buttons,) if buttons else ())

    def picture(self, seat: int | None) -> Picture:
        assert self.room.game is not None
        view = public_view(self.room.game) if seat is None else player_view(self.room.game, seat)
        hand: tuple[HandCard, ...] = ()
        if isinstance(view, PlayerView):
            hand = hand_cards(view.hand, {a[5:]: tokens.text(self.move(a)) for a in view.legal})
        seats = tuple(
            SeatPicture(p.name, view.counts[s], str(view.points[s]), YOU if s == seat else 0)
            for s, p in enumerate(self.room.seats)
        )
        status = self.table_lines(view)[-1]
        return Picture(
            "french", "Tiny", seats, view.table, hand=hand, status=status, over=bool(view.winners)
        )

    def tip_text(self, seat: int) -> str | None:
        return None  # Tiny's players are offered no tips

    def prompt(self, view: PlayerView) -> str:
        return f"Your cards: {' '.join(view.hand) or '—'}" + (" — your turn" if view.legal else "")

    def move(self, action: str) -> Press:
        return Press(self.room.id, self.room.phase_version, Move(action))

    def nudge(self) -> Screen:
        return Screen("Your turn, please.")

    def news_lines(self) -> list[str]:
        assert self.room.game is not None
        return self.table_lines(public_view(self.room.game))

    def choices(self, seat: int) -> list[Choice]:
        assert self.room.game is not None
        legal = player_view(self.room.game, seat).legal
        return [Choice(self.move(a), self.card(a[5:])) for a in legal]

    def card(self, code: str) -> str:
        return code

    def rules_text(self) -> str:
        return rules_text(table_games.rules_of(self.room.settings), self.tr)


def rules_text(rules: Rules, tr: Translator) -> str:
    return f"Tiny: play your highest card; the best card takes a point; {rules.target} win."
