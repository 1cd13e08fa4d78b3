"""The local Telegram signs a Mini App's initData as Telegram does (emulator/telegram/
webapp.py), and the service's check (service.view.access) accepts it for that bot only:
a button in a private chat, and a direct link from a group with the table in `startapp`.
It refuses `web_app` buttons where Telegram does (a group; a URL that is not HTTPS)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from emulator import RunningEmulator, running_emulator
from emulator.common import tls
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
    own = emu.open_mini_app("Ana", chat="Ana", start_param="t_Ab3dE9xZ")  # her bot chat
    assert own["fields"]["chat_type"] == "sender"
    assert own["fields"]["chat_instance"] != opened["fields"]["chat_instance"]


def test_the_emulator_refuses_what_telegram_would_not_open(emu: RunningEmulator) -> None:
    with pytest.raises(EmulatorError, match="startapp"):
        emu.open_mini_app("Ana", chat="Family", start_param="t room")
    with pytest.raises(EmulatorError, match="not in that chat"):
        emu.open_mini_app("Ana", chat="Ben")  # Ben's private chat with the bot


def send(emu: RunningEmulator, chat: int, url: str) -> httpx.Response:
    button = {"text": "🃏 Table", "web_app": {"url": url}}
    body = {"chat_id": chat, "text": "Your table", "reply_markup": {"inline_keyboard": [[button]]}}
    with httpx.Client(verify=tls.context(), trust_env=False) as http:
        return http.post(f"{emu.api_url}/bot{TOKEN}/sendMessage", json=body)


def test_web_app_buttons_only_in_the_private_chat_and_over_https(emu: RunningEmulator) -> None:
    emu.start("Carla")
    sent = send(emu, 100003, "https://burro.example/view")
    assert sent.status_code == 200, sent.text
    assert send(emu, -1001000000001, "https://burro.example/view").json() == {
        "ok": False,
        "error_code": 400,
        "description": "Bad Request: BUTTON_TYPE_INVALID",
    }
    plain = send(emu, 100003, "http://burro.example/view").json()
    assert plain["error_code"] == 400 and "Only HTTPS links are allowed" in plain["description"]
