"""The cost bench's latency phase: what counts as a tap's update of a chat, and taps
timed across a hand's end, where the tapper's chat gets new messages and no edit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import cost
from service.table.room import Room

TAPPER, GROUP = 7, -1001


def call(method: str, chat: int, version: int | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"chat_id": chat}
    if version is not None:
        button = {"text": "A♠", "callback_data": f"room.{version}.pAS"}
        params["reply_markup"] = {"inline_keyboard": [[button]]}
    return {"method": method, "params": params}


def test_an_edit_or_a_new_message_to_the_chat_is_its_update() -> None:
    match = cost.update_of(TAPPER)
    assert match(call("editMessageText", TAPPER))
    assert match(call("sendMessage", TAPPER))  # a hand's end: its news, the next hand
    assert not match(call("sendMessage", GROUP))
    assert not match(call("deleteMessage", TAPPER))
    assert not match(call("answerCallbackQuery", TAPPER))


def test_a_keyboard_back_shows_a_later_version_edited_or_new() -> None:
    match = cost.update_of(TAPPER, version=12)
    assert match(call("editMessageText", TAPPER, version=14))
    assert match(call("sendMessage", TAPPER, version=13))
    assert not match(call("editMessageText", TAPPER, version=12))  # the same turn's screen
    assert not match(call("sendMessage", TAPPER))  # news without buttons


def past_the_first_hand(room: Room) -> bool:
    return room.status != "playing" or room.game is None or room.game.hand_no > 1


@pytest.mark.e2e
def test_taps_are_timed_across_a_hand_end(tmp_path: Path, monkeypatch: Any) -> None:
    """A four-player group game's taps until its first hand ends (about 30 of the first
    legal action; 120 at most): the tap that ends it is timed to the new messages it
    brings, not waited on for an edit that never comes."""
    matched: list[dict[str, Any]] = []
    first_call = cost.first_call

    def recording(*args: Any, **kwargs: Any) -> dict[str, Any]:
        found = first_call(*args, **kwargs)
        matched.append(found)
        return found

    monkeypatch.setattr(cost, "first_call", recording)
    with cost.latency_stack(tmp_path) as (emu, client):
        samples = cost.timed_group_taps(emu, client, 120, until=past_the_first_hand)
    own, table = samples.values()
    assert len(own) == len(table) > 0
    private = [c for c in matched if int(c["params"]["chat_id"]) > 0]
    assert any(c["method"] == "sendMessage" for c in private), "no tap ended a hand"
