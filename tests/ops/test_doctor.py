"""`burro doctor` against the local Telegram: BotFather's settings as getMe reports
them, the webhook as getWebhookInfo does, and what to change when one is wrong."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from cli.main import main
from cli.stack import SECRET, TOKEN
from emulator.server import RunningEmulator, running_emulator


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[RunningEmulator]:
    with running_emulator() as emulator:
        monkeypatch.setenv("BURRO_TELEGRAM_TOKEN", TOKEN)
        monkeypatch.setenv("BURRO_WEBHOOK_SECRET", SECRET)
        monkeypatch.setenv("BURRO_TELEGRAM_API_URL", emulator.api_url)
        monkeypatch.delenv("BURRO_PUBLIC_URL", raising=False)
        yield emulator


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    status = main(["doctor", "--json", *args])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return status, {check["name"]: check for check in report["checks"]}


def call(emu: RunningEmulator, method: str, **params: Any) -> Any:
    return httpx.post(f"{emu.api_url}/bot{TOKEN}/{method}", json=params, timeout=10).json()


def test_a_new_bot_needs_inline_mode_and_a_webhook(
    emu: RunningEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    status, checks = doctor(capsys)
    assert status == 1
    assert (
        checks["inline mode"]["status"] == "fix" and "/setinline" in checks["inline mode"]["advice"]
    )
    assert "/setinlinefeedback" in checks["inline feedback"]["advice"]
    assert checks["privacy mode"] == checks["privacy mode"] | {"status": "ok", "found": "on"}
    assert checks["joining groups"]["status"] == "ok"
    assert checks["webhook"]["status"] == "fix" and "set-webhook" in checks["webhook"]["advice"]


def test_a_well_set_bot_passes_and_privacy_off_is_noted(
    emu: RunningEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    call(emu, "getMe")  # the bot exists from its first call
    emu.bot_settings(inline_mode=True, inline_feedback=100)
    assert main(["set-webhook", "--public-url", "https://burro.example.org"]) == 0
    capsys.readouterr()
    status, checks = doctor(capsys, "--public-url", "https://burro.example.org")
    assert status == 0, checks
    assert checks["webhook"]["found"] == "https://burro.example.org/telegram/webhook"
    assert checks["pending updates"]["found"] == "0"

    emu.bot_settings(privacy_mode=False)
    status, checks = doctor(capsys)
    assert status == 0 and checks["privacy mode"]["status"] == "note"
    assert "/setprivacy" in checks["privacy mode"]["advice"]
    status, checks = doctor(capsys, "--public-url", "https://elsewhere.example.org")
    assert status == 1 and "expected https://elsewhere" in checks["webhook"]["found"]


def test_delivery_errors_and_missing_update_kinds(
    emu: RunningEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    call(emu, "getMe")
    emu.bot_settings(inline_mode=True)
    hook = {"url": "http://127.0.0.1:9/telegram/webhook", "allowed_updates": ["message"]}
    assert call(emu, "setWebhook", **hook)["ok"]
    emu.start("Ana")  # delivered nowhere: Telegram notes the error
    emu.wait_for(lambda: emu.webhook_info().get("last_error_message"), what="a failed delivery")
    status, checks = doctor(capsys)
    assert status == 1
    assert checks["update kinds"]["found"].startswith("missing callback_query, inline_query")
    assert checks["last delivery error"]["status"] == "fix"
    assert "UTC" in checks["last delivery error"]["found"]
    assert int(checks["pending updates"]["found"]) >= 1


def test_the_report_for_people_and_a_refused_token(
    emu: RunningEmulator, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["doctor"]) == 1
    printed = capsys.readouterr().out
    assert "@burro_bot" in printed and "[ fix] inline mode: off" in printed
    assert TOKEN not in printed
    secret = "wrong-secret-of-the-right-bot"
    monkeypatch.setenv("BURRO_TELEGRAM_TOKEN", TOKEN.partition(":")[0] + ":" + secret)
    assert main(["doctor"]) == 1
    said = capsys.readouterr()
    assert "401" in said.err and secret not in said.err + said.out
    monkeypatch.setenv("BURRO_TELEGRAM_TOKEN", "")
    assert main(["doctor"]) == 2
