"""Typed refusals of the passing game, beside the follow-suit ones (same base class, so
the service maps every `code` the same way). Shared ones (game over, unknown action or
card, a card not in hand) are the engine's own classes."""

from __future__ import annotations

from engine.kernel.errors import IllegalAction


class NotPlaying(IllegalAction):
    code = "not_playing"
    text = "You are not playing in this game."


class ServerOnly(IllegalAction):
    code = "server_only"
    text = "Only the server closes a window."


class AlreadyChosen(IllegalAction):
    code = "already_chosen"
    text = "You have chosen your card for this pass."


class CallOpen(IllegalAction):
    code = "call_open"
    text = "Someone called: respond, or let it go."


class NoCall(IllegalAction):
    code = "no_call"
    text = "Nobody has called."


class OwnCall(IllegalAction):
    code = "own_call"
    text = "That is your own call."


class AlreadyResponded(IllegalAction):
    code = "already_responded"
    text = "You have responded already."


class TooLate(IllegalAction):
    code = "too_late"
    text = "Too late: the time to respond is over."


class TooEarly(IllegalAction):
    code = "too_early"
    text = "The window is still open."


class NoFakeLeft(IllegalAction):
    code = "no_fake_left"
    text = "You have no fake call left."


class WrongWord(IllegalAction):
    code = "wrong_word"
    text = "That is not this round's word."


class BadTime(IllegalAction):
    code = "bad_time"
    text = "An action needs the time it was received."
