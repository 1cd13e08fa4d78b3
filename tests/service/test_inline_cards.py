"""🃏 My cards against BotFather's settings: a card chosen from the inline list posts a
message that shows no card, and is played with inline feedback on (at once) or off (by
its chooser's ✅ Confirm); without inline mode the table offers the private chat only."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.stack import Stack
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage, InlineAnswer
from engine.follow_suit.game import GameState, to_move
from service.platforms.telegram.render import Wire, keyboard
from service.table.room import Room
from service.ui.intents import OpenPrivate, ShowCards
from service.ui.screens import Button, Screen
from tests.service.conftest import make_stack
from tests.service.group_play import GAME_RESULT, open_lobby, tap_lobby
from tests.service.play import FAMILY, GROUP, room_in, room_messages

NEUTRAL = {"🃏 I choose a card.", "🃏 Elijo una carta.", "🃏 Escolho uma carta.",
           "🃏 Aku pilih satu kartu."}  # fmt: skip


@pytest.fixture
def stack_with() -> Iterator[dict[str, Stack]]:
    """The test's stack, started by `start` with its BotFather settings; stopped after."""
    started: dict[str, Stack] = {}
    yield started
    for stack in started.values():
        stack.stop()


def start(
    started: dict[str, Stack], emu: RunningEmulator, folder: Path, **bot: bool | int
) -> Stack:
    stack = make_stack(emu, folder, bot_settings=dict(bot))
    started["stack"] = stack.start()
    return stack


def started_game(emu: RunningEmulator, stack: Stack) -> Room:
    group = open_lobby(emu, stack, "spanish")
    tap_lobby(emu, "Ana", "S")
    return emu.wait_for(
        lambda: ((room := room_in(stack, group)).status == "playing" and room) or None,
        what="the game to start",
    )


def mover_of(room: Room) -> str:
    assert isinstance(room.game, GameState)
    seat = to_move(room.game)
    assert seat is not None
    return room.seats[seat].name.split()[0]


def choose_a_card(emu: RunningEmulator, user: str, room: Room) -> tuple[InlineAnswer, ChatMessage]:
    answer = emu.inline_query(user, GROUP, f"g{room.id}")
    playable = [r for r in answer.results if GAME_RESULT.match(r.id)]
    assert playable and answer.button is not None  # and a way into the private chat:
    assert answer.button["start_parameter"] == f"g{room.id}"
    posted = emu.choose_inline_result(user, answer, playable[0].id)
    return answer, posted


def assert_shows_no_card(answer: InlineAnswer, posted: ChatMessage) -> None:
    assert posted.text in NEUTRAL and posted.via_bot == "burro_bot"
    assert all(r.title not in posted.text for r in answer.results)


def without_buttons(emu: RunningEmulator, posted: ChatMessage) -> ChatMessage:
    return emu.wait_for(
        lambda: ((m := emu.message(GROUP, posted.message_id)).buttons == () and m) or None,
        what="the posted card's Confirm button to go",
    )


def test_without_feedback_the_chooser_confirms_the_card(
    emu: RunningEmulator, stack_with: dict[str, Stack], tmp_path: Path
) -> None:
    stack = start(stack_with, emu, tmp_path, inline_mode=True, inline_feedback=0)
    room = started_game(emu, stack)
    mover = mover_of(room)
    answer, posted = choose_a_card(emu, mover, room)
    assert_shows_no_card(answer, posted)
    assert not [u for u in emu.updates() if "chosen_inline_result" in u]
    time.sleep(0.5)  # nothing to wait for: no update reached the bot
    assert room_in(stack, room.chat_id).version == room.version

    other = next(name for name in FAMILY if name != mover)
    refused = emu.tap(other, posted, 0)
    assert refused.answer is not None and refused.answer.text  # why, in a popup
    assert room_in(stack, room.chat_id).version == room.version

    confirmed = emu.tap(mover, posted, 0)
    assert confirmed.answer is not None
    emu.wait_for(
        lambda: room_in(stack, room.chat_id).version > room.version or None, what="the play"
    )
    assert without_buttons(emu, posted).text == posted.text


def test_with_feedback_the_chosen_card_is_played_at_once(
    emu: RunningEmulator, stack_with: dict[str, Stack], tmp_path: Path
) -> None:
    stack = start(stack_with, emu, tmp_path, inline_mode=True, inline_feedback=100)
    room = started_game(emu, stack)
    mover = mover_of(room)
    answer, posted = choose_a_card(emu, mover, room)
    assert_shows_no_card(answer, posted)
    emu.wait_for(
        lambda: room_in(stack, room.chat_id).version > room.version or None, what="the play"
    )
    assert without_buttons(emu, posted).text == posted.text

    # A stale list (the turn moved on): the posted message says why, and shows no card.
    late = emu.choose_inline_result(mover, answer, answer.results[-1].id)
    said = without_buttons(emu, late)
    assert said.text.startswith("🃏 ") and said.text not in NEUTRAL
    assert all(r.title not in said.text for r in answer.results)


def test_without_inline_mode_the_table_offers_the_private_chat(
    emu: RunningEmulator, stack_with: dict[str, Stack], tmp_path: Path
) -> None:
    stack = start(stack_with, emu, tmp_path, inline_mode=False)  # as BotFather leaves it
    room = started_game(emu, stack)

    def table() -> ChatMessage | None:
        shown = [key for key, target in room_messages(stack, room).items() if target == "table"]
        message = emu.message(GROUP, shown[0][1]) if shown else None
        return message if message and "💬" in " ".join(message.button_texts) else None

    shown = emu.wait_for(table, what="the table")
    kinds = [b.kind for row in shown.buttons for b in row]
    assert "switch_inline_query_current_chat" not in kinds and "url" in kinds
    assert room_in(stack, room.chat_id).status == "playing"
    log = (stack.data_dir / "serve.log").read_text()
    assert "inline mode is off" in log and "/setinline" in log


def test_without_inline_mode_no_button_opens_an_inline_query() -> None:
    cards, chat = Button("🃏", ShowCards("abc")), Button("💬", OpenPrivate("abc"))
    screen = Screen("table", ((cards, chat), (cards,)))
    assert keyboard(screen, Wire(inline=False)) == {
        "inline_keyboard": [[{"text": "💬", "url": "https://t.me/burro_bot?start=gabc"}]]
    }
    shown = keyboard(screen)
    assert shown is not None and shown["inline_keyboard"][1] == [
        {"text": "🃏", "switch_inline_query_current_chat": "gabc"}
    ]
    assert keyboard(Screen("x", ((cards,),)), Wire(inline=False)) is None
