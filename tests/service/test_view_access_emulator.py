"""The local Telegram signs a Mini App's initData as Telegram does (emulator/telegram/
webapp.py), and the service's check (service.access.checks) accepts it for that bot only:
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
from service.access.checks import MiniAppLaunch, Refusal, Refused, check_init_data

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


def send(emu: RunningEmulator, chat: int, url: str, kind: str = "web_app") -> httpx.Response:
    """The bot sends a message with one button: a `web_app` one, or a `url` one."""
    button = {"text": "🃏 Table", kind: {"url": url} if kind == "web_app" else url}
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


VIEW = "https://burro.example/view"
FAMILY = -1001000000001


def test_a_url_button_with_a_direct_link_opens_the_app_from_the_group(emu: RunningEmulator) -> None:
    emu.set_mini_app(VIEW, name="table")
    link = "https://t.me/burro_bot/table?startapp=t_Ab3dE9xZ"
    sent = send(emu, FAMILY, link, kind="url").json()["result"]
    tapped = emu.tap("Ben", emu.message("Family", sent["message_id"]), 0)
    opened = tapped.raw["opened"]
    assert (tapped.kind, opened["kind"]) == ("url", "mini_app")
    launch = check(opened["init_data"])
    assert isinstance(launch, MiniAppLaunch)
    seen = (launch.user_id, launch.start_param, launch.chat_type)
    assert seen == (100002, "t_Ab3dE9xZ", "supergroup")
    assert opened["url"].startswith(f"{VIEW}?tgWebAppStartParam=t_Ab3dE9xZ#tgWebAppData=")


def test_a_web_app_button_opens_its_page_with_a_query_id(emu: RunningEmulator) -> None:
    emu.start("Dan")
    sent = send(emu, DAN, f"{VIEW}?lang=id").json()["result"]
    tapped = emu.tap("Dan", emu.message("Dan", sent["message_id"]), "🃏 Table")
    assert tapped.kind == "web_app" and tapped.raw["fields"]["query_id"]
    assert tapped.raw["url"].startswith(f"{VIEW}?lang=id#tgWebAppData=")
    launch = check(tapped.raw["init_data"])
    assert isinstance(launch, MiniAppLaunch) and launch.user_id == DAN


def test_the_main_mini_app_and_links_to_no_app(emu: RunningEmulator) -> None:
    emu.set_mini_app(f"{VIEW}/main")
    opened = emu.open_link("Ana", "https://t.me/burro_bot?startapp")
    assert opened["kind"] == "mini_app" and "start_param" not in opened["fields"]
    assert opened["url"].startswith(f"{VIEW}/main#tgWebAppData=")
    with pytest.raises(EmulatorError, match="no Mini App nothere"):
        emu.open_link("Ana", "https://t.me/burro_bot/nothere?startapp=x")
    with pytest.raises(EmulatorError, match="HTTPS"):
        emu.set_mini_app("http://burro.example/view", name="table")
