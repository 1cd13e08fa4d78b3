"""The four-player group game of tests/service/group_play.py played again end to end,
with the real `burro serve` and `burro worker` processes (`e2e`); the in-process games
(test_group_game_spanish.py, test_group_game_cangkul.py) cover the presets of other
shapes, which differ only in rules."""

from __future__ import annotations

import pytest

from cli.stack import Stack
from emulator.server import RunningEmulator
from tests.service.group_play import play_group_game


@pytest.mark.e2e
def test_four_player_group_game_end_to_end(emu: RunningEmulator, stack: Stack) -> None:
    play_group_game(emu, stack, "burro_em_pe")
