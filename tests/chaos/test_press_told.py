"""The soak's reading of `serve`'s answers to a player's taps (bench.chaos.press_told):
when a timer's move equals the card tapped, the answers say whose move it was."""

from __future__ import annotations

from typing import Any, cast

import pytest

from bench.chaos import Game, Spec, press_told
from emulator.telegram.driver import CallbackAnswer, EmulatorDriver

TAKEN = CallbackAnswer(None, False, None)  # a move applied or queued: no popup
LATE = CallbackAnswer("That button is from an earlier turn.", False, None)


class Answers:
    """The emulator's callback answers so far, by query id (None: not answered yet)."""

    def __init__(self, answers: dict[str, CallbackAnswer | None]) -> None:
        self.answers = answers

    def answer_so_far(self, query_id: str) -> CallbackAnswer | None:
        return self.answers[query_id]


def game_with(queries: list[str], concurrent: bool = False) -> Game:
    game = Game(Spec(1, "group", "spanish", [700000, 700001], 0))
    game.queries[5] = queries
    if concurrent:
        game.concurrent.add(5)
    return game


def told(answers: dict[str, Any], game: Game) -> str | None:
    return press_told(cast(EmulatorDriver, Answers(answers)))(game, 5)


@pytest.mark.parametrize(
    ("answers", "verdict"),
    [
        ({"q1": TAKEN}, "taken"),
        ({"q1": LATE}, "refused"),
        ({"q1": None}, None),  # never answered (serve killed): unclear
        ({"q1": TAKEN, "q2": LATE}, "taken"),  # a double tap: the first was taken
        ({"q1": LATE, "q2": LATE}, "refused"),
        ({"q1": LATE, "q2": None}, None),  # the second might have been taken
    ],
)
def test_the_answers_say_whether_the_press_was_taken(
    answers: dict[str, Any], verdict: str | None
) -> None:
    assert told(answers, game_with(list(answers))) == verdict


def test_a_press_also_sent_straight_to_serve_is_unclear() -> None:
    """That serve's answer never reaches the emulator: it may be the one that was taken."""
    assert told({"q1": LATE}, game_with(["q1"], concurrent=True)) is None


def test_a_version_without_taps_is_unclear() -> None:
    assert told({}, game_with([])) is None
