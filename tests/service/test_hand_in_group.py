"""The hand in the group (Bot API 10.4's ephemeral messages), through the real
python-telegram-bot against the local Telegram, with BotFather's defaults (no inline
mode): members who never opened the bot join from the group, see their own cards there
alone ("🃏 My cards"), play them with a tap, and are called by name when their turn
comes after a pause; no one's cards show to anyone else."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from emulator.telegram.driver import ChatMessage
from engine.follow_suit.game import GameState, to_move
from service.infra.keys import msgs_key
from service.platforms.telegram import botfather
from service.table import play
from service.table.outcome import Outcome
from service.table.room import Room
from service.ui import games
from tests.service.group_play import lobby_with, tap_lobby
from tests.service.inproc import Hook, running_service
from tests.service.play import (
    GROUP,
    action_button,
    assert_no_hand_leaks,
    assert_no_passing_leaks,
    game_buttons,
    room_in,
)
from tests.service.test_privacy import traces

PLAYERS = ("Ana", "Ben", "Carla")
MOVE = re.compile(r"^[a-z0-9]{8}\.\d+\.(p\w+|d|dl|dr|x|c\w+|b|f|r)$")  # both games' moves


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    """The product in this process with BotFather's defaults: no inline mode."""
    with running_service(tmp_path_factory.mktemp("hand"), bot_settings={}) as running:
        botfather.record_ephemeral(running.redis, True)  # as serve's probe finds it
        yield running


def opened(hook: Hook) -> tuple[int, Room]:
    """Ana opens a game in the group; Ben and Carla join from there; Ana starts it."""
    emu = hook.emu
    emu.send_message("Ana", GROUP, "/burro spanish")
    lobby = emu.wait_for(lambda: lobby_with(emu, "J"), what="the lobby")
    for user in PLAYERS[1:]:
        tap = tap_lobby(emu, user, "J")
        assert tap.answer is not None and tap.answer.url is None  # no link to follow
        assert "🃏" in (tap.answer.text or "") and tap.answer.show_alert  # where the cards are
    room = emu.wait_for(
        lambda: (len((r := room_in(hook, lobby.chat_id)).seats) == 3 and r) or None,
        what="three seated",
    )
    links = [b for m in emu.messages_in(GROUP) for row in m.buttons for b in row if b.kind == "url"]
    assert links == []  # Ana, who opened it, is not sent to the bot's chat either
    tap_lobby(emu, "Ana", "S")
    room = emu.wait_for(
        lambda: ((r := room_in(hook, lobby.chat_id)).status == "playing" and r) or None,
        what="the game to start",
    )
    return lobby.chat_id, room


def table_of(hook: Hook, chat: int) -> ChatMessage:
    return hook.emu.wait_for_message(
        GROUP, lambda m: not m.deleted and action_button(m, "H") is not None, timeout=20
    )


def my_cards(hook: Hook, chat: int, user: str) -> ChatMessage:
    """`user` taps "🃏 My cards" on the table: their hand, shown to them alone."""
    emu = hook.emu
    seen = {m.ephemeral_message_id for m in emu.ephemeral_messages(user, GROUP)}
    table = table_of(hook, chat)
    data = action_button(table, "H")
    assert data is not None
    tap = emu.tap(user, table, data)
    assert tap.answer is None or not tap.answer.url
    hand = emu.wait_for(
        lambda: next(
            (m for m in emu.ephemeral_messages(user, GROUP) if m.ephemeral_message_id not in seen),
            None,
        ),
        what=f"{user}'s hand in the group",
    )
    return hand


def moves_of(hand: ChatMessage) -> list[str]:
    """The data of a hand's move buttons, any game's (`<room>.<phase>.<token>`)."""
    data = [str(b.value) for row in hand.buttons for b in row if b.kind == "callback_data"]
    return [d for d in data if MOVE.match(d)]


def prompted(hook: Hook, user: str, room: Room) -> ChatMessage:
    """`user`'s hand in the group once it offers their moves of the room's phase."""
    phase = f"{room.id}.{room.phase_version}."

    def current() -> ChatMessage | None:
        for hand in hook.emu.ephemeral_messages(user, GROUP):  # an older game's may stay
            moves = moves_of(hand)
            if moves and moves[0].startswith(phase):
                return hand
        return None

    return hook.emu.wait_for(current, what=f"{user}'s turn in their hand")


def one_hand_shown(hook: Hook, user: str) -> None:
    """The hand shown before the last one went: one live hand per player."""

    def one() -> bool | None:
        return len(hook.emu.ephemeral_messages(user, GROUP)) == 1 or None

    hook.emu.wait_for(one, what=f"one hand shown to {user}")


def moved(hook: Hook, chat: int, version: int) -> Room:
    """The room once a move changed it from `version`."""

    def fresh() -> Room | None:
        room = room_in(hook, chat)
        return room if room.version > version else None

    return hook.emu.wait_for(fresh, what="the move")


def mover(room: Room) -> str:
    assert isinstance(room.game, GameState)
    seat = to_move(room.game)
    assert seat is not None
    return room.seats[seat].name.split()[0]


