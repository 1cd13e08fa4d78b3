"""`burro emulator` serves the local WhatsApp beside the local Telegram: its ids and
token from the command line, its world kept beside the Telegram one with `--state`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from emulator import EmulatorDriver

ROOT = Path(__file__).resolve().parents[3]


def test_burro_emulator_serves_whatsapp_too(tmp_path: Path) -> None:
    state = tmp_path / "emulator.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cli.main",
            "emulator",
            "--port",
            "0",
            "--whatsapp-token",
            "cli-token",
            "--whatsapp-phone-id",
            "555",
            "--no-whatsapp-limits",
            "--state",
            str(state),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        assert first.startswith("Burro local Telegram: http://127.0.0.1:"), proc.stderr.read()
        url = first.split(": ", 1)[1].strip().rstrip("/")
        printed = "".join(proc.stdout.readline() for _ in range(4))
        assert f"BURRO_WHATSAPP_API_URL={url}" in printed and "WhatsApp limits: off" in printed
        with EmulatorDriver(url) as emu:
            wa = emu.whatsapp
            assert wa.config()["token"] == "cli-token"
            assert wa.settings()["limits"] is False
            wa.send("Abuela", "hola")
            headers = {"Authorization": "Bearer cli-token"}
            sent = httpx.post(
                f"{url}/v21.0/555/messages",
                headers=headers,
                json={
                    "messaging_product": "whatsapp",
                    "to": "34600000001",
                    "text": {"body": "¡Hola!"},
                },
                trust_env=False,
            )
            assert sent.status_code == 200, sent.text
            wa.wait_for_status(sent.json()["messages"][0]["id"], "delivered")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) in (0, 130)
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    kept = json.loads((tmp_path / "emulator.whatsapp.json").read_text())
    assert [m["type"] for m in kept["messages"]] == ["text", "text"]
    assert state.exists()
