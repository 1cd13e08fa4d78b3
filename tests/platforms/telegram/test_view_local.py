"""`burro local` wires the table's view into both local chats (cli.stack, `view=True`):
serve's own address as the public one, the view registered as the bot's Mini App
`table` (plain HTTP, taken on this machine as on Telegram's test server), and WhatsApp's
links signed with a local secret. In the real processes: a one-to-one game's "🖼 Table"
button opens the view signed for its player, the direct link opens it too, and a
WhatsApp game's first prompt brings its call-to-action link; serve's view takes each
launch and link for its player's seat."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from cli.stack import TOKEN, Stack
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage
from service.access.checks import MiniAppLaunch, check_init_data
from tests.service.inproc import local_emulator
from tests.service.play import room_in


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    with local_emulator() as emulator:
        yield emulator


@pytest.fixture(scope="module")
def stack(emu: RunningEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    folder: Path = tmp_path_factory.mktemp("view")
    options = {"flood_limits": False, "bot_delay": 0.0, "persist": False, "view": True}
    with Stack(folder, emulator_url=emu.api_url, **options) as running:  # type: ignore[arg-type]
        yield running


def launched(raw: dict[str, str]) -> MiniAppLaunch:
    found = check_init_data(raw["init_data"], TOKEN, now=time.time(), max_age=60, skew=5)
    assert isinstance(found, MiniAppLaunch), found
    return found


def with_view(message: ChatMessage) -> bool:
    return "🖼 Table" in message.button_texts


def test_a_one_to_one_games_button_and_link_open_the_view(
    emu: RunningEmulator, stack: Stack
) -> None:
    emu.send_message("Carla", "Carla", "/play spanish")
    lobby = emu.wait_for_message("Carla", lambda m: "▶️ Start" in m.button_texts)
    emu.tap("Carla", lobby, "🤖 Add bot")
    lobby = emu.wait_for_message("Carla", lambda m: "▶️ Start" in m.button_texts)
    emu.tap("Carla", lobby, "▶️ Start")
    hand = emu.wait_for_message("Carla", with_view)
    room = room_in(stack, hand.chat_id)
    tapped = emu.tap("Carla", hand, "🖼 Table")
    assert tapped.kind == "web_app"
    page = urlsplit(tapped.raw["url"])
    assert f"{page.scheme}://{page.netloc}{page.path}" == stack.view_url
    assert parse_qs(page.query) == {"tgWebAppStartParam": [room.id]}
    assert launched(tapped.raw).user_id == 100003
    seen = opened_view(stack, {"init_data": tapped.raw["init_data"], "room": room.id})
    assert seen["seated"] is True  # the page serve draws: Carla's seat

    opened = emu.open_link("Carla", f"https://t.me/burro_bot/table?startapp={room.id}")
    assert opened["kind"] == "mini_app"
    assert opened["url"].startswith(f"{stack.view_url}?tgWebAppStartParam={room.id}#")
    assert launched(opened).start_param == room.id


def test_a_whatsapp_games_first_prompt_brings_its_link(emu: RunningEmulator, stack: Stack) -> None:
    wa = emu.whatsapp
    after = wa.send("Abuela", "nueva spanish").seq
    offer = wa.wait_for(
        lambda: next((m for m in wa.messages("Abuela") if m.cta and m.seq > after), None),
        timeout=60,  # after her turn and its words, paced by WhatsApp's per-person rate
        what="the view's message",
    )
    assert offer.cta is not None and offer.cta.url.startswith(f"{stack.view_url}#l=")
    seen = opened_view(stack, {"link": offer.cta.url.split("#l=", 1)[1]})
    assert seen["seated"] is True  # the link serve signed opens Abuela's seat


def opened_view(stack: Stack, body: dict[str, str]) -> dict[str, Any]:
    """What serve's view answers the page that opens with `body` (service.view.routes)."""
    answer = httpx.post(f"{stack.view_url}/open", json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found
