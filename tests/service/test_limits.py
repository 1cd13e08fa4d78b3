"""A one-to-one game against three bots under Telegram's real flood limits: no call is
refused with 429, and the human's moves cost about two Bot API calls each."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cli.stack import Stack
from emulator.config import fast_config
from emulator.limits import FloodLimits
from emulator.server import RunningEmulator, running_emulator
from tests.service.conftest import make_stack
from tests.service.play import action_button, game_buttons, room_in

CARLA = 100003


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    with running_emulator(fast_config(flood_limits=FloodLimits(enabled=True))) as emulator:
        yield emulator


@pytest.fixture(scope="module")
def stack(emu: RunningEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with make_stack(emu, tmp_path_factory.mktemp("limits"), flood_limits=True) as running:
        yield running


def test_one_to_one_against_three_bots_within_limits(emu: RunningEmulator, stack: Stack) -> None:
    emu.send_message("Carla", "Carla", "/play spanish")
    lobby = emu.wait_for_message("Carla", lambda m: action_button(m, "S") is not None)
    chat = lobby.chat_id
    for _ in range(2):
        emu.tap("Carla", emu.last_message("Carla"), action_button(emu.last_message("Carla"), "B"))  # type: ignore[arg-type]
    emu.wait_for(lambda: len(room_in(stack, chat).seats) == 4 or None, what="three bots")
    start = emu.last_seq()
    message = emu.wait_for_message("Carla", lambda m: action_button(m, "S") is not None)
    emu.tap("Carla", message, action_button(message, "S"))  # type: ignore[arg-type]
    taps = 1
    while room_in(stack, chat).status == "playing" and room_in(stack, chat).game.hand_no <= 3:  # type: ignore[union-attr]
        room = room_in(stack, chat)
        mark = f".{room.version}."

        def keyboard(mark: str = mark, version: int = room.version) -> object:
            if room_in(stack, chat).version != version:
                return "moved"
            shown = emu.last_message("Carla")
            return [b for b in game_buttons(shown) if mark in str(b.value)] or None

        found = emu.wait_for(keyboard, timeout=30, what="Carla's keyboard")
        if found == "moved":
            continue
        emu.tap("Carla", emu.last_message("Carla"), found[0].value)  # type: ignore[index, arg-type]
        taps += 1
    calls = [
        c
        for c in emu.calls(since=start)
        if c["method"] == "answerCallbackQuery" or c["params"].get("chat_id") in (CARLA, str(CARLA))
    ]
    refused = [c for c in emu.calls(since=start) if c.get("error_code") == 429]
    assert not refused, refused[:3]
    per_move = len(calls) / taps
    print(
        f"\nBot API calls per human move (one-to-one vs 3 bots): {per_move:.2f} "
        f"({len(calls)} calls, {taps} taps)"
    )
    assert per_move <= 2.5
