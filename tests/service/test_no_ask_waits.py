"""Asks made fast, twice and at once, each answered without the sweeper: once the jobs
have run, no chat is left marked for an update that no job will bring (a lost job waits
for the sweeper, 30 s and more: found as a double tap on /look)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.infra import indexes
from service.infra.keys import PENDING_SYNC
from service.platforms.telegram import botfather
from tests.service.inproc import CARLA, Hook, running_service
from tests.service.play import GROUP, action_button, room_in
from tests.service.test_hand_in_group import PLAYERS, mover, moves_of, opened, prompted, table_of

ROUNDS = 20
FLOOD_WAIT = 5.0  # s: the longest a chat's message waits for Telegram's limits here


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    """The product in this process with BotFather's defaults (the hand in the group)."""
    with running_service(tmp_path_factory.mktemp("asks"), bot_settings={}) as running:
        botfather.record_ephemeral(running.redis, True)  # as serve's probe finds it
        yield running


def left_waiting(hook: Hook) -> list[tuple[str, float]]:
    """The chats marked for an update once every job has run, those put off a few
    seconds by Telegram's flood limits included (the clock moved on to them, never as
    far as the sweeper's grace, which would serve a lost job in the end)."""
    worker = hook.worker
    assert worker is not None

    def delivered() -> bool | None:  # and answered: their changes committed
        return hook.emu.webhook_info()["pending_update_count"] == 0 or None

    hook.emu.wait_for(delivered, what="the updates delivered")
    worker.settle()
    for _ in range(20):
        if not worker.skip_ahead(at_most=FLOOD_WAIT):
            break
        worker.settle()
    return indexes.due(hook.redis, PENDING_SYNC, float("inf"), 100)


def test_cards_asked_twice_in_the_group_and_moves_leave_nothing_waiting(hook: Hook) -> None:
    emu = hook.emu
    chat, room = opened(hook)
    for turn in range(ROUNDS):
        room = room_in(hook, chat)
        if room.status != "playing":
            break
        table = table_of(hook, chat)
        data = action_button(table, "H")
        assert data is not None
        for user in PLAYERS:  # "🃏 My cards", tapped twice
            emu.tap(user, table, data)
            emu.tap(user, table, data)
        emu.send_message(PLAYERS[turn % 3], GROUP, "/hand")
        assert left_waiting(hook) == [], f"turn {turn}, the asks"  # each shown anew
        who = mover(room)
        hand = prompted(hook, who, room)
        emu.tap(who, hand, moves_of(hand)[0])
        assert left_waiting(hook) == [], f"turn {turn}, the move"


def test_looks_switched_fast_in_a_private_game_leave_nothing_waiting(hook: Hook) -> None:
    emu = hook.emu
    emu.send_message("Carla", "Carla", "/play spanish")
    lobby = emu.wait_for_message("Carla", lambda m: "▶️ Start" in m.button_texts)
    emu.tap("Carla", lobby, "▶️ Start")
    emu.wait_for(lambda: room_in(hook, CARLA["id"]).status == "playing" or None)
    for turn in range(ROUNDS):
        for word in ("/look text", "/look pictures", "/hand", "/start"):
            emu.send_message("Carla", "Carla", word)
        assert left_waiting(hook) == [], f"round {turn}"
