"""Playing a four-player group game across the family through the emulator, to the end:
lobby, joining through the deep link (or from the group, then opening the bot's chat),
hands in private and through the inline query.
Played per preset by the test_group_game* modules (one game a module, so that xdist's
`--dist loadfile` plays them side by side)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TypeVar

from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage, EmulatorError, TapResult
from engine.follow_suit.game import GameState, to_move
from service.table.outcome import Outcome
from service.table.room import Room
from tests.service.play import (
    BOT_ID,
    FAMILY,
    GROUP,
    Backend,
    action_button,
    assert_no_hand_leaks,
    game_buttons,
    room_in,
    store_of,
)

T = TypeVar("T")
GAME_RESULT = re.compile(r"^[a-z0-9]{8}\.\d+\.(p.+|d|dl|dr|x)$")


def open_lobby(emu: RunningEmulator, stack: Backend, preset: str) -> int:
    emu.send_message("Ana", GROUP, f"/burro {preset}")
    # The lobby of the room now open there: an earlier test's may still show its Join.
    chat = emu.wait_for(lambda: open_rooms_lobby(emu, stack), timeout=30, what="the lobby")
    for seated, user in enumerate(FAMILY[1:], start=2):
        tap = tap_lobby(emu, user, "J")
        if tap.answer is not None and tap.answer.url:
            emu.open_link(user, tap.answer.url)  # never started the bot: deep link
        else:  # seated from the group (ephemeral hands there); their cards come in private
            emu.start(user)

        def seated_now(count: int = seated) -> bool | None:
            return seats(stack, chat, count)

        emu.wait_for(seated_now, what=f"{user} seated")
    return chat


def open_rooms_lobby(emu: RunningEmulator, stack: Backend) -> int | None:
    """The group's chat id once a message shows the Join of the room open there (the
    room read once per look: the group holds every earlier game's messages)."""
    messages = emu.messages_in(GROUP)
    room = store_of(stack).room_in_chat(messages[-1].chat_id, None) if messages else None
    for message in reversed(messages if room is not None else []):
        data = action_button(message, "J")
        if room is not None and data is not None and data.startswith(f"{room.id}."):
            return message.chat_id
    return None


def joins_open_room(stack: Backend, message: ChatMessage) -> bool:
    """Whether the message's Join button is for the room open in its chat."""
    data = action_button(message, "J")
    room = store_of(stack).room_in_chat(message.chat_id, None)
    return data is not None and room is not None and data.startswith(f"{room.id}.")


def seats(stack: Backend, chat: int, count: int) -> bool | None:
    return len(room_in(stack, chat).seats) == count or None


def lobby_with(emu: RunningEmulator, token: str) -> ChatMessage:
    """The group's lobby message as it is now (it may have been posted again lower)."""
    return emu.wait_for_message(
        GROUP, lambda m: not m.deleted and action_button(m, token) is not None, timeout=30
    )


def tap_lobby(emu: RunningEmulator, user: str, token: str) -> TapResult:
    """Tap the lobby's button for `token` (J join, S start …), whatever its label; again
    on the message as it is then if the outbox changed it just before the tap."""
    for _ in range(20):
        lobby = lobby_with(emu, token)
        data = action_button(lobby, token)
        assert data is not None
        try:
            return emu.tap(user, lobby, data)
        except EmulatorError:  # edited or posted again meanwhile: the button is gone
            time.sleep(0.1)  # the outbox is at it: look again
    raise AssertionError(f"{user} could not tap the lobby's {token}")


def bot_messages(emu: RunningEmulator) -> list[ChatMessage]:
    return [m for m in emu.messages_in(GROUP) if m.sender_id == BOT_ID]


def play_group_game(emu: RunningEmulator, stack: Backend, preset: str) -> None:
    """Ana opens a lobby of `preset`, the others join, and all four play it to the end
    (Ana through the inline query); no hand shows in another's messages meanwhile, and
    the final table offers a rematch."""
    group = open_lobby(emu, stack, preset)
    store_of(stack).update(room_in(stack, group).id, ending_at(2))
    tap_lobby(emu, "Ana", "S")
    moves = inline_moves = 0
    for _ in range(3000):
        room = room_in(stack, group)
        if room.status == "over":
            break
        assert isinstance(room.game, GameState)
        seat = to_move(room.game)
        assert seat is not None
        mover = room.seats[seat].name
        if moves % 25 == 0:
            assert_no_hand_leaks(emu, stack, room, group)
        if mover == "Ana":  # she never opened a private chat: she plays inline
            inline_moves += play_inline(emu, mover, room.id, room.version)
        else:
            mark = f".{room.version}."

            def keyboard(user: str = mover, mark: str = mark) -> tuple[ChatMessage, str] | None:
                message = emu.last_message(user)
                current = [b for b in game_buttons(message) if mark in str(b.value)]
                if message is None or not current:
                    return None
                return message, str(first_card(current, lambda b: str(b.value)).value)

            message, data = emu.wait_for(keyboard, what=f"{mover}'s keyboard")
            emu.tap(mover, message, data)
        moves += 1

        def applied(version: int = room.version) -> bool | None:
            return room_in(stack, group).version > version or None

        emu.wait_for(applied, what="the move to be applied")
    room = room_in(stack, group)
    assert room.status == "over", "the game did not end"
    assert isinstance(room.game, GameState) and room.game.hand_no >= 2
    emu.wait_for(
        lambda: any("🔁" in " ".join(m.button_texts) for m in bot_messages(emu)) or None,
        what="the final table with its rematch button",
    )
    assert moves > 10


def ending_at(target: int) -> Callable[[Room], Outcome]:
    """A lobby's change: its game ends at `target` wins or points (the presets say 5).
    At 2 a game still plays a hand's end and the next deal, in less than half the time."""

    def change(room: Room) -> Outcome:
        room.settings.options = {**room.settings.options, "target": target}
        return Outcome(changed=True)

    return change


def first_card(choices: list[T], data: Callable[[T], str]) -> T:
    """A card to play if there is one, else the first choice (draw, pass …): players
    who play when they can end the game sooner than ones who draw whenever allowed."""
    cards = [c for c in choices if re.search(r"\.\d+\.p", data(c))]
    return (cards or choices)[0]


def play_inline(emu: RunningEmulator, user: str, room_id: str, version: int) -> int:
    """Play through the group's inline query instead of the private keyboard."""
    answer = emu.inline_query(user, GROUP, f"g{room_id}")
    playable = [r for r in answer.results if GAME_RESULT.match(r.id)]
    assert answer.is_personal and playable
    assert all(r.id.split(".")[1] == str(version) for r in answer.results)
    emu.choose_inline_result(user, answer, first_card(playable, lambda r: r.id).id)
    return 1
