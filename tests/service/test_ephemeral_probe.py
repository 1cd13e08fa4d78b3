"""`burro serve` asks at start whether the Bot API takes ephemeral messages: yes from the
emulator as Telegram is (10.4), no from one playing 10.1; the flag every process reads
follows, /hand joins the groups' menus as an ephemeral command only on a yes, and no
answer keeps the last finding."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fakeredis
import httpx
import pytest
from pydantic import SecretStr
from telegram import Bot

from cli.stack import SECRET, TOKEN
from emulator import RunningEmulator
from emulator.config import fast_config
from service.infra import tls
from service.infra.store import Store
from service.platforms.links import ServiceLinks
from service.platforms.telegram import botfather, menu, probe
from service.platforms.telegram.webhook import TelegramWebhook
from service.services import Services
from service.settings import Settings
from tests.service.inproc import LocalEmulator, local_emulator, running_hook

GROUPS = {"type": "all_group_chats"}


@pytest.fixture
def older() -> Iterator[LocalEmulator]:
    with local_emulator(fast_config(bot_api="10.1")) as emu:
        yield emu


@pytest.fixture
def newest() -> Iterator[LocalEmulator]:
    with local_emulator() as emu:
        yield emu


async def probed(url: str) -> bool | None:
    async with Bot(TOKEN, base_url=f"{url}/bot", base_file_url=f"{url}/file/bot") as bot:
        return await probe.ephemeral(bot)


def test_the_probe_says_yes_to_the_newest_and_no_to_an_older_bot_api(
    newest: LocalEmulator, older: LocalEmulator
) -> None:
    assert asyncio.run(probed(newest.api_url)) is True
    assert asyncio.run(probed(older.api_url)) is False
    assert probe.told(True) == "on" and probe.told(None) == "unknown"


def test_the_probe_cannot_tell_without_an_answer(newest: LocalEmulator) -> None:
    async def after_the_server_left() -> bool | None:
        url = newest.api_url
        async with Bot(TOKEN, base_url=f"{url}/bot", base_file_url=f"{url}/file/bot") as bot:
            newest.server.stop()  # initialized (getMe answered), then nothing answers
            return await probe.ephemeral(bot)

    assert asyncio.run(after_the_server_left()) is None


def group_commands(emu: RunningEmulator, language: str | None = None) -> list[dict[str, Any]]:
    language_code = {"language_code": language} if language else {}
    found = httpx.post(
        f"{emu.api_url}/bot{TOKEN}/getMyCommands",
        json={"scope": GROUPS, **language_code},
        verify=tls.context(),
    ).json()["result"]
    assert isinstance(found, list)
    return found


def test_serve_finds_ephemeral_messages_and_offers_hand_in_groups(tmp_path: Path) -> None:
    with running_hook(tmp_path) as hook:
        assert botfather.ephemeral(hook.redis)
        listed = group_commands(hook.emu, "es")
        assert listed[1] == {
            "command": "hand",
            "description": "tus cartas, solo las ves tú",
            "is_ephemeral": True,
        }
        assert [c["command"] for c in group_commands(hook.emu)][:2] == ["burro", "hand"]


def test_serve_finds_an_older_bot_api_without_them(older: LocalEmulator) -> None:
    client = fakeredis.FakeRedis()
    client.set(botfather.EPHEMERAL_KEY, "1")  # what a run against a newer one had found
    hook = webhook_at(older, client)

    async def start() -> None:
        await hook.startup()
        await hook.application.shutdown()

    asyncio.run(start())
    assert client.get(botfather.EPHEMERAL_KEY) == b"0" and not botfather.ephemeral(client)
    assert "hand" not in [c["command"] for c in group_commands(older)]


def webhook_at(emu: LocalEmulator, client: fakeredis.FakeRedis) -> TelegramWebhook:
    settings = Settings(
        telegram_token=SecretStr(TOKEN),
        webhook_secret=SecretStr(SECRET),
        telegram_api_url=emu.api_url,
    )
    svc = Services(settings, Store.of(client, settings))
    return TelegramWebhook(settings, svc, client, ServiceLinks(svc))


def test_no_answer_keeps_the_last_finding(newest: LocalEmulator) -> None:
    client = fakeredis.FakeRedis()
    hook = webhook_at(newest, client)

    async def start_then_probe_alone() -> None:
        await hook.startup()
        assert client.get(botfather.EPHEMERAL_KEY) == b"1"
        newest.server.stop()
        await hook.probe_ephemeral()
        await hook.application.shutdown()

    asyncio.run(start_then_probe_alone())
    assert client.get(botfather.EPHEMERAL_KEY) == b"1"


def test_a_flood_wait_keeps_the_last_finding_and_its_menu(newest: LocalEmulator) -> None:
    client = fakeredis.FakeRedis()
    client.set(botfather.EPHEMERAL_KEY, "1")
    for call in menu.menus():  # what `burro serve` sets before it starts: no /hand
        httpx.post(f"{newest.api_url}/bot{TOKEN}/setMyCommands", json=call, verify=tls.context())
    newest.inject_error("deleteEphemeralMessage", 429, retry_after=1)
    hook = webhook_at(newest, client)

    async def start() -> None:
        await hook.startup()
        await hook.application.shutdown()

    asyncio.run(start())
    assert client.get(botfather.EPHEMERAL_KEY) == b"1"
    assert "hand" in [c["command"] for c in group_commands(newest)]


def test_the_ephemeral_menus_are_the_groups_with_hand_after_burro() -> None:
    calls = menu.ephemeral_menus()
    assert len(calls) == len(menu.MENU_LANGUAGES)
    plain = [c for c in menu.menus() if c["scope"] == GROUPS]
    for call, before in zip(calls, plain, strict=True):
        assert call["scope"] == GROUPS and call.get("language_code") == before.get("language_code")
        hand, *others = [c for c in call["commands"] if c.get("is_ephemeral")]
        assert hand["command"] == "hand" and not others
        assert [c for c in call["commands"] if c is not hand] == before["commands"]
    descriptions = {call["commands"][1]["description"] for call in calls}
    assert len(descriptions) == len(menu.MENU_LANGUAGES)  # each language its own words