def test_members_who_never_opened_the_bot_play_from_the_group(hook: Hook) -> None:
    emu = hook.emu
    chat, room = opened(hook)
    assert set(room.blocked) == {seat.user_id for seat in room.seats}  # none opened the bot
    hands = {user: my_cards(hook, chat, user) for user in PLAYERS}
    room = room_in(hook, chat)
    for user, hand in hands.items():
        seat = next(s for s in room.seats if s.name.startswith(user))
        assert hand.receiver_id == seat.user_id
        if mover(room) == user:
            prompted(hook, user, room)  # its legal cards, to play
        others = [u for u in PLAYERS if u != user]
        for other in others:  # nobody else's app shows it
            shown = emu.ephemeral_messages(other, GROUP)
            assert all(m.ephemeral_message_id != hand.ephemeral_message_id for m in shown)
    for _move in range(4):
        room = room_in(hook, chat)
        who = mover(room)
        hand = prompted(hook, who, room)
        emu.tap(who, hand, str(game_buttons(hand)[0].value))
        moved(hook, chat, room.version)
    edited = emu.ephemeral_messages(PLAYERS[0], GROUP)[-1]
    assert edited.edited  # kept up to date in place
    people = {seat.user_id for seat in room.seats}
    tried = [c for c in emu.calls("sendMessage") if c["params"].get("chat_id") in people]
    assert tried == []  # nothing tried in a chat they never opened
    assert_no_hand_leaks(emu, hook, room_in(hook, chat), chat)
    assert_own_cards_only(hook, chat)


def mentions_of(message: ChatMessage) -> list[dict[str, Any]]:
    return [e for e in message.raw.get("entities", []) if e["type"] == "text_mention"]


def played_after_a_pause(hook: Hook, chat: int) -> tuple[Room, str, int]:
    """The mover plays after a pause (nobody in live play); the room after it, and the
    first word of the next mover's name: once the turn passes to someone else (a trick's
    winner leads again, in live play) within the hand (a move that ends it posts the
    hand's news in the group before the next hand's table)."""
    emu, clock, worker = hook.emu, hook.clock, hook.worker
    assert clock is not None and worker is not None
    for _try in range(10):
        worker.settle()  # the last try's table is posted before we mark where we are
        room = room_in(hook, chat)
        who = mover(room)
        clock.advance(hook.settings.live_window + 60)
        posted = max(m.message_id for m in emu.messages_in(GROUP, include_deleted=True))
        hand = my_cards(hook, chat, who)
        one_hand_shown(hook, who)
        emu.tap(who, hand, str(game_buttons(hand)[0].value))
        fresh = moved(hook, chat, room.version)
        same_hand = hands_over(fresh) == hands_over(room)
        if fresh.status == "playing" and same_hand and mover(fresh) != who:
            return fresh, mover(fresh), posted
    raise AssertionError("the turn never passed on")


def hands_over(room: Room) -> int:
    assert isinstance(room.game, GameState)
    return len(room.game.past)


def test_a_turn_after_a_pause_calls_its_player_by_name(hook: Hook) -> None:
    """Played after the test above: the game goes on."""
    emu = hook.emu
    chat = table_of(hook, 0).chat_id
    fresh, called, posted = played_after_a_pause(hook, chat)
    table = emu.wait_for(
        lambda: next(
            (m for m in emu.messages_in(GROUP) if m.message_id > posted and mentions_of(m)), None
        ),
        what=f"{called} called in the group",
    )
    # whose turn it is when the table goes (forced moves may have passed it on since)
    [mention] = mentions_of(table)
    user = mention["user"]["id"]
    seat = fresh.seat_of(user)
    assert seat is not None and fresh.seats[seat].name.split()[0] in table.text
    assert user in table.notified
    assert hook.worker is not None
    hook.worker.settle()
    sent = emu.messages_in(GROUP, include_deleted=True)
    assert [m.message_id for m in sent if m.message_id > posted] == [table.message_id]


def test_hand_typed_in_the_group_answers_its_sender_alone(hook: Hook) -> None:
    """`/hand`, registered as an ephemeral command (serve's probe found them taken):
    the member's command and its answer are theirs alone."""
    emu = hook.emu
    assert hook.worker is not None
    hook.worker.settle()
    chat = table_of(hook, 0).chat_id
    carla = next(s.user_id for s in room_in(hook, chat).seats if s.name.startswith("Carla"))
    before = {m.message_id for m in emu.messages_in(GROUP)}
    seen = {m.ephemeral_message_id for m in emu.ephemeral_messages("Carla", GROUP)}

    def answer() -> ChatMessage | None:
        shown = emu.ephemeral_messages("Carla", GROUP)
        fresh = [m for m in shown if m.ephemeral_message_id not in seen]
        return next((m for m in fresh if m.receiver_id == carla), None)

    emu.send_message("Carla", GROUP, "/hand")
    emu.wait_for(answer, what="Carla's hand, answering /hand")
    # Nothing new for the others (a word of an earlier turn may be withdrawn meanwhile).
    assert {m.message_id for m in emu.messages_in(GROUP)} <= before
    assert all(m.receiver_id != carla for m in emu.ephemeral_messages("Ben", GROUP))


