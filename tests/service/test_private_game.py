"""A one-to-one game against bots, played to the end through the emulator."""

from __future__ import annotations

from cli.stack import Stack
from emulator.driver import ChatMessage
from emulator.server import RunningEmulator


def latest(emu: RunningEmulator, chat: str) -> ChatMessage:
    message = emu.last_message(chat)
    assert message is not None
    return message


def test_play_against_bots_to_the_end(emu: RunningEmulator, stack: Stack) -> None:
    emu.send_message("Carla", "Carla", "/play")
    lobby = emu.wait_for_message("Carla", lambda m: any("Start" in b.text for row in m.buttons for b in row))
    emu.tap("Carla", lobby, "▶️ Start")
    for _ in range(400):
        message = emu.wait_for_message(
            "Carla", lambda m: "Your turn" in m.text or "Game over" in m.text or "Play again" in str(m.buttons), timeout=20
        )
        if "Game over" in message.text or any("Play again" in b.text for row in message.buttons for b in row):
            break
        button = message.buttons[0][0]
        emu.tap("Carla", message, button.text)
    else:
        raise AssertionError("the game did not end")
    assert "Game over" in latest(emu, "Carla").text


def test_final_screen_names_the_result(emu: RunningEmulator, stack: Stack) -> None:
    message = latest(emu, "Carla")
    print(message.text)
    print(message.buttons)
    calls = emu.calls()
    print(len(calls), {c["method"] for c in calls})
