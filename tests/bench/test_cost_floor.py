"""The cost bench's reading of a tap's Bot API calls: where they went, and the floor."""

from __future__ import annotations

from collections import Counter
from typing import Any

from bench.cost import floor, screens_of, turns_played
from engine.follow_suit.game import apply, legal_actions, new_game, to_move
from engine.follow_suit.rules import make_rules
from service.table.room import Room

GROUP = -1001


def call(method: str, chat: int | None = None) -> dict[str, Any]:
    return {"method": method, "params": {} if chat is None else {"chat_id": chat}}


def test_a_chat_changed_twice_is_one_screen_of_the_floor() -> None:
    calls = [
        call("answerCallbackQuery"),
        call("editMessageText", 7),
        call("sendMessage", 8),  # a hand's end: news, the hand again, the old one deleted
        call("sendMessage", 8),
        call("deleteMessage", 8),
        call("editMessageText", GROUP),
        call("sendMessage", GROUP),
    ]
    counts = screens_of(calls)
    assert (counts["answer_calls"], counts["private_calls"], counts["group_calls"]) == (1, 4, 2)
    assert (counts["private_screens"], counts["group_screens"]) == (2, 1)


def test_the_floor_is_the_answers_and_changed_chats_per_move() -> None:
    taps = screens_of([call("answerCallbackQuery"), call("editMessageText", 7)])
    taps += screens_of(
        [call("answerCallbackQuery"), call("editMessageText", 7), call("editMessageText", 8)]
    )
    taps += screens_of([call("editMessageText", GROUP)])  # a bot's move: no answer
    assert floor(taps, 4) == {"answer_and_private_chats": 1.25, "with_the_group": 1.5}
    assert floor(Counter(), 1) == {"answer_and_private_chats": 0.0, "with_the_group": 0.0}


def test_a_turn_is_a_card_played_or_a_pass_not_a_draw() -> None:
    """The first hand of a game of three played out by first legal actions: its plays
    and passes are its turns, its draws are not."""
    game = new_game(make_rules("spanish"), 3, seed=1)
    turns = 0
    while not game.past:
        seat = to_move(game)
        assert seat is not None
        action = legal_actions(game, seat)[0]
        turns += not action.startswith("draw")
        game, _events = apply(game, seat, action)
    room = Room(id="r", chat_id=-1, creator=1, game=game)
    assert turns_played(room) == turns > 0
