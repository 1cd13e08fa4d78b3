"""An hour before a person's 24-hour window closes on their turn, a word with a button
that keeps it open (WhatsApp allows free-form messages only within it)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import pytest

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from service.infra import queue
from service.table import targets
from service.table.outcome import JobKind
from tests.service.inproc import Hook, running_service
from tests.service.whatsapp.play import choices, outgoing
from tests.service.whatsapp.test_whatsapp_game import open_game, player_of
from tests.service.whatsapp.test_window_and_taps import (
    DAY,
    answered,
    prompt_after,
    template_after,
)
from workers.outbox import CLOSING


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    folder = tmp_path_factory.mktemp("closing")
    with running_service(folder, whatsapp_pair_rate=0.0, turn_timeout=3 * DAY) as running:
        yield running


def test_an_hour_before_the_window_closes_on_her_turn_a_word_keeps_it_open(hook: Hook) -> None:
    wa, worker = hook.emu.whatsapp, hook.worker
    assert worker is not None and hook.clock is not None
    lobby = open_game(wa, "Grandma", "new spanish")
    prompt = prompt_after(wa, "Grandma", lobby)
    for _hour in range(23):  # her turn waits (three days to play); the reminder comes too
        wa.advance(3600)
        worker.reach(hook.clock() + 3600)
        worker.settle()  # hour by hour: the reminder's prompt is not left to come later
    word = wa.wait_for(
        partial(offering, wa, "Grandma", prompt.seq, "▶️ Keep playing"), what="the word"
    )
    assert "still your turn" in word.text
    assert word.status != "failed"
    wa.tap("Grandma", word, "▶️ Keep playing")
    answer = wa.wait_for(partial(answered, wa, "Grandma", len(outgoing(wa, "Grandma"))))
    assert answer.text == "The game goes on."
    wa.advance(2 * 3600)  # past her old window's end: still free-form, no template
    worker.reach(hook.clock() + 2 * 3600)
    assert not [m for m in outgoing(wa, "Grandma") if m.type == "template"]


def test_a_word_come_due_once_her_chat_has_closed_is_not_said(hook: Hook) -> None:
    """Her chat closed before the word that would have kept it open ran (a worker was
    down, or the clock jumped): the word says nothing, the reminder's template speaks,
    and her tap on it brings her turn back, not the stale word."""
    wa, worker, clock = hook.emu.whatsapp, hook.worker, hook.clock
    assert worker is not None and clock is not None
    wa.add_user("Grandpa", country="GB", language="en", username="grandpa.joe")
    prompt = prompt_after(wa, "Grandpa", open_game(wa, "Grandpa", "new spanish"))
    user = player_of(hook, "Grandpa")
    room = hook.room(user)
    later = clock() + DAY + 3600
    wa.advance(DAY + 3600)
    clock.reach(later)  # her chat has closed; the timers are not woken yet
    word = targets.said(user, CLOSING, f"p{room.phase_version}")
    queue.later(hook.redis, JobKind.SYNC, room.id, word, None)  # the word's job, late
    worker.settle()
    worker.reach(later)  # now the reminder
    template = wa.wait_for(partial(template_after, wa, "Grandpa", prompt.seq), what="template")
    worker.settle()
    wa.tap_quick_reply("Grandpa", template, "Play now")
    again = prompt_after(wa, "Grandpa", template.seq)
    assert choices(again) == choices(prompt)  # her turn again, its moves
    worker.settle()
    assert offering(wa, "Grandpa", 0, "▶️ Keep playing") is None


def offering(wa: WhatsAppDriver, user: str, after: int, title: str) -> WaChatMessage | None:
    found = [
        m for m in outgoing(wa, user) if m.seq > after and title in [t for _i, t in choices(m)]
    ]
    return found[-1] if found else None
