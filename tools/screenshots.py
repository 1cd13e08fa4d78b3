"""Screenshots of the table as people see it, for docs/: the hand's widget in the local
Telegram's web chat, and the table's view (the Mini App), at a phone's width.

    python -m tools.screenshots [--out docs] [--width 390]

Runs the whole product in this process (tests/service/inproc.py `running_service`: the
webhook app, a worker, Redis and the local Telegram), as bench/ does. For each scene a
player writes `/play <preset>` in the bot's chat, adds two bots and starts, then plays
the first legal move in their widget (as a tap sends it) until their turn comes with
cards on the table and some of theirs raised; then headless Chromium shows the web chat
(`docs/chat-widget-<scene>.png`) and opens the view as the bot's Mini App for that
player (`docs/view-<scene>.png`). Two languages, both decks: a Spanish Burro in
Spanish (Ana) and Burro em Pé, a French deck, in English (Carla).

tools/pictures.py draws the widget's document alone, without the chat around it.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from emulator.telegram import widgets as emulator_widgets
from emulator.telegram.driver import ChatMessage
from tests.service.inproc import Hook, running_service
from tests.service.play import action_button
from tools.pictures import CHROMIUM, PHONE, ROOT

MAX_MOVES = 200  # moves tried before a scene gives up on its moment


@dataclass(frozen=True)
class Scene:
    name: str
    user: str  # the emulator's cast: Ana writes Spanish, Carla English
    user_id: int
    preset: str


SCENES = (
    Scene("spanish-es", "Ana", 100001, "spanish"),
    Scene("french-en", "Carla", 100003, "burro_em_pe"),
)


def data_of(message: ChatMessage) -> dict[str, Any] | None:
    widget = message.raw.get("widget")
    if not isinstance(widget, dict) or not widget.get("chat_data"):
        return None
    found: dict[str, Any] = json.loads(widget["chat_data"])
    return found


def presses(data: dict[str, Any]) -> list[str]:
    """What the widget's taps send: the raised cards, then the other moves."""
    taps = [t for _code, t in data["h"] if t] + [a[1] for a in data["a"]]
    return [str(data["k"]) + str(t) for t in taps]


def worth_a_picture(data: dict[str, Any]) -> bool:
    """The reader's turn, cards on the table, some of theirs raised and some not."""
    raised = sum(1 for _code, tap in data["h"] if tap)
    return bool(data["m"]) and 0 < raised < len(data["h"]) and len(data["h"]) >= 4


def settle(hook: Hook) -> None:
    assert hook.worker is not None
    hook.worker.settle()


def tap_action(hook: Hook, user: str, token: str) -> None:
    """Tap the newest lobby button for a compact action (B add bot, S start)."""
    lobby = hook.emu.wait_for_message(user, lambda m: action_button(m, token) is not None)
    data = action_button(lobby, token)
    hook.emu.tap(user, lobby, next(b.text for r in lobby.buttons for b in r if b.value == data))
    settle(hook)


def newest_widget(hook: Hook, user: str) -> tuple[ChatMessage, dict[str, Any]]:
    def ready() -> tuple[ChatMessage, dict[str, Any]] | None:
        for message in reversed(hook.emu.messages_in(user)):
            data = data_of(message)
            if data is not None:
                return (message, data) if presses(data) or data["o"] else None
        return None

    return hook.emu.wait_for(ready, what=f"{user}'s widget")


def play_to_a_moment(hook: Hook, scene: Scene) -> str:
    """The scene's game played until it is worth a picture; its room's id."""
    emu = hook.emu
    emu.start(scene.user)
    emu.send_message(scene.user, scene.user, f"/play {scene.preset}")
    for _ in range(2):
        tap_action(hook, scene.user, "B")
    tap_action(hook, scene.user, "S")
    for _ in range(MAX_MOVES):
        settle(hook)
        message, data = newest_widget(hook, scene.user)
        if worth_a_picture(data):
            return str(data["k"]).split(".")[0]
        if data["o"]:
            raise RuntimeError(f"{scene.name}: the game ended before a moment worth a picture")
        emu.widget_answer(emu.widget_request(scene.user, message, presses(data)[0]))
    raise RuntimeError(f"{scene.name}: no moment worth a picture")


def shoot(hook: Hook, rooms: dict[Scene, str], out: Path, width: int) -> list[Path]:
    from playwright.sync_api import expect, sync_playwright

    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        for scene, room_id in rooms.items():
            context = browser.new_context(
                viewport={"width": width, "height": 844}, device_scale_factor=2
            )
            page = context.new_page()
            page.goto(f"{hook.emu.url}/?user={scene.user}&chat=bot")
            expect(page.locator("body")).to_have_attribute("data-ready", "true")
            message, _data = newest_widget(hook, scene.user)
            bubble = page.locator(f'[data-message-id="{message.message_id}"]')
            frame = bubble.locator("iframe.widget-frame").content_frame
            expect(frame.locator("[data-t]").first).to_be_visible()
            bubble.scroll_into_view_if_needed()
            path = out / f"chat-widget-{scene.name}.png"
            page.screenshot(path=str(path))
            written.append(path)

            launch = hook.emu.open_mini_app(
                scene.user, start_param=room_id, app_url=f"{hook.url}/view"
            )
            view = context.new_page()
            view.goto(launch["url"])
            expect(view.locator("#table [data-t]").first).to_be_visible()
            path = out / f"view-{scene.name}.png"
            view.screenshot(path=str(path), full_page=True)
            written.append(path)
            context.close()
        browser.close()
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.screenshots", description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--width", type=int, default=PHONE)
    args = parser.parse_args(argv)
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as folder:
        patch.setattr(emulator_widgets, "QUERIES", 10_000)  # moves faster than a person taps
        with running_service(Path(folder), telegram_widgets=True) as hook:
            rooms = {scene: play_to_a_moment(hook, scene) for scene in SCENES}
            for path in shoot(hook, rooms, args.out, args.width):
                print(path)


if __name__ == "__main__":
    main()
