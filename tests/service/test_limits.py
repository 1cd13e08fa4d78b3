"""A one-to-one game against three bots under Telegram's real flood limits: no call is
refused with 429, and the human's moves cost about two Bot API calls each. The product
runs in this process (inproc.running_service), with its flood budget on and the
emulator's limits as Telegram's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator.config import fast_config
from emulator.server import RunningEmulator
from emulator.telegram.driver import Button
from emulator.telegram.limits import FloodLimits
from service.table import play
from tests.service.inproc import Hook, running_service
from tests.service.play import action_button, game_buttons, room_in

CARLA = 100003


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    limited = fast_config(flood_limits=FloodLimits(enabled=True))
    folder = tmp_path_factory.mktemp("limits")
    with running_service(folder, emulator=limited, rate_limits=True) as running:
        yield running


@pytest.fixture
def emu(stack: Hook) -> Iterator[RunningEmulator]:
    yield stack.emu
    assert stack.worker is not None
    stack.worker.check()  # no job raised


def in_first_hands(stack: Hook, chat: int) -> bool:
    """The game is still on, in one of its first two hands."""
    room = room_in(stack, chat)
    return room.status == "playing" and room.game is not None and room.game.hand_no <= 2


def test_one_to_one_against_three_bots_within_limits(emu: RunningEmulator, stack: Hook) -> None:
    emu.send_message("Carla", "Carla", "/play spanish")
    lobby = emu.wait_for_message("Carla", lambda m: action_button(m, "S") is not None)
    chat = lobby.chat_id
    for _ in range(2):
        shown = emu.last_message("Carla")
        add_bot = action_button(shown, "B")
        assert shown is not None and add_bot is not None
        emu.tap("Carla", shown, add_bot)
    emu.wait_for(lambda: len(room_in(stack, chat).seats) == 4 or None, what="three bots")
    start = emu.last_seq()
    message = emu.wait_for_message("Carla", lambda m: action_button(m, "S") is not None)
    start_button = action_button(message, "S")
    assert start_button is not None
    emu.tap("Carla", message, start_button)
    taps = 1
    while in_first_hands(stack, chat):
        room = room_in(stack, chat)
        mark = f".{room.version}."

        def keyboard(
            mark: str = mark, version: int = room.version
        ) -> tuple[str, list[Button]] | None:
            if room_in(stack, chat).version != version:
                return ("moved", [])
            shown = emu.last_message("Carla")
            current = [b for b in game_buttons(shown) if mark in str(b.value)]
            return ("keyboard", current) if current else None

        what, found = emu.wait_for(keyboard, timeout=30, what="Carla's keyboard")
        if what == "moved":
            continue
        shown = emu.last_message("Carla")
        assert shown is not None
        emu.tap("Carla", shown, found[0].value)
        taps += 1
    calls = [
        c
        for c in emu.calls(since=start)
        if c["method"] == "answerCallbackQuery" or c["params"].get("chat_id") in (CARLA, str(CARLA))
    ]
    refused = [c for c in emu.calls(since=start) if c.get("error_code") == 429]
    assert not refused, refused[:3]
    # Each of the two hands' ends costs the same few calls (its news, the table posted
    # anew below it, the old one deleted) however many moves the deal gave the hand: per
    # move, without them, so that a deal of short hands does not tip the figure.
    room = room_in(stack, chat)
    assert room.game is not None
    hand_ends = 3 * play.game(room).finished_hands(room.game)
    per_move = (len(calls) - hand_ends) / taps
    print(
        f"\nBot API calls per human move (one-to-one vs 3 bots): {len(calls) / taps:.2f}, "
        f"{per_move:.2f} without the hands' ends ({len(calls)} calls, {taps} taps)"
    )
    assert per_move <= 2.5
