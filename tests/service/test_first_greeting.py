"""A person's first /start on Telegram is answered with our greeting and its choices
(play now against bots, a family's table, how to play), once; later /starts get the
short welcome. (WhatsApp's greeting: tests/service/whatsapp/test_greeting.py.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator.telegram.driver import ChatMessage
from tests.service.inproc import BEN, Hook, command, press, running_hook


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_hook(tmp_path_factory.mktemp("greeting")) as running:
        yield running


def to_ben(hook: Hook) -> list[ChatMessage]:
    return [m for m in hook.emu.messages_in("Ben") if m.sender_id != BEN["id"]]


def test_the_first_start_greets_with_the_choices_then_the_welcome(hook: Hook) -> None:
    hook.emu.start("Ben")  # his chat with the bot opened (this emulator forwards nothing)
    assert hook.send(command("/start", BEN)).status_code == 200  # his first /start
    [greeting] = to_ben(hook)
    assert "donkey card game" in greeting.text and "/start" in greeting.text
    rows = [[(b.text, b.value) for b in row] for row in greeting.buttons]
    assert rows == [
        [("🎲 Play now", "cmd:play")],
        [("👪 Family table", "cmd:family")],
        [("❓ How to play", "cmd:rules")],
    ]
    assert hook.redis.hget(f"user:{BEN['id']}", "greeted") == b"1"
    hook.fresh_budget()  # the chat's flood budget: the next reply goes at once
    assert hook.send(command("/start", BEN)).status_code == 200
    welcome = to_ben(hook)[-1]
    assert welcome.text.startswith("🫏 Hi!") and not welcome.buttons  # greeted once

    assert hook.send(press(BEN, "cmd:play")).status_code == 200  # "Play now" deals
    room = hook.store().room_in_chat(BEN["id"], None)
    assert room is not None and room.private and room.status == "playing"
