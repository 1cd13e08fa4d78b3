"""Buttons carry typed intents; the Telegram adapter puts them on the wire exactly as
before, so the buttons already in families' chats keep working."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from service.platforms.telegram import callbacks
from service.platforms.telegram.render import Wire, keyboard
from service.table import lobby
from service.table.lobby import Actor
from service.table.room import RoomSettings
from service.ui import games
from service.ui.intents import (
    Command,
    Move,
    NotPlayable,
    OpenPrivate,
    Option,
    Press,
    ShowCards,
    What,
)
from service.ui.screens import Button, Screen

ROOT = Path(__file__).resolve().parents[2]
ANA, BEN, CARLA = Actor(1, "Ana", "en"), Actor(2, "Ben", "en"), Actor(3, "Carla", "en")

# callback_data as buttons in chats have it, and what each means.
OLD: dict[str, What] = {
    "k3j9x0qa.17.J": Command("join"),
    "k3j9x0qa.17.L": Command("leave"),
    "k3j9x0qa.17.B": Command("add_bot"),
    "k3j9x0qa.17.X": Command("remove_bot"),
    "k3j9x0qa.17.S": Command("start"),
    "k3j9x0qa.17.C": Command("settings"),
    "k3j9x0qa.17.o:done": Command("settings_done"),
    "k3j9x0qa.17.R": Command("rules"),
    "k3j9x0qa.17.K": Command("cancel"),
    "k3j9x0qa.17.k": Command("keep_playing"),
    "k3j9x0qa.17.N": Command("rematch"),
    "k3j9x0qa.17.o:preset": Option("preset"),
    "k3j9x0qa.17.o:ontimeout": Option("ontimeout"),
    "k3j9x0qa.17.o:pace": Option("pace"),
    "k3j9x0qa.17.p10H": Move("play:10H"),
    "k3j9x0qa.17.pJK": Move("play:JK"),
    "k3j9x0qa.17.d": Move("draw"),
    "k3j9x0qa.17.dl": Move("draw:left"),
    "k3j9x0qa.17.dr": Move("draw:right"),
    "k3j9x0qa.17.x": Move("pass"),
    "k3j9x0qa.4.c7S": Move("pass:7S"),
    "k3j9x0qa.4.c10D": Move("pass:10D"),
    "k3j9x0qa.4.b": Move("burro"),
    "k3j9x0qa.4.r": Move("respond"),
    "k3j9x0qa.4.f": Move("fake"),
    "k3j9x0qa.4.n3": NotPlayable(3),
}


@pytest.mark.parametrize("data", sorted(OLD))
def test_old_button_data_decodes_to_its_intent_and_back(data: str) -> None:
    press = callbacks.press(data)
    assert press is not None
    assert press == Press("k3j9x0qa", int(data.split(".")[1]), OLD[data])
    assert callbacks.data(press) == data


@pytest.mark.parametrize("data", ["", "k3j9x0qa.17", "K3J9X0QA.1.J", "k3j9x0qa.1.zz", "x" * 70])
def test_data_that_names_nothing_is_not_a_press(data: str) -> None:
    assert callbacks.press(data) is None


def test_a_fake_call_goes_as_this_rounds_fake() -> None:
    assert callbacks.data(Press("k3j9x0qa", 4, Move("fake:Barro"))) == "k3j9x0qa.4.f"


def test_links_render_as_inline_queries_and_deep_links() -> None:
    screen = Screen(
        "t", ((Button("🃏", ShowCards("k3j9x0qa")), Button("💬", OpenPrivate("k3j9x0qa"))),)
    )
    assert keyboard(screen, Wire(bot_username="burro_bot")) == {
        "inline_keyboard": [
            [
                {"text": "🃏", "switch_inline_query_current_chat": "gk3j9x0qa"},
                {"text": "💬", "url": "https://t.me/burro_bot?start=gk3j9x0qa"},
            ]
        ]
    }


def on_the_wire(what: What) -> What:
    """What a press says once sent: a fake call names no word (the engine knows it)."""
    if isinstance(what, Move) and what.action.startswith("fake:"):
        return Move("fake")
    return what


def every_press(screen: Screen) -> list[tuple[str, What]]:
    found = []
    for row in screen.rows:
        for button in row:
            if isinstance(button.intent, Press):
                found.append((callbacks.data(button.intent), button.intent.what))
    return found


@pytest.mark.parametrize("preset", ["spanish", "cuartetos"])
def test_every_screens_buttons_survive_the_wire(preset: str) -> None:
    room = lobby.create_room(-5, None, ANA, 0.0, settings=RoomSettings(preset=preset))
    lobby.join(room, BEN)
    lobby.join(room, CARLA)
    painter = games.painter(room, "en")
    shown = [painter.lobby(), painter.settings()]
    lobby.start(room, ANA, 0.0)
    painter = games.painter(room, "en")
    shown += [painter.table(), *(painter.hand(seat) for seat in range(3))]
    presses = [p for screen in shown for p in every_press(screen)]
    assert any(isinstance(what, Move) for _data, what in presses)
    assert any(isinstance(what, Option) for _data, what in presses)
    for data, what in presses:
        decoded = callbacks.press(data)
        assert decoded is not None and decoded.what == on_the_wire(what)
    for seat in range(3):
        for choice in painter.choices(seat):
            decoded = callbacks.press(callbacks.data(choice.press))
            assert decoded is not None and decoded.what == on_the_wire(choice.press.what)


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("package", ["service/ui", "service/table"])
def test_screens_and_table_do_not_know_the_platforms(package: str) -> None:
    for path in sorted((ROOT / package).rglob("*.py")):
        bad = {m for m in imports(path) if m.startswith("service.platforms")}
        assert not bad, (path, bad)
