"""A new table takes the environment's timings (BURRO_TURN_TIMEOUT, BURRO_REMINDER_AFTER:
"for new tables"), a group's opened with /burro as a private chat's against bots."""

from __future__ import annotations

import pytest

from tests.service.group_play import open_lobby
from tests.service.inproc import CARLA, Hook
from tests.service.play import room_in


@pytest.fixture
def paced(hook: Hook, monkeypatch: pytest.MonkeyPatch) -> Hook:
    monkeypatch.setattr(hook.settings, "turn_timeout", 1800)
    monkeypatch.setattr(hook.settings, "reminder_after", 600)
    return hook


def test_a_group_table_takes_the_environment_s_timings(paced: Hook) -> None:
    room = room_in(paced, open_lobby(paced.emu, paced, "spanish"))
    assert (room.settings.turn_timeout, room.settings.reminder_after) == (1800, 600)


def test_a_table_against_bots_takes_them_too(paced: Hook) -> None:
    emu = paced.emu
    emu.send_message("Carla", "Carla", "/play spanish")
    emu.wait_for_message("Carla", lambda m: "▶️ Start" in m.button_texts)
    room = room_in(paced, CARLA["id"])
    assert (room.settings.turn_timeout, room.settings.reminder_after) == (1800, 600)
