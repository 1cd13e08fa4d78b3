"""Two tables at once on Telegram: Ben plays in the Family group and in Cousins. Each
table takes its group's title from the group's updates; every hand in Ben's private
chat names its group (both come to one chat), and a press on one table's hand acts on
that table only."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import pytest

from emulator.telegram.driver import ChatMessage
from service.infra.keys import msgs_key
from service.infra.store import text
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.room import Room
from tests.service.inproc import Hook, running_service
from tests.service.play import BOT_ID, game_buttons

FAMILY_GROUP, COUSINS = -1001000000001, -4000000001
BEN = 100002


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_service(tmp_path_factory.mktemp("names"), game_target=2) as running:
        yield running


def test_each_hand_names_its_group_and_a_press_acts_on_its_own_table(hook: Hook) -> None:
    emu, worker = hook.emu, hook.worker
    assert worker is not None
    emu.start("Ben")  # his cards may come to his private chat
    welcome = emu.wait_for(partial(from_bot, hook), what="the welcome")
    since = emu.messages_in(BEN).index(welcome) + 1
    rooms = {
        title: opened(hook, chat, title)
        for chat, title in ((FAMILY_GROUP, "Family"), (COUSINS, "Cousins"))
    }
    ben = Actor(BEN, "Ben", "pt_BR")
    for room_id in rooms.values():
        hook.store().update(room_id, lambda r: lobby.add_bot(r, ben))
        hook.store().update(room_id, lambda r: lobby.start(r, ben, r.updated))
    for title, room_id in rooms.items():
        hand = emu.wait_for(partial(hand_of, hook, room_id), what=f"Ben's hand at {title}")
        assert title in hand.text.split("\n", 1)[0], hand.text
        others = set(rooms) - {title}
        assert not any(other in hand.text for other in others)  # the other table's name

    mine = emu.wait_for(partial(waiting_on_ben, hook, rooms), what="a turn of Ben's")
    other = next(room_id for room_id in rooms.values() if room_id != mine)
    before, moving = load(hook, other), load(hook, mine).version
    hand = emu.wait_for(partial(playable_hand, hook, mine), what="his hand's moves")
    emu.tap("Ben", hand, str(game_buttons(hand)[0].value))
    emu.wait_for(lambda: load(hook, mine).version > moving or None, what="his move")
    worker.settle()
    after = load(hook, other)
    assert (after.version, after.game) == (before.version, before.game)
    for message in emu.messages_in(BEN)[since:]:  # his hands, words said to him, news
        if message.sender_id == BOT_ID:
            assert "Family" in message.text or "Cousins" in message.text, message.text


def opened(hook: Hook, chat: int, title: str) -> str:
    """Ben's /burro in a group: a lobby, named after the group."""
    hook.emu.send_message("Ben", chat, "/burro")
    room = hook.emu.wait_for(partial(named_room, hook, chat, title), what=f"{title}'s lobby")
    return room.id


def named_room(hook: Hook, chat: int, title: str) -> Room | None:
    room = hook.store().room_in_chat(chat, None)
    return room if room is not None and room.name == title else None


def load(hook: Hook, room_id: str) -> Room:
    room = hook.store().load(room_id)
    assert room is not None
    return room


def hand_of(hook: Hook, room_id: str) -> ChatMessage | None:
    """Ben's hand message of a room in his private chat, once sent."""
    found = hook.redis.hget(msgs_key(room_id), f"hand:{BEN}")
    return None if found is None else hook.emu.message(BEN, int(text(found)))


def playable_hand(hook: Hook, room_id: str) -> ChatMessage | None:
    hand = hand_of(hook, room_id)
    return hand if game_buttons(hand) else None


def waiting_on_ben(hook: Hook, rooms: dict[str, str]) -> str | None:
    for room_id in rooms.values():
        room = load(hook, room_id)
        if room.seat_of(BEN) in play.waiting_humans(room):
            return room_id
    return None


def from_bot(hook: Hook) -> ChatMessage | None:
    found = [m for m in hook.emu.messages_in(BEN) if m.sender_id == BOT_ID]
    return found[-1] if found else None
