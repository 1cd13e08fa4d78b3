"""The local Telegram signs a Mini App's initData as Telegram does (emulator/telegram/
webapp.py), and the service's check (service.view.access) accepts it for that bot only:
a button in a private chat, and a direct link from a group with the table in `startapp`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from emulator import RunningEmulator, running_emulator
from emulator.config import fast_config
from emulator.telegram.driver import EmulatorError
from service.view.access import MiniAppLaunch, Refusal, Refused, check_init_data

TOKEN = "123456:TEST-token_abc"
ANA, DAN = 100001, 100004


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    with running_emulator(fast_config(tokens=(TOKEN,))) as running:
        yield running


def check(raw: str, token: str = TOKEN) -> MiniAppLaunch | Refused:
    return check_init_data(raw, token, now=time.time(), max_age=3600, skew=60)


def test_a_button_in_a_private_chat_opens_the_app_as_its_user(emu: RunningEmulator) -> None:
    opened = emu.open_mini_app("Ana")
    launch = check(opened["init_data"])
    assert isinstance(launch, MiniAppLaunch)
    assert (launch.user_id, launch.first_name, launch.language_code) == (ANA, "Ana", "es")
    assert launch.start_param is None and opened["fields"]["query_id"]
    assert check(opened["init_data"], token="654321:another-bots-token") == Refused(Refusal.FORGED)


def test_a_direct_link_in_a_group_carries_the_table(emu: RunningEmulator) -> None:
    url = "https://burro.example/view"
    opened = emu.open_mini_app("Dan", chat="Family", start_param="t_Ab3dE9xZ", app_url=url)
    launch = check(opened["init_data"])
    assert isinstance(launch, MiniAppLaunch)
    assert (launch.user_id, launch.start_param, launch.chat_type) == (
        DAN,
        "t_Ab3dE9xZ",
        "supergroup",
    )
    parts = urlsplit(opened["url"])
    assert parse_qs(parts.query) == {"tgWebAppStartParam": ["t_Ab3dE9xZ"]}
    assert parse_qs(parts.fragment)["tgWebAppData"] == [opened["init_data"]]
    again = emu.open_mini_app("Ana", chat="Family", start_param="t_Ab3dE9xZ")
    assert again["fields"]["chat_instance"] == opened["fields"]["chat_instance"]


def test_the_emulator_refuses_what_telegram_would_not_open(emu: RunningEmulator) -> None:
    with pytest.raises(EmulatorError, match="startapp"):
        emu.open_mini_app("Ana", chat="Family", start_param="t room")
    with pytest.raises(EmulatorError, match="not in that chat"):
        emu.open_mini_app("Ana", chat="Ben")  # Ben's private chat with the bot
