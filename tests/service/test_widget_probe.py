"""`burro serve` asks at start whether the Bot API takes widgets (Bot API 10.4): yes from
the emulator as Telegram is, no from one playing 10.1, unknown when nothing answers; the
flag every process reads follows it, and `burro doctor` says it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import fakeredis
import pytest
from telegram import Bot

from cli.main import main
from cli.stack import SECRET, TOKEN
from emulator.config import fast_config
from service.platforms.telegram import botfather, probe
from tests.service.inproc import LocalEmulator, local_emulator

NAME = "widgets"


@pytest.fixture
def newest() -> Iterator[LocalEmulator]:
    with local_emulator() as emu:
        yield emu


@pytest.fixture
def older() -> Iterator[LocalEmulator]:
    with local_emulator(fast_config(bot_api="10.1")) as emu:
        yield emu


async def probed(url: str) -> bool | None:
    async with Bot(TOKEN, base_url=f"{url}/bot", base_file_url=f"{url}/file/bot") as bot:
        return await probe.widgets(bot)


def test_the_probe_says_yes_to_the_newest_no_to_an_older_and_changes_nothing(
    newest: LocalEmulator, older: LocalEmulator
) -> None:
    assert asyncio.run(probed(newest.api_url)) is True
    assert asyncio.run(probed(older.api_url)) is False
    asked = newest.calls("editMessageWidgetData")
    assert [c["ok"] for c in asked] == [False] and asked[0]["error_code"] == 400


def test_no_answer_is_unknown(newest: LocalEmulator) -> None:
    newest.inject_error("editMessageWidgetData", 429, retry_after=5)  # a flood wait
    assert asyncio.run(probed(newest.api_url)) is None


def test_the_flag_is_off_until_a_probe_says_on() -> None:
    client = fakeredis.FakeRedis()
    assert botfather.widgets(client) is False
    botfather.record_widgets(client, True)
    assert botfather.widgets(client) is True
    botfather.record_widgets(client, False)
    assert botfather.widgets(client) is False


def doctor(
    emu: LocalEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    monkeypatch.setenv("BURRO_TELEGRAM_TOKEN", TOKEN)
    monkeypatch.setenv("BURRO_WEBHOOK_SECRET", SECRET)
    monkeypatch.setenv("BURRO_TELEGRAM_API_URL", emu.api_url)
    monkeypatch.delenv("BURRO_PUBLIC_URL", raising=False)
    main(["doctor", "--json"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    found: dict[str, Any] = {check["name"]: check for check in report["checks"]}[NAME]
    return found


def test_doctor_says_widgets_are_on(
    newest: LocalEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    check = doctor(newest, monkeypatch, capsys)
    assert check["status"] == "ok" and check["found"].startswith("on")


def test_doctor_says_an_older_bot_api_gives_text_hands(
    older: LocalEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    check = doctor(older, monkeypatch, capsys)
    assert check["status"] == "note" and check["found"] == "off: hands are text"
    assert check["advice"] == probe.WIDGETS_ADVICE
