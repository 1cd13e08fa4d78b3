"""An old button's refusal (issue #37): on Telegram, a press of an earlier turn's button
in the private chat is refused by its popup alone, which points to the newest message:
the live choices are the hand's one message, edited in place, and a keyboard of them sent
below would itself be out of date at the next move (a bot's, within a second) and sit
under the live hand as the chat's last message. WhatsApp, where every old prompt stays
in the chat, answers with the live choices (tests/service/whatsapp/test_old_row.py)."""

from __future__ import annotations

import pytest

from service.desk.asks import PressAsk
from service.ui.intents import Move, Press
from tests.service.test_mistakes import Table, leading

STALE = {
    "en": "This button is out of date: use the newest message.",
    "es": "Este botón está desactualizado: usa el mensaje más reciente.",
}


@pytest.mark.parametrize("lang", sorted(STALE))
def test_an_old_button_on_telegram_points_to_the_newest_message(lang: str) -> None:
    table = Table(lang)
    state = table.walk_to(leading)
    room = table.room
    old = Press(room.id, room.phase_version - 1, Move("draw"))
    reply = table.ask(PressAsk(old, tapped=True), platform="telegram")
    assert reply.popup == STALE[lang]
    assert reply.lines == ()  # no second keyboard under the live hand
    assert table.room.game == state  # nothing was played for it
