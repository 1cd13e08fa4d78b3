"""`burro emulator`: starts with one command, prints its URL, and is driven from another
process through the control API."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from emulator import EmulatorDriver

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def process() -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "emulator", "--port", "0", "--no-flood-limits"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # blocks until the server is up (or the process died)
    if not first.startswith("Burro local Telegram: http://127.0.0.1:"):
        raise AssertionError(first + proc.stderr.read())
    url = first.split(": ", 1)[1].strip().rstrip("/")
    yield proc, url
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_starts_prints_its_url_and_serves_both_sides(
    process: tuple[subprocess.Popen[str], str],
) -> None:
    proc, url = process
    assert httpx.get(f"{url}/bot42:abc/getMe", trust_env=False).json()["result"]["id"] == 42
    page = httpx.get(f"{url}/", trust_env=False)
    assert page.status_code == 200 and "Burro" in page.text
    with EmulatorDriver(url) as emu:  # another process drives it through the control API
        emu.start("Dan")
        assert emu.messages_in("Dan")[0].text == "/start"
        assert emu.state()["flood_limits"] is False
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=10) in (0, 130)
    assert proc.stderr is not None and "Traceback" not in proc.stderr.read()


def test_a_busy_port_is_a_clear_error(process: tuple[subprocess.Popen[str], str]) -> None:
    _, url = process
    port = url.rsplit(":", 1)[1]
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "emulator", "--port", port],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert "cannot listen on 127.0.0.1" in done.stderr and "Traceback" not in done.stderr


def test_a_malformed_token_is_a_clear_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "emulator", "--token", "not-a-token"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "not a bot token" in done.stderr and "Traceback" not in done.stderr
