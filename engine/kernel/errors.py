"""Typed refusals: every illegal request names its reason with a stable `code`.

The service turns a code into a short translated message; the English text here is
for logs, the CLI and tests.
"""

from __future__ import annotations


class RulesError(ValueError):
    """A rule set or a table that cannot be played: unknown option, bad value, too many
    players for the deck. The message names the problem in one line."""


class RecordError(ValueError):
    """A malformed `burro-record/1` document."""


class IllegalAction(ValueError):
    """An action the engine refuses. `code` is stable; the message is English."""

    code = "illegal_action"
    text = "That move is not allowed now."

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.text)


class GameOver(IllegalAction):
    code = "game_over"
    text = "The game is over."


class NotYourTurn(IllegalAction):
    code = "not_your_turn"
    text = "It is not your turn."


class UnknownAction(IllegalAction):
    code = "unknown_action"
    text = "Unknown action."


class UnknownCard(IllegalAction):
    code = "unknown_card"
    text = "There is no such card in this deck."


class NotInHand(IllegalAction):
    code = "not_in_hand"
    text = "You do not hold that card."


class MustFollowSuit(IllegalAction):
    code = "must_follow_suit"
    text = "You must follow suit."

    def __init__(self, message: str | None = None, suit: str = "") -> None:
        super().__init__(message)
        self.suit = suit  # the led suit's letter (public), for the service to name


class MustPlayDrawnCard(IllegalAction):
    code = "must_play_drawn_card"
    text = "You must play the card you drew."


class MustKeepDrawing(IllegalAction):
    code = "must_keep_drawing"
    text = "You must keep drawing until a card of the led suit turns up."


class MustPlayJoker(IllegalAction):
    code = "must_play_joker"
    text = "You cannot follow suit: you must play the joker."


class JokerNotAllowed(IllegalAction):
    code = "joker_not_allowed"
    text = "The joker cannot be played now."


class LeaderCannotDraw(IllegalAction):
    code = "leader_cannot_draw"
    text = "The leader plays a card: no drawing or passing."


class StockEmpty(IllegalAction):
    code = "stock_empty"
    text = "The stock is empty."


class CannotDraw(IllegalAction):
    code = "cannot_draw"
    text = "You cannot draw now."


class CannotPass(IllegalAction):
    code = "cannot_pass"
    text = "You cannot pass: you have a card to play or can still draw."


class WrongPile(IllegalAction):
    code = "wrong_pile"
    text = "Draw from the left or the right half of the tent."


class ReplayStop(Exception):
    """An action the record cannot make: one line for stderr."""
