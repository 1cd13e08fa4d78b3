"""The "🖼 Table" button on Telegram (service.platforms.telegram.view_buttons): a
`web_app` button in a private chat, a direct link to the bot's Mini App in a group, none
at all without a public URL or a Mini App; and the local Telegram takes each where
Telegram does and opens the view signed for the person who tapped."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from emulator import RunningEmulator, running_emulator
from emulator.common import tls
from emulator.config import fast_config
from service.access.checks import MiniAppLaunch, check_init_data
from service.i18n import LANGUAGE_NAMES
from service.platforms.telegram.render import Wire, message_params
from service.platforms.telegram.view_buttons import MiniApp, mini_app
from service.settings import Settings
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from service.ui import games
from service.ui.intents import OpenView
from service.ui.screens import Screen, TablePainter, fits

TOKEN = "123456:TEST-token_abc"
ANA, DAN = Actor(100001, "Ana", "es"), Actor(100004, "Dan", "id")
PUBLIC = "https://burro.example"
APP = MiniApp(PUBLIC, "table")
WIRED = Wire(bot_username="burro_bot", mini_app=APP)
FAMILY = -1001000000001


def started(*people: Actor, private: bool = False, preset: str = "spanish") -> Room:
    """A game dealt with these people (and bots to make four)."""
    chat = people[0].user_id if private else FAMILY
    settings = RoomSettings(preset=preset)
    room = lobby.create_room(chat, None, people[0], 0.0, private=private, settings=settings)
    for person in people[1:]:
        lobby.join(room, person)
    while len(room.seats) < 4:
        lobby.add_bot(room, people[0])
    play.start(room, 1.0, 0.0)
    assert room.status == "playing"
    return room


def hand(room: Room, person: Actor, lang: str = "en") -> Screen:
    seat = room.seat_of(person.user_id)
    assert seat is not None
    return games.painter(room, lang).hand(seat)


def view_buttons(screen: Screen, wire: Wire = WIRED) -> list[dict[str, Any]]:
    markup = message_params(screen, wire).get("reply_markup", {"inline_keyboard": []})
    found = [b for row in markup["inline_keyboard"] for b in row]
    return [b for b in found if "web_app" in b or "t.me/burro_bot/" in b.get("url", "")]


def test_a_one_to_one_table_opens_the_view_from_a_web_app_button() -> None:
    room = started(ANA, private=True)
    screen = games.room_screen(room, games.painter(room, "es"))
    assert view_buttons(screen) == [
        {"text": "🖼 Mesa", "web_app": {"url": f"{PUBLIC}/view?tgWebAppStartParam={room.id}"}}
    ]


def test_a_groups_table_links_to_the_mini_app_with_the_table_in_startapp() -> None:
    room = started(ANA, DAN)
    link = f"https://t.me/burro_bot/table?startapp={room.id}"
    assert view_buttons(games.painter(room, "en").table()) == [{"text": "🖼 Table", "url": link}]


def test_a_hand_in_the_players_own_chat_opens_it_there_one_in_the_group_links() -> None:
    room = started(ANA, DAN)
    assert "web_app" in view_buttons(hand(room, DAN))[0]
    room.mine.append(DAN.user_id)  # Dan plays from the group: his hand shows there
    (button,) = view_buttons(hand(room, DAN))
    assert "web_app" not in button and "startapp=" in button["url"]
    assert "web_app" in view_buttons(hand(room, ANA))[0]  # Ana's stays in her chat


def test_no_button_without_a_mini_app_and_none_once_the_game_is_over() -> None:
    room = started(ANA, DAN)
    assert view_buttons(hand(room, DAN), Wire()) == []
    assert view_buttons(games.painter(room, "en").table(), Wire()) == []
    room.status = "over"
    assert not any(isinstance(b.intent, OpenView) for row in hand(room, DAN).rows for b in row)


@pytest.mark.parametrize(
    ("public_url", "name", "expected"),
    [
        (None, "table", None),
        (PUBLIC, "", None),
        (PUBLIC, "table", APP),
        (f"{PUBLIC}/", "view", MiniApp(f"{PUBLIC}/", "view")),
    ],
)
def test_the_mini_app_is_read_from_the_settings(
    public_url: str | None, name: str, expected: MiniApp | None
) -> None:
    settings = Settings(public_url=public_url, telegram_mini_app=name, _env_file=None)  # type: ignore[call-arg]
    assert mini_app(settings) == expected


def test_a_trailing_slash_makes_no_double_slash() -> None:
    assert MiniApp(f"{PUBLIC}/", "table").page("k3j9x0qa") == (
        f"{PUBLIC}/view?tgWebAppStartParam=k3j9x0qa"
    )


def test_a_mini_app_name_telegram_would_refuse_is_refused_here() -> None:
    with pytest.raises(ValueError, match="telegram_mini_app"):
        Settings(telegram_mini_app="a b", _env_file=None)  # type: ignore[call-arg]


@pytest.mark.parametrize("lang", sorted(LANGUAGE_NAMES))
@pytest.mark.parametrize("preset", ["spanish", "cuartetos"])
def test_every_row_with_the_button_shows_whole_on_a_phone(lang: str, preset: str) -> None:
    room = started(ANA, DAN, preset=preset)
    painter = games.painter(room, lang)
    screens = [painter.table(), *(painter.hand(s) for s in (0, 1))]
    for screen in screens:
        assert any(isinstance(b.intent, OpenView) for row in screen.rows for b in row)
        assert all(fits(row) for row in screen.rows), [[b.label for b in r] for r in screen.rows]


# ----- in the local Telegram ---------------------------------------------------------


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    with running_emulator(fast_config(tokens=(TOKEN,))) as running:
        yield running


def send(emu: RunningEmulator, chat: int, params: dict[str, Any]) -> dict[str, Any]:
    with httpx.Client(verify=tls.context(), trust_env=False) as http:
        body = {"chat_id": chat, **params}
        answer: dict[str, Any] = http.post(
            f"{emu.api_url}/bot{TOKEN}/sendMessage", json=body
        ).json()
        return answer


def test_the_local_telegram_opens_a_private_hands_view_signed_for_its_player(
    emu: RunningEmulator,
) -> None:
    emu.start("Dan")
    room = started(ANA, DAN)
    local = Wire(bot_username="burro_bot", mini_app=MiniApp("http://127.0.0.1:8080", "table"))
    sent = send(emu, DAN.user_id, message_params(hand(room, DAN, "id"), local))
    assert sent["ok"], sent
    tapped = emu.tap("Dan", emu.message("Dan", sent["result"]["message_id"]), "🖼 Meja")
    assert tapped.kind == "web_app"
    page = urlsplit(tapped.raw["url"])
    assert (page.scheme, page.netloc, page.path) == ("http", "127.0.0.1:8080", "/view")
    assert parse_qs(page.query) == {"tgWebAppStartParam": [room.id]}
    launch = check_init_data(tapped.raw["init_data"], TOKEN, now=time.time(), max_age=60, skew=5)
    assert isinstance(launch, MiniAppLaunch) and launch.user_id == DAN.user_id


def test_the_local_telegram_opens_the_groups_link_with_the_table(emu: RunningEmulator) -> None:
    emu.set_mini_app(f"{PUBLIC}/view", name="table")
    room = started(ANA, DAN)
    wire = Wire(inline=False, bot_username="burro_bot", mini_app=APP)  # BotFather's default
    sent = send(emu, FAMILY, message_params(games.painter(room, "en").table(), wire))
    assert sent["ok"], sent
    tapped = emu.tap("Ana", emu.message("Family", sent["result"]["message_id"]), "🖼 Table")
    opened = tapped.raw["opened"]
    assert opened["kind"] == "mini_app"
    assert opened["url"].startswith(f"{PUBLIC}/view?tgWebAppStartParam={room.id}#tgWebAppData=")
    launch = check_init_data(opened["init_data"], TOKEN, now=time.time(), max_age=60, skew=5)
    assert isinstance(launch, MiniAppLaunch)
    assert (launch.user_id, launch.start_param) == (ANA.user_id, room.id)


def test_the_local_telegram_refuses_a_web_app_button_in_a_group(emu: RunningEmulator) -> None:
    room = started(ANA, DAN, private=False)
    painter = games.painter(room, "en")
    assert isinstance(painter, TablePainter)
    private_kind = Screen("x", ((painter.view_button(0),),))
    refused = send(emu, FAMILY, message_params(private_kind, WIRED))
    assert refused == {
        "ok": False,
        "error_code": 400,
        "description": "Bad Request: BUTTON_TYPE_INVALID",
    }


@pytest.mark.parametrize(
    ("url", "taken"),
    [
        ("https://burro.example", True),
        ("http://127.0.0.1:8080", True),  # this machine: the test server's way
        ("http://localhost:8080", True),
        ("http://burro.example", False),  # production: HTTPS only
        ("http://127.0.0.1.example.org", False),
    ],
)
def test_the_local_telegram_takes_plain_http_pages_on_this_machine_only(
    emu: RunningEmulator, url: str, taken: bool
) -> None:
    room = started(ANA, DAN)
    wire = Wire(bot_username="burro_bot", mini_app=MiniApp(url, "table"))
    sent = send(emu, DAN.user_id, message_params(hand(room, DAN), wire))
    assert sent["ok"] is taken, sent
    if not taken:
        assert "Only HTTPS links are allowed" in sent["description"]
