"""The README's run command, `burro local`: it starts the whole product with no token and
no installed Redis, serves the web chat, a scripted user starts a game, Ctrl-C stops it
cleanly, and running it again resumes the game."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx

from emulator.driver import ChatMessage, EmulatorDriver
from service.infra.redis_server import free_port
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
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=60) == 0


def test_burro_local_starts_serves_and_resumes(tmp_path: Path) -> None:
    port = free_port()
    process = run_local(tmp_path / "data", port)
    try:
        printed = "".join(lines_until(process, "open http"))
        url = f"http://127.0.0.1:{port}"
        assert url in printed
        assert "<html" in httpx.get(url + "/", timeout=10).text  # the web chat
        with EmulatorDriver(url, timeout=30) as chat:
            play_against_bots(chat)
    finally:
        stop(process)
    assert (tmp_path / "data" / "redis" / "appendonly.aof").exists() or any(
        (tmp_path / "data" / "redis").glob("appendonlydir/*")
    )
    again = run_local(tmp_path / "data", port)
    try:
        list(lines_until(again, "open http"))
        with EmulatorDriver(f"http://127.0.0.1:{port}", timeout=30) as chat:
            chat.send_message("Carla", "Carla", "/play")  # the open game comes back
            chat.wait_for(
                lambda: game_buttons(chat.last_message("Carla")) or None,
                what="the resumed game's cards",
            )
    finally:
        stop(again)
