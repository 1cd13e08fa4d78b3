"""One-to-one games against bots through the local WhatsApp: Burro em Pé (two piles to
draw from) and Cangkul (the trick picked up), as test_whatsapp_game.py plays the others."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.service.inproc import Hook, running_service
from tests.service.whatsapp.play import play_to_the_end
from tests.service.whatsapp.test_whatsapp_game import open_game


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_service(tmp_path_factory.mktemp("wa"), whatsapp_pair_rate=0.0) as running:
        yield running


@pytest.mark.parametrize(
    ("user", "command", "start", "bots"),
    [("Avó", "jogar burro_em_pe", "▶️ Começar", 1), ("Nenek", "main cangkul", "▶️ Mulai", 2)],
)
def test_a_game_against_bots_to_its_end(
    hook: Hook, user: str, command: str, start: str, bots: int
) -> None:
    lobby = open_game(hook.emu.whatsapp, user, command, start, bots)
    assert play_to_the_end(hook.emu.whatsapp, user, after=lobby, worker=hook.worker) > 3
    assert hook.worker is not None
    hook.worker.check()