def test_a_hand_missed_offline_is_shown_again_from_the_table(hook: Hook) -> None:
    """Delivery is not guaranteed: Ben's app is offline when his hand is sent, so he
    never sees it; back online, the table's button shows it again."""
    emu = hook.emu
    chat = table_of(hook, 0).chat_id
    emu.set_online("Ben", False)
    room = room_in(hook, chat)
    mark = (msgs_key(room.id), f"mine:{room.seats[1].user_id}")
    sent = hook.redis.hget(*mark)
    table = table_of(hook, chat)
    seen = {m.ephemeral_message_id for m in emu.ephemeral_messages("Ben", GROUP)}
    emu.tap("Ben", table, str(action_button(table, "H")))
    emu.wait_for(lambda: hook.redis.hget(*mark) != sent or None, what="the outbox to send it")
    assert {m.ephemeral_message_id for m in emu.ephemeral_messages("Ben", GROUP)} <= seen
    emu.set_online("Ben", True)
    hand = my_cards(hook, chat, "Ben")
    assert hand.receiver_id == room_in(hook, chat).seats[1].user_id


def test_cuartetos_hands_in_the_group(hook: Hook) -> None:
    """The passing game the same way: each hand in the group to its player alone, with
    the cards to pass and the fake call; a pass changes that hand in place."""
    emu = hook.emu
    chat = table_of(hook, 0).chat_id
    hook.store().update(room_in(hook, chat).id, cancelled)  # the follow-suit game above
    emu.wait_for(
        lambda: not any(action_button(m, "H") for m in emu.messages_in(GROUP)) or None,
        what="the old table without its buttons",
    )
    emu.send_message("Ana", GROUP, "/burro cuartetos")
    lobby_with(emu, "J")
    for user in PLAYERS[1:]:
        tap_lobby(emu, user, "J")
    emu.wait_for(lambda: len(room_in(hook, chat).seats) == 3 or None, what="three seated")
    tap_lobby(emu, "Ana", "S")
    emu.wait_for(lambda: room_in(hook, chat).status == "playing" or None, what="the start")
    hands = {user: my_cards(hook, chat, user) for user in PLAYERS}
    room = room_in(hook, chat)
    for user, hand in hands.items():
        hand = prompted(hook, user, room)
        tokens = {data.rsplit(".", 1)[-1] for data in moves_of(hand)}
        assert sum(t.startswith("c") for t in tokens) == 4, hand.text  # four cards to pass
        assert "f" in tokens  # the fake call, theirs alone
    passed = prompted(hook, "Ben", room)
    emu.tap("Ben", passed, moves_of(passed)[0])
    emu.wait_for(
        lambda: all(m.text != passed.text for m in emu.ephemeral_messages("Ben", GROUP)) or None,
        what="Ben's hand after his pass",
    )
    assert_no_passing_leaks(emu, hook, chat)
    assert_own_cards_only(hook, chat)


def cancelled(room: Room) -> Outcome:
    room.status = "cancelled"
    return Outcome(changed=True, sync={"table"})  # its buttons go


def assert_own_cards_only(hook: Hook, chat: int) -> None:
    """Each player's hands in the group (of this game) name no card another holds."""
    room = room_in(hook, chat)
    game = play.game(room)
    held = [game.player_view(room.game, seat).hand for seat in range(len(room.seats))]
    for seat, info in enumerate(room.seats):
        painter = games.painter(room, info.lang)
        others = {painter.card(c) for s, hand in enumerate(held) if s != seat for c in hand}
        for message in hook.emu.ephemeral_messages(info.name.split()[0], GROUP):
            data = [str(b.value) for row in message.buttons for b in row]
            if not any(d.startswith(f"{room.id}.") for d in data):
                continue  # an older game's
            shown = message.text + " " + " ".join(b.text for row in message.buttons for b in row)
            assert not any(card in shown for card in others), (info.name, shown)


def test_forgetting_a_player_of_the_group_leaves_nothing_of_them(hook: Hook) -> None:
    """Carla played from the group (her hand shown there to her alone): once she asks to
    be forgotten (in the bot's chat, which she opens for it), nothing in Redis names her."""
    emu = hook.emu
    carla = emu.start("Carla")  # /forget is said in private
    assert carla.text == "/start"
    assert hook.worker is not None
    for _look in range(3):  # her hands come to that chat now: the outbox is done first
        hook.worker.settle()
    emu.send_message("Carla", "Carla", "/forget")
    confirm = emu.wait_for_message(
        "Carla", lambda m: any(str(b.value) == "cmd:forget_yes" for r in m.buttons for b in r)
    )
    emu.tap("Carla", confirm, "cmd:forget_yes")
    pattern = re.compile(r"(?<![0-9])100003(?![0-9])|carla", re.IGNORECASE)
    try:
        emu.wait_for(lambda: not traces(hook.redis, pattern) or None, what="no trace of Carla")
    except TimeoutError:
        raise AssertionError(traces(hook.redis, pattern)) from None
