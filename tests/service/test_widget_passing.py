"""Passing Burro (`cuartetos`) one-to-one against bots with the hand as a widget: the
four cards drawn, a tap in the widget passes one (the same press as its button), and
the widget shows no card still in a bot's hand."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from emulator.telegram.driver import ChatMessage
from engine.cuartetos import GameState as PassingGame
from service.platforms.telegram import widgets
from tests.service.inproc import Hook, running_service
from tests.service.play import action_button, room_in
from tests.service.test_passing_game import tap_current
from tests.service.test_widget_hands import STALE, STAND_IN


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(widgets, "document", lambda: STAND_IN)
        folder = tmp_path_factory.mktemp("widget-passing")
        with running_service(folder, telegram_widgets=True, pass_window=3600.0) as running:
            yield running
            assert running.worker is not None
            running.worker.check()


def data_of(message: ChatMessage) -> dict[str, Any]:
    raw = message.raw["widget"]["chat_data"]
    assert len(raw.encode()) <= 1024
    found: dict[str, Any] = json.loads(raw)
    return found


def passing_widget(stack: Hook) -> ChatMessage:
    """Dan's hand, a widget with cards to pass, once both its edits are in: its data
    and its caption's buttons (two calls: between them the two show different turns)."""

    def ready() -> ChatMessage | None:
        drawn = [m for m in stack.emu.messages_in("Dan") if "widget" in m.raw]
        if not drawn:  # a word may come below the hand
            return None
        data = data_of(drawn[-1])
        taps = [data["k"] + tap for _code, tap in data["h"] if tap]
        buttons = {str(b.value) for row in drawn[-1].buttons for b in row}
        return drawn[-1] if taps and set(taps) <= buttons else None

    return stack.emu.wait_for(ready, what="Dan's cards to pass")


def test_a_tap_in_the_widget_passes_a_card(stack: Hook) -> None:
    emu = stack.emu
    emu.send_message("Dan", "Dan", "/play cuartetos")
    chat = emu.wait_for_message("Dan", lambda m: action_button(m, "S") is not None).chat_id
    for token in ("B", "S"):  # a second bot (three players at least), then start
        tap_current(emu, stack, "Dan", chat, token)
    for _ in range(3):  # a bot's ¡Burro! may change the phase under the tap: again
        code = tapped(stack)
        if code is not None:
            break
    assert code is not None

    def passed() -> bool | None:
        game = room_in(stack, chat).game
        assert isinstance(game, PassingGame)
        return code in game.hand.passed[0] or code not in game.hand.hands[0] or None

    emu.wait_for(passed, what="Dan's card passed")


def tapped(stack: Hook) -> str | None:
    """Dan taps the first card he may pass in his widget, which shows his four cards and
    none of the bots'; the card, once played, None if the tap came too late."""
    emu, hand = stack.emu, passing_widget(stack)
    room = room_in(stack, hand.chat_id)
    game = room.game
    assert isinstance(game, PassingGame)
    data = data_of(hand)
    assert sorted(code for code, _tap in data["h"]) == sorted(game.hand.hands[0])
    others = {card for seat in range(1, len(room.seats)) for card in game.hand.hands[seat]}
    shown = {code for code, _tap in data["h"]} | {c for _s, c in data["m"]} | set(data["n"])
    assert not shown & others
    code, tap = next((code, tap) for code, tap in data["h"] if tap)
    buttons = {str(b.value) for row in hand.buttons for b in row}
    assert data["k"] + tap in buttons  # the same press as the card's button
    answer = emu.widget_query("Dan", hand, data["k"] + tap)
    if answer.data == STALE:
        return None
    assert answer.data == ""
    return str(code)
