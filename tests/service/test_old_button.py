"""An old button's refusal offers the live choices again (issue #37): on Telegram, a
press of an earlier turn's button in the private chat is refused by its popup, and the
moves of the person's current prompt come below it as buttons."""

from __future__ import annotations

import pytest

from service.desk.asks import PressAsk
from service.table.games import game_of
from service.ui.intents import Move, Press
from tests.service.test_mistakes import Table, buttons, leading

STALE = {
    "en": "This button is out of date: use the newest message.",
    "es": "Este botón está desactualizado: usa el mensaje más reciente.",
}


@pytest.mark.parametrize("lang", sorted(STALE))
def test_an_old_button_on_telegram_offers_the_live_choices(lang: str) -> None:
    table = Table(lang)
    state = table.walk_to(leading)
    room = table.room
    old = Press(room.id, room.phase_version - 1, Move("draw"))
    reply = table.ask(PressAsk(old, tapped=True), platform="telegram")
    assert reply.popup == STALE[lang]
    live = sorted(game_of("spanish").legal_actions(state, table.seat))
    assert [line.text for line in reply.lines] == [STALE[lang]]
    assert buttons(reply) == live
    assert table.room.game == state  # nothing was played for it
