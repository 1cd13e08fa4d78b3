"""The four-player group game of test_group_game_spanish.py, with `cangkul`: in a
module of its own, so that xdist's `--dist loadfile` plays the two side by side."""

from __future__ import annotations

import pytest

from tests.service.group_play import play_group_game
from tests.service.inproc import Hook


@pytest.mark.parametrize("preset", ["cangkul"])  # picking up the trick, clockwise
def test_four_player_group_game(hook: Hook, preset: str) -> None:
    play_group_game(hook.emu, hook, preset)
    assert hook.worker is not None
    hook.worker.check()
