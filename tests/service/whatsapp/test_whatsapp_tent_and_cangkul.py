"""One-to-one games against bots through the local WhatsApp: Burro em Pé (two piles to
draw from; set up in its lobby with one bot) and Cangkul (the trick picked up; dealt at
once), as test_whatsapp_game.py plays the others."""

from __future__ import annotations

import pytest

from tests.service.inproc import Hook
from tests.service.whatsapp.play import play_to_the_end
from tests.service.whatsapp.test_whatsapp_game import open_game, set_up_game


@pytest.mark.parametrize(
    ("user", "command", "start", "bots"),
    [("Avó", "definições burro_em_pe", "▶️ Começar", 1), ("Nenek", "main cangkul", "", 0)],
)
def test_a_game_against_bots_to_its_end(
    hook: Hook, user: str, command: str, start: str, bots: int
) -> None:
    wa = hook.emu.whatsapp
    lobby = set_up_game(wa, user, command, start, bots) if start else open_game(wa, user, command)
    # Played to its final message (returned only then); how many moves is the deal's.
    assert play_to_the_end(hook.emu.whatsapp, user, after=lobby, worker=hook.worker) >= 1
    assert hook.worker is not None
    hook.worker.check()
