"""bench/group_hand.py counts a group game of four: one game of each family, its counts
held against what the emulator shows and the game's own record."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bench import group_hand
from tests.service.inproc import GROUP, Hook
from tests.service.play import BOT_ID, FAMILY


def bot_messages_since(hook: Hook, newest: int) -> int:
    """The bot's messages in the group after `newest`, deleted ones too."""
    shown = hook.emu.messages_in(GROUP, include_deleted=True)
    return sum(1 for m in shown if m.sender_id == BOT_ID and m.message_id > newest)


@pytest.mark.parametrize(("family", "pace"), [("never", "day"), ("opened", "live")])
def test_a_game_is_counted_as_the_emulator_saw_it(tmp_path: Path, family: str, pace: str) -> None:
    with group_hand.product(tmp_path, target=1) as hook:
        played = group_hand.play_game(hook, family, pace, gap=600)
        sent = bot_messages_since(hook, played.before)
        calls = hook.emu.calls()
    assert played.group["new_group_messages"] == sent  # each new one is in the group
    assert sum(played.calls.values()) <= len(calls)
    assert played.calls["answerCallbackQuery"] >= played.turns  # every move is a press
    assert played.moves >= played.turns >= played.handed >= played.told >= 0
    assert played.handed >= len(FAMILY)  # each one's first turn came from another's
    assert sorted(played.steps) == sorted(FAMILY)  # each of the four played
    paths = [path for turns in played.steps.values() for path in turns]
    assert all(path[-1][0] == "card" for path in paths)  # every turn ends in a move
    assert sum(map(len, played.steps.values())) == played.turns
    assert sorted(played.joins) == sorted(FAMILY[1:])
    for path in played.joins.values():  # a Join first; a START after it, if any
        assert path[0] == ("join", "group") and {s for s, _ in path[1:]} <= {"START"}
    if family == "opened":  # their chats were open: a Join, then each card in one tap
        assert all(path == [("join", "group")] for path in played.joins.values())
        assert all(len(path) == 1 for path in paths)


def test_the_figures_are_summed_printed_and_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    card, hand = ("card", "group"), ("my cards", "group")
    game = group_hand.Played(moves=10, turns=4, handed=4, told=2)
    game.calls = Counter(sendMessage=3, answerCallbackQuery=5)
    game.group = Counter(new_group_messages=2, ephemeral_sent=4)
    game.joins = {"Ben": [("join", "group")]}
    game.steps = {"Ana": [[hand, card], [card]], "Ben": [[hand, card], [hand, card]]}
    figures = group_hand.summary([game, game])
    assert figures["bot_api_calls_per_move"] == 0.8 and figures["turns_told_share"] == 0.5
    assert figures["group_per_move"] == {"ephemeral_sent": 0.4, "new_group_messages": 0.2}
    assert figures["later_turn_taps"] == {"min": 1, "median": 1.5, "max": 2}
    assert figures["first_turn_ways"] == {"my cards@group > card@group": 4}
    assert figures["turns_outside_group"] == 0
    found = {"ephemeral": True, "gap": 600.0, "never/day": figures}
    monkeypatch.setattr(group_hand, "measure", lambda *_: found)
    out = tmp_path / "out.json"
    group_hand.main(["--games", "1", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "never/day: 2 games, 20 moves" in printed
    assert "later_turn taps: median 1.5 (min 1, max 2)" in printed
    assert json.loads(out.read_text())["never/day"]["turns"] == 8


def test_a_message_names_whom_it_tells() -> None:
    mention = {"type": "text_mention", "offset": 0, "length": 3, "user": {"id": 100002}}
    group = {"chat_id": GROUP, "text": "Ben, your turn", "entities": json.dumps([mention])}
    calls = [
        {"method": "sendMessage", "ok": True, "params": group},
        {"method": "sendMessage", "ok": True, "params": {"chat_id": 100003, "text": "…"}},
        {
            "method": "sendMessage",
            "ok": True,
            "params": {"chat_id": 100004, "text": "…", "disable_notification": True},
        },
    ]
    assert [group_hand.told(calls, user) for user in (100001, 100002, 100003, 100004)] == [
        False,
        True,
        True,
        False,
    ]
    quiet = {"ephemeral_message_parameters": {"receiver_user_id": 100001}}
    ephemeral = {"method": "sendMessage", "ok": True, "params": group | quiet}
    assert group_hand.group_counts([calls[0], ephemeral]) == Counter(
        new_group_messages=1, notifying_group_messages=1, group_mentions=1, ephemeral_sent=1
    )
