"""One-to-one games against bots, played to the end through the emulator, with the
product in this process (inproc.running_service: the webhook app and a worker on
threads, bots at once)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator.server import RunningEmulator
from tests.service.group_play import ending_at
from tests.service.inproc import Hook, running_service
from tests.service.play import game_buttons, room_in, store_of


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_service(tmp_path_factory.mktemp("private")) as running:
        yield running


@pytest.fixture
def emu(stack: Hook) -> Iterator[RunningEmulator]:
    yield stack.emu
    assert stack.worker is not None
    stack.worker.check()  # no job raised


# Every preset is played to its end through the table core (test_table_contract.py); a
# one-to-one game through the chat, for a 48-card Spanish deck and a French one with
# letters.
@pytest.mark.parametrize("preset", ["spanish48", "brazilian"])
def test_play_against_bots_to_the_end(emu: RunningEmulator, stack: Hook, preset: str) -> None:
    emu.send_message("Carla", "Carla", f"/play {preset}")
    chat = emu.wait_for_message("Carla", lambda m: "▶️ Start" in m.button_texts).chat_id
    lobby = emu.wait_for_message("Carla", lambda m: "▶️ Start" in m.button_texts)
    emu.tap("Carla", lobby, "🤖 Add bot")  # three bots in all
    emu.wait_for(lambda: len(room_in(stack, chat).seats) == 3 or None, what="a second bot")
    store_of(stack).update(room_in(stack, chat).id, ending_at(2))
    lobby = emu.wait_for_message("Carla", lambda m: "▶️ Start" in m.button_texts)
    emu.tap("Carla", lobby, "▶️ Start")
    for _ in range(2000):
        room = room_in(stack, chat)
        if room.status == "over":
            break
        mark = f".{room.version}."
        current = [b for b in game_buttons(emu.last_message("Carla")) if mark in str(b.value)]
        if not current:  # a bot is thinking, or the keyboard is not updated yet

            def carla_to_play(version: int = room.version, mark: str = mark) -> bool | None:
                return (
                    room_in(stack, chat).version != version
                    or any(mark in str(b.value) for b in game_buttons(emu.last_message("Carla")))
                    or None
                )

            emu.wait_for(carla_to_play, what="Carla's turn")
            continue
        message = emu.last_message("Carla")
        assert message is not None
        plays = [b for b in current if f"{mark}p" in str(b.value)]  # a card, if one is
        emu.tap("Carla", message, (plays or current)[0].value)

        def applied(version: int = room.version) -> bool | None:  # by a worker, a moment later
            return room_in(stack, chat).version != version or None

        emu.wait_for(applied, what="Carla's move applied")
    room = room_in(stack, chat)
    assert room.status == "over" and room.game is not None and room.game.over
    final = emu.wait_for_message("Carla", lambda m: "🔁 Play again" in m.button_texts)
    assert "🏁" in final.text or "🏆" in final.text
    assert room.seats[0].name == "Carla" and all(s.bot for s in room.seats[1:])


def test_play_again_starts_a_new_game_at_once(emu: RunningEmulator, stack: Hook) -> None:
    final = emu.wait_for_message("Carla", lambda m: "🔁 Play again" in m.button_texts)
    chat = final.chat_id
    old = room_in(stack, chat)
    emu.tap("Carla", final, "🔁 Play again")
    emu.wait_for(lambda: room_in(stack, chat).id != old.id or None, what="a new room")
    fresh = room_in(stack, chat)
    assert fresh.status == "playing" and [s.name for s in fresh.seats] == [
        s.name for s in old.seats
    ]
    emu.wait_for(
        lambda: (
            f".{room_in(stack, chat).version}."
            in str([b.value for b in game_buttons(emu.last_message("Carla"))])
            or None
        ),
        what="a new keyboard",
    )
