"""`burro doctor` says whether the Bot API takes ephemeral messages, as serve's probe
finds it: on against the local Telegram as Telegram is (10.4), off with what to do
against one playing 10.1, unknown when nothing answers the probe."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from cli.main import main
from cli.stack import SECRET, TOKEN
from emulator.config import fast_config
from emulator.server import RunningEmulator, running_emulator
from service.platforms.telegram import probe
from service.platforms.telegram.botapi import ApiError, NetworkError

NAME = "ephemeral messages"


def pointed_at(monkeypatch: pytest.MonkeyPatch, emulator: RunningEmulator) -> None:
    monkeypatch.setenv("BURRO_TELEGRAM_TOKEN", TOKEN)
    monkeypatch.setenv("BURRO_WEBHOOK_SECRET", SECRET)
    monkeypatch.setenv("BURRO_TELEGRAM_API_URL", emulator.api_url)
    monkeypatch.delenv("BURRO_PUBLIC_URL", raising=False)


@pytest.fixture
def newest(monkeypatch: pytest.MonkeyPatch) -> Iterator[RunningEmulator]:
    with running_emulator() as emulator:
        pointed_at(monkeypatch, emulator)
        yield emulator


@pytest.fixture
def older(monkeypatch: pytest.MonkeyPatch) -> Iterator[RunningEmulator]:
    with running_emulator(fast_config(bot_api="10.1")) as emulator:
        pointed_at(monkeypatch, emulator)
        yield emulator


def checked(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    status = main(["doctor", "--json"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return status, {check["name"]: check for check in report["checks"]}


def test_the_newest_bot_api_shows_hands_in_the_group(
    newest: RunningEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    _, checks = checked(capsys)
    assert checks[NAME]["status"] == "ok" and checks[NAME]["found"].startswith("on")
    assert checks[NAME]["advice"] == ""


def test_an_older_one_keeps_hands_in_the_private_chat_and_says_what_to_do(
    older: RunningEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    status, checks = checked(capsys)
    assert checks[NAME]["status"] == "note"  # nothing is broken: the hand is private
    assert "private chat" in checks[NAME]["found"] and checks[NAME]["found"].startswith("off")
    assert checks[NAME]["advice"] == probe.ADVICE and "restart burro serve" in probe.ADVICE
    assert status == 1  # for the webhook and inline mode a new bot lacks, not for this
    main(["doctor"])
    printed = capsys.readouterr().out
    assert f"[note] {NAME}: off: hands stay in the private chat" in printed


def test_no_answer_to_the_probe_is_unknown(
    newest: RunningEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    newest.inject_error("deleteEphemeralMessage", 429, retry_after=5)  # a flood wait
    _, checks = checked(capsys)
    assert checks[NAME]["status"] == "note" and checks[NAME]["found"].startswith("unknown")
    assert "again" in checks[NAME]["advice"]


class Answers:
    """A Bot API client answering every call with one error or network failure."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def call(self, method: str, **params: Any) -> Any:
        assert method == "deleteEphemeralMessage" and params["chat_id"] == 42
        raise self.error


@pytest.mark.parametrize(
    ("error", "found"),
    [
        (ApiError(400, "Bad Request: chat not found"), True),
        (ApiError(403, "Forbidden: bot was kicked"), True),
        (ApiError(404, "Not Found"), False),
        (ApiError(429, "Too Many Requests", retry_after=3), None),
        (ApiError(401, "Unauthorized"), None),
        (NetworkError("ConnectionRefusedError: refused"), None),
    ],
)
def test_what_each_answer_says(error: Exception, found: bool | None) -> None:
    assert probe.ask(Answers(error), 42) is found
