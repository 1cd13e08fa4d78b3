"""Meta's delivery at its worst, through the local WhatsApp: each notification twice, some
held for the next one, some after it. Nothing is lost and nothing done twice."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from service.infra import metrics
from tests.service.inproc import running_service
from tests.service.whatsapp.play import play_to_the_end
from tests.service.whatsapp.test_whatsapp_game import open_game, player_of


def test_duplicated_reordered_and_batched_deliveries_lose_and_double_nothing(
    tmp_path: Path,
) -> None:
    """Meta's delivery at its worst (every notification twice, some held for the next,
    some after it): the game goes to its end, every message the person sent is handled,
    and each redelivery is taken for the duplicate it is."""
    duplicates = partial(metrics.UPDATES.labels("whatsapp_reply", "duplicate")._value.get)
    with running_service(tmp_path, whatsapp_pair_rate=0.0, game_target=2) as hook:
        wa = hook.emu.whatsapp
        wa.settings(duplicates=1.0, batch=0.5, reorder=0.3, seed=7)
        before = duplicates()
        lobby = open_game(wa, "Abuela", "nueva spanish")
        # Played to its final message (returned only then); how many moves is the deal's.
        assert play_to_the_end(wa, "Abuela", after=lobby, worker=hook.worker) >= 1
        room = hook.store().room_in_chat(player_of(hook, "Abuela"), None)
        assert room is not None and room.status == "over"
        sent = [m for m in wa.messages("Abuela") if m.direction == "in"]
        wa.wait_idle()
        assert all(hook.redis.exists(f"update:wa:{m.id}") for m in sent)  # none lost
        assert duplicates() - before >= len([m for m in sent if m.type == "interactive"]) - 1
        assert [d for d in wa.deliveries() if d.get("duplicate_of") is not None]
        assert hook.worker is not None
        hook.worker.check()
