"""A member who plays from the group (they never opened the bot's private chat) finds
their cards only through a "🃏 My cards" in the group. Telegram never tells a bot that
a message was deleted, so when the group's admin deletes the table during their turn,
the reminder that names them must carry that way to their cards; and it is never tried
in a private chat that refuses us. Through the real python-telegram-bot against the
local Telegram, with ephemeral messages (Bot API 10.4) and no inline mode."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator.telegram.driver import ChatMessage
from service.infra.keys import msgs_key
from service.platforms.telegram import botfather
from service.table.room import Room
from tests.service.inproc import Hook, running_service
from tests.service.play import GROUP, action_button, room_in
from tests.service.test_hand_in_group import (
    mentions_of,
    moved,
    mover,
    moves_of,
    opened,
    prompted,
)


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    """The product in this process with BotFather's defaults: no inline mode."""
    with running_service(tmp_path_factory.mktemp("deleted"), bot_settings={}) as running:
        botfather.record_ephemeral(running.redis, True)  # as serve's probe finds it
        yield running


def table_deleted(hook: Hook, room: Room) -> None:
    """The group's owner deletes the table message (the bot is not told), once the
    outbox has shown the turn (a later edit would find it gone and post it again)."""
    assert hook.worker is not None
    hook.worker.settle()
    table = int(hook.redis.hget(msgs_key(room.id), "table") or 0)
    hook.emu.delete_message("Ana", GROUP, table)
    assert hook.emu.message(GROUP, table).deleted


def reminded(hook: Hook, room: Room, since: int) -> ChatMessage:
    """The clock moved on to the turn's reminder: the group's nudge posted after
    message `since`."""
    assert hook.worker is not None
    hook.worker.reach(room.reminder_at() + 1)
    return hook.emu.wait_for(
        lambda: next(
            (m for m in hook.emu.messages_in(GROUP) if m.message_id > since and mentions_of(m)),
            None,
        ),
        what="the reminder in the group",
    )


def test_the_reminder_shows_the_way_to_cards_once_the_table_is_deleted(hook: Hook) -> None:
    emu = hook.emu
    chat, room = opened(hook)
    who = mover(room)
    table_deleted(hook, room)
    since = max(m.message_id for m in emu.messages_in(GROUP, include_deleted=True))
    nudge = reminded(hook, room_in(hook, chat), since)
    [mention] = mentions_of(nudge)
    assert mention["user"]["id"] in room.blocked
    cards = action_button(nudge, "H")
    assert cards is not None and cards.startswith(f"{room.id}."), nudge.buttons
    # the only message with the way in: the table is still gone (nothing edited it)
    shown = [m for m in emu.messages_in(GROUP) if action_button(m, "H")]
    assert [m.message_id for m in shown] == [nudge.message_id]
    my_cards_from(hook, nudge, who, cards)
    room = room_in(hook, chat)
    hand = prompted(hook, who, room)  # their moves, to play
    emu.tap(who, hand, moves_of(hand)[0])
    moved(hook, chat, room.version)
    people = {seat.user_id for seat in room.seats}
    tried = [c for c in emu.calls("sendMessage") if c["params"].get("chat_id") in people]
    assert tried == []  # the reminder tried no chat they never opened


def my_cards_from(hook: Hook, message: ChatMessage, user: str, data: str) -> ChatMessage:
    """`user` taps "🃏 My cards" on `message`: their hand, shown to them alone."""
    emu = hook.emu
    seen = {m.ephemeral_message_id for m in emu.ephemeral_messages(user, GROUP)}
    emu.tap(user, message, data)
    return emu.wait_for(
        lambda: next(
            (m for m in emu.ephemeral_messages(user, GROUP) if m.ephemeral_message_id not in seen),
            None,
        ),
        what=f"{user}'s hand in the group",
    )
