"""The follow-suit game at the table (`spanish` … `cangkul`): its presets' looks, its log
lines, its lobby settings (hand size, goal, empty stock, hand end, suits, turn time) and
its refusals. Everything else it shares with every game (`service.table.play`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.follow_suit import events as ev
from engine.follow_suit.game import GameState
from engine.follow_suit.hand import NO_BURRO, TRICK_CAP
from engine.follow_suit.rules import Rules, make_rules
from service.i18n import _
from service.settings import Settings
from service.table.kernel import DEFAULT_DELAY, next_of, too_few
from service.table.log import LogKind, LogLine, append
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings

HAND_SIZES = (3, 4, 5, 6, 7)
TARGETS = (1, 3, 5, 7, 10)
EMPTY_STOCK = ("pass", "pickup_after_trick", "take_the_table")
HAND_ENDS = ("last_holder_loses", "first_out_wins")
TIMEOUTS = (60, 300, 3600, 4 * 3600, 12 * 3600, 24 * 3600)
# A hand that ended with neither a burro nor a winner: its reason is the line's kind.
NO_RESULT = {NO_BURRO: LogKind.NO_BURRO, TRICK_CAP: LogKind.TRICK_CAP}
# How a preset's table looks unless its settings say otherwise: the Spanish presets show
# Spanish suits (a room's stored choice, from the Suits button, wins).
PRESET_LOOKS: dict[str, dict[str, Any]] = {
    "spanish": {"suit_style": "spanish"},
    "spanish48": {"suit_style": "spanish"},
}


class FollowSuitTable:
    refusals: Mapping[str, str] = {
        "not_your_turn": _("It is not your turn."),
        "must_follow_suit": _("You must follow suit."),
        "must_play_drawn_card": _("You must play the card you drew."),
        "must_keep_drawing": _("Keep drawing until a card of the led suit turns up."),
        "must_play_joker": _("You must play the joker."),
        "joker_not_allowed": _("The joker cannot be played now."),
        "leader_cannot_draw": _("You lead: play any card."),
        "stock_empty": _("The stock is empty."),
        "cannot_pass": _("You cannot pass now."),
        "not_in_hand": _("You do not hold that card."),
        "game_over": _("This game is over."),
    }
    hands_show_table = False  # a hand shows the player's own cards and their turn

    def initial_options(self, settings: Settings | None, group: bool) -> dict[str, Any]:
        if settings is None or settings.game_target is None:
            return {}
        return {"target": settings.game_target}  # `BURRO_GAME_TARGET`

    def rules(self, settings: RoomSettings) -> Rules:
        options = {**PRESET_LOOKS.get(settings.preset, {}), **settings.options}
        return make_rules(settings.preset, options)

    def cycle(self, settings: RoomSettings, key: str) -> bool | None:
        options = settings.options
        rules = self.rules(settings)
        if key == "hand":
            options["hand_size"] = next_of(HAND_SIZES, rules.hand_size)
        elif key == "target":
            limit = 5 if rules.scoring == "letters" else max(TARGETS)
            options["target"] = next_of(tuple(t for t in TARGETS if t <= limit), rules.target)
        elif key == "empty":
            options["empty_stock"] = next_of(EMPTY_STOCK, rules.empty_stock)
        elif key == "end":  # the scoring follows the hand end (engine.follow_suit.rules)
            options.pop("scoring", None)
            options["hand_end"] = next_of(HAND_ENDS, rules.hand_end)
        elif key == "suits":
            options["suit_style"] = "french" if rules.suit_style == "spanish" else "spanish"
        elif key == "timeout":
            settings.turn_timeout = next_of(TIMEOUTS, settings.turn_timeout)
        elif key == "ontimeout":
            settings.timeout_action = "remove" if settings.timeout_action == "bot" else "bot"
        else:
            return None
        return True

    def unplayable(self, rules: Rules, seats: int) -> Outcome | None:
        if seats < 2:
            return too_few(seats, 2)
        if not rules.min_players <= seats <= rules.max_players:
            return Outcome().say(
                _("This game is for {least} to {most} players; the table has {n}."),
                alert=True,
                least=rules.min_players,
                most=rules.max_players,
                n=seats,
            )
        if seats * rules.hand_size >= rules.deck_size:
            return Outcome().say(
                _(
                    "{n} players with {cards} cards each is more than the deck holds: "
                    "choose fewer cards in Settings."
                ),
                alert=True,
                n=seats,
                cards=rules.hand_size,
            )
        return None

    def chronicle(
        self, room: Room, state: GameState, events: list[Any], outcome: Outcome, actor: int
    ) -> None:
        started = [e.hand_no for e in events if isinstance(e, ev.HandStarted)]
        hand_no = started[0] - 1 if started else state.hand_no  # the hand they began in
        for event in events:
            if isinstance(event, ev.HandStarted):
                hand_no = event.hand_no
            line = log_line(event)
            if line is not None:
                forced = line.kind in MOVES and done_for(room, outcome, line.seat, actor)
                append(room, line.model_copy(update={"forced": forced}), hand_no)

    def think_time(self, room: Room, state: GameState, seat: int) -> float:
        return DEFAULT_DELAY

    def tells_forced(self, action: str) -> bool:
        return action.startswith("play:")  # a draw or a pass played for you is not news

    def rings(self, state: GameState) -> bool:
        return False  # a turn after a pause rings by the outbox's live window

    def may_wait(self, action: str) -> bool:
        return True  # a card, a draw, a pass: legal all turn long, answered silently


AWAY = 0.0  # play.AWAY: "last acted" of a player whose turn timed out
# The lines of a player's own moves: made for them when they did not act.
MOVES = (LogKind.PLAY, LogKind.DRAW, LogKind.PASS, LogKind.TOPPLE, LogKind.PICKUP)


def done_for(room: Room, outcome: Outcome, seat: int, actor: int) -> bool:
    """Whether a move of `seat` was made for its human player: not theirs to choose (their
    only move, played after their own or another's), or their time ran out."""
    user = room.seats[seat].user_id if 0 <= seat < len(room.seats) else None
    if user is None or room.is_bot_seat(seat):
        return False
    return actor != seat or outcome.acted.get(user) == AWAY


def log_line(event: ev.Event) -> LogLine | None:
    """The log line of an event: public, but for the cards a seat drew (its `cards`)."""
    match event:
        case ev.CardPlayed(seat=seat, card=card):
            return LogLine(kind=LogKind.PLAY, seat=seat, card=card)
        case ev.CardDrawn(seat=seat, card=card):
            return LogLine(kind=LogKind.DRAW, seat=seat, count=1, cards=[card] if card else [])
        case ev.Passed(seat=seat):
            return LogLine(kind=LogKind.PASS, seat=seat)
        case ev.CardsPickedUp(seat=seat, cards=cards):
            return LogLine(kind=LogKind.PICKUP, seat=seat, count=len(cards))
        case ev.TentToppled(seat=seat, count=count, cards=cards):
            return LogLine(kind=LogKind.TOPPLE, seat=seat, count=count, cards=list(cards))
        case ev.TrickWon(seat=seat):
            return LogLine(kind=LogKind.TRICK, seat=seat)
        case ev.PlayerOut(seat=seat):
            return LogLine(kind=LogKind.OUT, seat=seat)
        case ev.HandOver(seat=burro, winner=winner, reason=reason, out=out):
            if burro >= 0:
                return LogLine(kind=LogKind.BURRO, seat=burro, order=list(out))
            if winner >= 0:
                return LogLine(kind=LogKind.WINNER, seat=winner)
            return LogLine(kind=NO_RESULT[reason], order=list(out))
    return None


TABLE = FollowSuitTable()
