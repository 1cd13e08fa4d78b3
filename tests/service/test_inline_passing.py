"""🃏 My cards in Passing Burro with inline feedback off: the card chosen from the
list is passed only when its chooser presses ✅ Confirm; the posted message shows no
card."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from cli.stack import Stack
from emulator.server import RunningEmulator
from engine.cuartetos import GameState as PassingGame
from tests.service.conftest import make_stack
from tests.service.play import GROUP, room_in
from tests.service.test_inline_cards import NEUTRAL, without_buttons
from tests.service.test_passing_game import open_table


@pytest.fixture(scope="module")
def stack(emu: RunningEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    folder = tmp_path_factory.mktemp("passing-inline")
    bot = {"inline_mode": True, "inline_feedback": 0}
    with make_stack(emu, folder, env={"BURRO_PASS_WINDOW": "120"}, bot_settings=bot) as running:
        yield running


def chosen_by(stack: Stack, chat: int, seat: int) -> str:
    game = room_in(stack, chat).game
    assert isinstance(game, PassingGame)
    return game.hand.chosen[seat]


def test_a_card_to_pass_waits_for_its_choosers_confirm(emu: RunningEmulator, stack: Stack) -> None:
    table = open_table(emu, stack)
    room = table.room()
    ana = table.seat(room, "Ana")
    answer = emu.inline_query("Ana", GROUP, f"g{room.id}")
    to_pass = next(r for r in answer.results if r.id.split(".")[2].startswith("c"))
    posted = emu.choose_inline_result("Ana", answer, to_pass.id)
    assert posted.text in NEUTRAL and to_pass.title not in posted.text
    time.sleep(0.5)  # nothing to wait for: no update reached the bot
    assert chosen_by(stack, table.chat, ana) == ""

    refused = emu.tap("Ben", posted, 0)
    assert refused.answer is not None and refused.answer.text
    assert chosen_by(stack, table.chat, ana) == ""
    emu.tap("Ana", posted, 0)
    card = to_pass.id.split(".")[2][1:]
    emu.wait_for(lambda: chosen_by(stack, table.chat, ana) == card or None, what="Ana's pass")
    assert without_buttons(emu, posted).text == posted.text
