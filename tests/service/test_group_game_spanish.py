"""A four-player group game across the family, played to the end through the emulator
(tests/service/group_play.py): lobby, joining through the deep link, hands in private and
through the inline query.

Every preset is played to its end through the table core by
tests/service/test_table_contract.py; through the webhook and the chats, two presets of
other shapes than the end-to-end game's, each with the product in this process
(inproc.running_service: the webhook app and a worker on threads) in a module of its own
(test_group_game_*: xdist's `--dist loadfile` runs modules side by side): here `spanish`."""

from __future__ import annotations

import pytest

from tests.service.group_play import play_group_game
from tests.service.inproc import Hook


@pytest.mark.parametrize("preset", ["spanish"])  # strict drawing, a pass on an empty stock
def test_four_player_group_game(hook: Hook, preset: str) -> None:
    play_group_game(hook.emu, hook, preset)
    assert hook.worker is not None
    hook.worker.check()
