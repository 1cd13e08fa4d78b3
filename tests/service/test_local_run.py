"""Running the README's command, `burro local`, from a test: start it, read what it
prints, play against bots in its web chat, stop it with Ctrl-C. Its test (it starts the
product with no token and no installed Redis, serves the web chat, stops cleanly and
resumes the game when run again) is in test_local_restart.py, with the restarts: each
run of `burro local` costs seconds, so one run serves both."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from emulator.telegram.driver import ChatMessage, EmulatorDriver
from tests.service.play import action_button, game_buttons


def run_local(data: Path, port: int) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BURRO_")}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cli.main",
            "local",
            "--data",
            str(data),
            "--port",
            str(port),
            "--bot-delay",
            "0",
            "--no-flood-limits",  # the pace is test_limits.py's: here, starts and restarts
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
    )


def lines_until(process: subprocess.Popen[str], marker: str) -> Iterator[str]:
    assert process.stdout is not None
    for line in process.stdout:
        yield line
        if marker in line:
            return
    raise AssertionError(f"`burro local` ended before printing {marker!r}")


def play_against_bots(chat: EmulatorDriver) -> ChatMessage:
    """Carla opens a game against a bot in her private chat and starts it: the message
    with her cards to play."""
    chat.send_message("Carla", "Carla", "/play")
    lobby = chat.wait_for_message("Carla", lambda m: action_button(m, "S") is not None)
    start = action_button(lobby, "S")
    assert start is not None
    chat.tap("Carla", lobby, start)
    return chat.wait_for(lambda: cards(chat), what="Carla's cards")


def cards(chat: EmulatorDriver) -> ChatMessage | None:
    """Carla's message with her cards to play, once it is there."""
    found = chat.last_message("Carla")
    return found if game_buttons(found) else None


def stop(process: subprocess.Popen[str]) -> None:
    """Ctrl-C, reading what it prints meanwhile: a pipe nobody reads fills up (64 KB of
    log lines) and a process writing to it never gets to exit."""
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=60)
    assert process.returncode == 0
