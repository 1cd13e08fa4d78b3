"""An older Bot API (`--bot-api 10.1`): the ephemeral methods are unknown (404 "Not
Found"), `ephemeral_message_parameters` and the 10.2 fields are ignored and recorded as
unknown; the newest (the default) knows them all."""

from __future__ import annotations

import pytest

from cli.main import main
from emulator import RunningEmulator, server
from emulator.telegram.older import lacks
from tests.emulator.conftest import BotApiClient

FAMILY = -1001000000001
ANA = 100001
OLDER = pytest.mark.parametrize("emu", [{"bot_api": "10.1"}], indirect=True)
EPHEMERAL_METHODS = [
    "editEphemeralMessageText",
    "editEphemeralMessageCaption",
    "editEphemeralMessageMedia",
    "editEphemeralMessageReplyMarkup",
    "deleteEphemeralMessage",
]
NAMED = {"chat_id": FAMILY, "receiver_user_id": ANA, "ephemeral_message_id": 1}


def unknown(emu: RunningEmulator) -> list[tuple[str, str]]:
    return [(r["method"], r["parameter"]) for r in emu.unknown_parameters()]


@OLDER
@pytest.mark.parametrize("method", EPHEMERAL_METHODS)
def test_an_older_bot_api_does_not_know_the_ephemeral_methods(
    emu: RunningEmulator, api: BotApiClient, method: str
) -> None:
    assert api.error(method, **NAMED, text="x") == (404, "Not Found")
    assert api.error(method.lower(), **NAMED) == (404, "Not Found")  # any case, as Telegram


def test_the_newest_knows_them(emu: RunningEmulator, api: BotApiClient) -> None:
    code, description = api.error("deleteEphemeralMessage", **NAMED)
    assert code == 400, description


@OLDER
@pytest.mark.telegram_ignores
def test_an_older_bot_api_ignores_ephemeral_parameters(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    asked = {"receiver_user_id": ANA}
    sent = api.ok("sendMessage", chat_id=FAMILY, text="Hand", ephemeral_message_parameters=asked)
    assert sent["message_id"] > 0 and "ephemeral_message_id" not in sent  # the whole group's
    assert emu.wait_for_message("Family", "Hand").text == "Hand"
    assert unknown(emu) == [("sendMessage", "ephemeral_message_parameters")]


@OLDER
@pytest.mark.telegram_ignores
def test_an_older_bot_api_drops_is_ephemeral_from_commands_as_a_form_too(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    commands = [{"command": "hand", "description": "your cards", "is_ephemeral": True}]
    scope = {"type": "all_group_chats"}
    assert api.form("setMyCommands", commands=commands, scope=scope)["ok"]
    listed = api.ok("getMyCommands", scope=scope)
    assert listed == [{"command": "hand", "description": "your cards"}]
    assert unknown(emu) == [("setMyCommands", "commands.is_ephemeral")]


def test_the_newest_keeps_is_ephemeral(emu: RunningEmulator, api: BotApiClient) -> None:
    commands = [{"command": "hand", "description": "your cards", "is_ephemeral": True}]
    api.ok("setMyCommands", commands=commands, scope={"type": "all_group_chats"})
    assert api.ok("getMyCommands", scope={"type": "all_group_chats"}) == commands


def test_only_modelled_versions_are_played() -> None:
    assert lacks("10.4").methods == frozenset()
    with pytest.raises(ValueError, match=r"10\.1, 10\.4"):
        lacks("9.0")


def test_burro_emulator_plays_the_version_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    played: list[str] = []
    monkeypatch.setattr(server, "serve", lambda config, *a, **k: played.append(config.bot_api))
    assert main(["emulator", "--bot-api", "10.1"]) == 0
    assert main(["emulator"]) == 0
    assert played == ["10.1", "10.4"]
    assert main(["emulator", "--bot-api", "9.0"]) == 2
    assert "--bot-api: Bot API '9.0': one of 10.1, 10.4" in capsys.readouterr().err
