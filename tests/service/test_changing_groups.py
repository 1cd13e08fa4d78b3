"""Groups that change under a game (issue #13), end to end through python-telegram-bot
and the emulator: a group upgraded to a supergroup, who may manage a table, the bot
removed, anonymous admins and channels, forum topics, deleted messages."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from cli.stack import SECRET, TOKEN, Stack
from emulator import fast_config, running_emulator
from emulator.config import FAMILY as FAMILY_CAST
from emulator.config import Cast, GroupSpec
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage
from engine.follow_suit.game import GameState, legal_actions
from engine.follow_suit.game import to_move as game_to_move
from service.infra import indexes
from service.infra.keys import PENDING_SYNC
from service.platforms.telegram import callbacks
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room
from tests.conftest import fail_if_ignored
from tests.service.play import BOT_ID, FAMILY, action_button, store_of

COUSINS, NEIGHBOURS, FRIENDS = -4000000001, -4000000002, -4000000003
CLUB, FORUM, HOME = -1001000000002, -1001000000003, -1001000000004
ANA = {"id": 100001, "is_bot": False, "first_name": "Ana", "language_code": "es"}
_ids = itertools.count(800_000_000)


def group(chat_id: int, title: str, kind: str = "group") -> GroupSpec:
    return GroupSpec(chat_id, title, members=FAMILY, owner="Ana", type=kind)


CAST = Cast(
    users=FAMILY_CAST.users,
    groups=(
        group(COUSINS, "Cousins"),
        group(NEIGHBOURS, "Neighbours"),
        group(FRIENDS, "Friends"),
        group(CLUB, "Club", "supergroup"),
        group(FORUM, "Forum", "supergroup"),
        group(HOME, "Home", "supergroup"),
    ),
)


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    with running_emulator(fast_config(cast=CAST)) as emulator:
        yield emulator
        fail_if_ignored(emulator.emulator)


@pytest.fixture(scope="module", autouse=True)
def started(emu: RunningEmulator, stack: Stack) -> None:
    """Everyone has opened a private chat with the bot."""
    for name in FAMILY:
        emu.send_message(name, name, "/start")
        emu.wait_for_message(name, "🫏")


# ----- helpers ----------------------------------------------------------------------


def to_move(game: object) -> int | None:
    """Whose turn it is in a follow-suit game (the only family these tests play)."""
    assert isinstance(game, GameState)
    return game_to_move(game)


def room_at(stack: Stack, chat_id: int, thread: int | None = None) -> Room | None:
    return store_of(stack).room_in_chat(chat_id, thread)


def moved_to(stack: Stack, old_chat: int, new_chat: int) -> Room | None:
    """The room in the upgraded group's new chat, once the old chat indexes none (the
    move indexes the new chat, then drops the old index)."""
    return room_at(stack, new_chat) if room_at(stack, old_chat) is None else None


def bot_says(
    emu: RunningEmulator, chat: int | str, check: Callable[[ChatMessage], bool]
) -> ChatMessage:
    return emu.wait_for_message(chat, lambda m: m.sender_id == BOT_ID and check(m))


def in_topic(message: ChatMessage, thread: int | None) -> bool:
    return message.raw.get("message_thread_id") == thread


def press(
    emu: RunningEmulator, stack: Stack, user: str, chat: int, token: str, thread: int | None = None
) -> str | None:
    """Tap the action `token` of the chat's (topic's) table as it is now; the popup."""
    room = room_at(stack, chat, thread)
    assert room is not None
    data = callbacks.encode(room.id, room.version, token)
    message = bot_says(emu, chat, lambda m: action_button(m, token) == data)
    assert in_topic(message, thread)
    answer = emu.tap(user, message, data).answer
    return answer.text if answer is not None else None


def open_table(
    emu: RunningEmulator, stack: Stack, chat: int, user: str = "Ana", thread: int | None = None
) -> Room:
    """`user` opens a table in the chat (topic), adds a bot and starts: a game of two."""
    emu.send_message(user, chat, "/burro", thread_id=thread)
    emu.wait_for(lambda: room_at(stack, chat, thread), what="the lobby")
    press(emu, stack, user, chat, "B", thread)
    emu.wait_for(lambda: seated(stack, chat, thread) == 2 or None, what="the bot")
    press(emu, stack, user, chat, "S", thread)
    return emu.wait_for(lambda: playing(stack, chat, thread), what="the game to start")


def seated(stack: Stack, chat: int, thread: int | None = None) -> int:
    room = room_at(stack, chat, thread)
    return len(room.seats) if room else 0


def playing(stack: Stack, chat: int, thread: int | None = None) -> Room | None:
    room = room_at(stack, chat, thread)
    return room if room and room.status == "playing" else None


def humans_turn(stack: Stack, chat: int, thread: int | None = None) -> Room | None:
    room = playing(stack, chat, thread)
    return room if room and room.game and to_move(room.game) == 0 else None


def move_data(room: Room) -> str:
    """A legal move of the seat to move, as its button's data."""
    assert room.game is not None
    seat = to_move(room.game)
    assert seat is not None
    assert isinstance(room.game, GameState)
    token = callbacks.game_token(legal_actions(room.game, seat)[0])
    return callbacks.encode(room.id, room.version, token)


def play_one(emu: RunningEmulator, room: Room) -> None:
    """The human to move makes a legal move on their private keyboard."""
    assert room.game is not None
    data, user = move_data(room), room.seats[to_move(room.game) or 0].name
    hand = emu.wait_for_message(user, lambda m: any(b.value == data for r in m.buttons for b in r))
    emu.tap(user, hand, data)


def deliver(stack: Stack, update: dict[str, Any]) -> None:
    """An update straight to serve, as Telegram would POST it."""
    response = httpx.post(
        f"{stack.serve_url}/telegram/webhook",
        json=update,
        headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
        timeout=30,
    )
    assert response.status_code == 200


def shown(stack: Stack, room: Room, target: str) -> int:
    """The id of the message the outbox keeps for a target of the room, once sent."""
    client = store_of(stack).redis

    def sent() -> int | None:
        if indexes.score(client, PENDING_SYNC, f"{room.id}|{target}") is not None:
            return None  # a change still on its way
        found = client.hget(f"game:{{{room.id}}}:msgs", target)
        return int(found) if found else None

    value = sent()
    deadline = time.monotonic() + 10
    while value is None and time.monotonic() < deadline:
        time.sleep(0.05)
        value = sent()
    assert value is not None, f"no {target} message for {room.id}"
    return value


def webhook(on: bool, stack: Stack, emu: RunningEmulator) -> None:
    """Stop (updates wait in the emulator) or restart deliveries to the service."""
    if on:
        stack.set_webhook()
    else:
        httpx.post(f"{emu.api_url}/bot{TOKEN}/deleteWebhook", timeout=10).raise_for_status()


def old_group_message(chat_id: int, **content: Any) -> dict[str, Any]:
    return {
        "message_id": next(_ids) % 100000,
        "date": 0,
        "chat": {"id": chat_id, "type": "group", "title": "old"},
        "from": ANA,
        **content,
    }


# ----- a group upgraded to a supergroup ---------------------------------------------


def test_an_upgraded_group_moves_on_its_service_messages(
    emu: RunningEmulator, stack: Stack
) -> None:
    room = open_table(emu, stack, COUSINS)
    new_id = emu.migrate_group("Ana", "Cousins")
    # The room moves in one transaction, then its caps, then its old chat's index goes.
    moved = emu.wait_for(
        lambda: room_at(stack, new_id) if room_at(stack, COUSINS) is None else None,
        what="the room in the supergroup, none left in the group",
    )
    assert moved.id == room.id
    assert store_of(stack).redis.sismember(f"open:chat:{new_id}", room.id)  # its caps too
    bot_says(emu, new_id, lambda m: bool(m.buttons))  # the table, posted anew there
    ready = emu.wait_for(lambda: humans_turn(stack, new_id), what="Ana's turn")
    play_one(emu, ready)
    emu.wait_for(
        lambda: ((r := room_at(stack, new_id)) is not None and r.version > ready.version) or None,
        what="the move in the supergroup",
    )


def test_an_upgraded_group_found_by_the_outbox(emu: RunningEmulator, stack: Stack) -> None:
    open_table(emu, stack, NEIGHBOURS)
    ready = emu.wait_for(lambda: humans_turn(stack, NEIGHBOURS), what="Ana's turn")
    webhook(False, stack, emu)  # the service messages wait: only the outbox's 400 tells
    try:
        new_id = emu.migrate_group("Ana", "Neighbours")
        press = {"id": str(next(_ids)), "from": ANA, "chat_instance": "1", "data": move_data(ready)}
        press["message"] = old_group_message(
            NEIGHBOURS, text="…", **{"from": {"id": BOT_ID, "is_bot": True, "first_name": "Burro"}}
        )
        deliver(stack, {"update_id": next(_ids), "callback_query": press})
        moved = emu.wait_for(lambda: moved_to(stack, NEIGHBOURS, new_id), what="the room moved")
        assert moved.id == ready.id and moved.version > ready.version
        bot_says(emu, new_id, lambda m: bool(m.buttons))
    finally:
        webhook(True, stack, emu)
    refused = [c for c in emu.calls() if str(c["params"].get("chat_id")) == str(NEIGHBOURS)]
    assert any(c.get("error_code") == 400 and "upgraded" in c["description"] for c in refused)


def test_an_upgraded_group_found_by_a_reply_of_serve(emu: RunningEmulator, stack: Stack) -> None:
    room = open_table(emu, stack, FRIENDS)
    webhook(False, stack, emu)
    try:
        new_id = emu.migrate_group("Ana", "Friends")
        # A command sent before the upgrade, delivered after it: serve's reply to the old
        # chat id fails (400 migrate_to_chat_id) and the room moves.
        text = old_group_message(FRIENDS, text="/burro")
        text["entities"] = [{"type": "bot_command", "offset": 0, "length": 6}]
        deliver(stack, {"update_id": next(_ids), "message": text})
        moved = emu.wait_for(lambda: moved_to(stack, FRIENDS, new_id), what="the room moved")
        assert moved.id == room.id
        bot_says(emu, new_id, lambda m: bool(m.buttons))
    finally:
        webhook(True, stack, emu)


# ----- who may manage a table -------------------------------------------------------


def test_admins_confirm_cancel_and_only_managers_change_the_lobby(
    emu: RunningEmulator, stack: Stack
) -> None:
    emu.send_message("Ben", HOME, "/burro")  # Ben opens; Ana owns the group
    emu.wait_for(lambda: room_at(stack, HOME), what="the lobby")
    assert press(emu, stack, "Carla", HOME, "B") is not None  # refused: neither creator nor admin
    assert seated(stack, HOME) == 1
    press(emu, stack, "Ana", HOME, "B")  # an admin may
    emu.wait_for(lambda: seated(stack, HOME) == 2 or None, what="the admin's bot")
    emu.send_message("Carla", HOME, "/cancel")
    bot_says(emu, HOME, lambda m: "Only the player" in m.text)
    emu.send_message("Ana", HOME, "/cancel")
    confirm = bot_says(emu, HOME, lambda m: action_button(m, "K") is not None)
    data = action_button(confirm, "K")
    assert data is not None
    emu.tap("Carla", confirm, data)  # someone else's confirmation is refused
    assert room_at(stack, HOME) is not None
    emu.tap("Ana", confirm, data)
    emu.wait_for(lambda: room_at(stack, HOME) is None or None, what="the cancel")


def test_rematch_is_for_the_creator_and_admins() -> None:
    ana, ben = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")
    room = lobby.create_room(-100, None, ana, 0.0)
    lobby.join(room, ben)
    room.status = "over"
    refused = lobby.rematch(room, ben, 0.0)
    assert isinstance(refused, Outcome) and refused.popup is not None
    assert not isinstance(lobby.rematch(room, Actor(2, "Ben", "en", admin=True), 0.0), Outcome)
    assert not isinstance(lobby.rematch(room, ana, 0.0), Outcome)


def test_a_private_game_cannot_be_joined_by_link(emu: RunningEmulator, stack: Stack) -> None:
    emu.send_message("Carla", "Carla", "/play")
    room = emu.wait_for(lambda: room_at(stack, 100003), what="Carla's table")
    before = emu.last_message("Dan")
    emu.open_link("Dan", f"https://t.me/burro_bot?start=j{room.id}")
    emu.wait_for_message(  # the refusal, in Dan's language
        "Dan",
        lambda m: m.sender_id == BOT_ID and m.message_id > (before.message_id if before else 0) + 1,
    )
    after = room_at(stack, 100003)
    assert after is not None and after.seat_of(100004) is None


# ----- the bot removed, anonymous senders -------------------------------------------


def test_the_bot_removed_ends_the_game_and_tells_the_players(
    emu: RunningEmulator, stack: Stack
) -> None:
    open_table(emu, stack, CLUB)
    room = emu.wait_for(lambda: humans_turn(stack, CLUB), what="Ana's turn")
    emu.remove_bot_from_group("Ana", "Club", kick=True)
    emu.wait_for(lambda: room_at(stack, CLUB) is None or None, what="the game to end")
    stopped = store_of(stack).load(room.id)
    assert stopped is not None and stopped.status == "cancelled"
    assert stopped.game == room.game  # kept as it was, until it expires
    assert store_of(stack).redis.ttl(f"game:{{{room.id}}}:room") > 0
    bot_says(emu, "Ana", lambda m: "Club" in m.text)  # told in private, in her language
    emu.add_bot_to_group("Ana", "Club")
    emu.send_message("Ana", "Club", "/burro")
    fresh = emu.wait_for(lambda: room_at(stack, CLUB), what="a new lobby")
    assert fresh.id != room.id and fresh.status == "lobby"


def test_commands_as_the_group_or_a_channel_are_refused(emu: RunningEmulator, stack: Stack) -> None:
    assert room_at(stack, HOME) is None
    for user, send_as in (("Ana", "anonymous"), ("Ben", "channel")):
        said = emu.send_message(user, HOME, "/burro", send_as=send_as)

        def refusal(message: ChatMessage, after: int = said.message_id) -> bool:
            return message.message_id > after and "yourself" in message.text

        bot_says(emu, HOME, refusal)
        assert room_at(stack, HOME) is None  # nobody seated, no table
    stranger = {1087968824, 136817688}
    for key in store_of(stack).redis.scan_iter(match="game:*:room"):
        room = store_of(stack).load(key.decode().split("{")[1].split("}")[0])
        assert room is not None and not stranger & set(room.humans())


# ----- forum topics -----------------------------------------------------------------


def general_words(emu: RunningEmulator, chat: int) -> list[ChatMessage]:
    """The bot's messages in the forum's General topic."""
    return [m for m in emu.messages_in(chat) if m.sender_id == BOT_ID and in_topic(m, None)]


def test_a_game_lives_in_its_topic_and_ends_when_the_topic_closes(
    emu: RunningEmulator, stack: Stack
) -> None:
    emu.set_forum("Ana", "Forum")
    topic = emu.create_topic("Ana", "Forum", "Burro")
    emu.send_message("Ana", FORUM, "/burro", thread_id=topic)
    emu.wait_for(lambda: room_at(stack, FORUM, topic), what="the lobby in the topic")
    assert room_at(stack, FORUM) is None  # General has no game
    press(emu, stack, "Ben", FORUM, "J", topic)
    emu.wait_for(lambda: seated(stack, FORUM, topic) == 2 or None, what="Ben seated")
    emu.block_bot("Ben")  # his cards cannot reach him: the group is told, in the topic
    try:
        press(emu, stack, "Ana", FORUM, "S", topic)
        bot_says(emu, FORUM, lambda m: "@burro_bot" in m.text and "Ben" in m.text)
    finally:
        emu.unblock_bot("Ben")
    room = emu.wait_for(lambda: playing(stack, FORUM, topic), what="the game")
    ours = [m for m in emu.messages_in(FORUM) if m.sender_id == BOT_ID]
    assert ours and all(in_topic(m, topic) for m in ours)
    emu.close_topic("Ana", "Forum", topic)
    emu.wait_for(lambda: room_at(stack, FORUM, topic) is None or None, what="the game to end")
    ended = store_of(stack).load(room.id)
    assert ended is not None and ended.status == "cancelled"
    emu.wait_for(lambda: general_words(emu, FORUM), what="a word in General")


def test_a_deleted_topic_ends_its_game_once(emu: RunningEmulator, stack: Stack) -> None:
    topic = emu.create_topic("Ben", "Forum", "Burro 2")
    open_table(emu, stack, FORUM, "Dan", topic)
    ready = emu.wait_for(lambda: humans_turn(stack, FORUM, topic), what="Dan's turn")
    said = len(general_words(emu, FORUM))
    emu.delete_topic("Ana", "Forum", topic)  # no update tells the bot
    play_one(emu, ready)  # the table's next edit finds the topic gone
    emu.wait_for(lambda: room_at(stack, FORUM, topic) is None or None, what="the game to end")
    emu.wait_for(lambda: len(general_words(emu, FORUM)) == said + 1 or None, what="the word")
    stopped = store_of(stack).load(ready.id)
    assert stopped is not None and stopped.status == "cancelled"
    failed = [c for c in emu.calls("sendMessage") if c["params"].get("message_thread_id") == topic]
    assert any(not c["ok"] for c in failed)
    assert len(general_words(emu, FORUM)) == said + 1  # said once


# ----- messages deleted by users ------------------------------------------------------


def test_a_deleted_table_or_hand_is_posted_again(emu: RunningEmulator, stack: Stack) -> None:
    emu.send_message("Carla", HOME, "/burro")
    emu.wait_for(lambda: room_at(stack, HOME), what="the lobby")
    press(emu, stack, "Dan", HOME, "J")
    emu.wait_for(lambda: seated(stack, HOME) == 2 or None, what="Dan seated")
    press(emu, stack, "Carla", HOME, "S")
    room = emu.wait_for(lambda: playing(stack, HOME), what="the game")
    table = shown(stack, room, "table")
    emu.delete_message("Ana", HOME, table)  # the group's owner may
    room = play_and_wait(emu, stack, room)
    assert shown(stack, room, "table") > table  # posted again, not lost
    refused = emu.calls("editMessageText")
    assert any(c["params"].get("message_id") == table and not c["ok"] for c in refused)
    while to_move(room.game) != 1:
        room = play_and_wait(emu, stack, room)
    hand = shown(stack, room, "hand:100003")
    emu.delete_message("Carla", "Carla", hand)  # in private: gone for the bot too
    for _ in range(10):  # until a move changes what Carla's hand shows (her turn at last)
        room = play_and_wait(emu, stack, room)
        if shown(stack, room, "hand:100003") != hand:
            break
    assert shown(stack, room, "hand:100003") > hand


def play_and_wait(emu: RunningEmulator, stack: Stack, room: Room) -> Room:
    """The player to move plays; the room once someone is to move again."""
    play_one(emu, room)

    def moved() -> Room | None:
        now = playing(stack, HOME)
        ready = now and now.version > room.version and now.game and to_move(now.game) is not None
        return now if ready else None

    return emu.wait_for(moved, what="the next turn")


def test_rematch_only_for_the_creator_or_an_admin(emu: RunningEmulator, stack: Stack) -> None:
    """A finished table's 🔁: Dan (a player) may not deal again, Ana (an admin) may."""
    room = emu.wait_for(lambda: playing(stack, HOME), what="the table of the last test")
    store = store_of(stack)

    def finish(fresh: Room) -> Outcome:
        fresh.status = "over"
        return Outcome(changed=True)

    store.update(room.id, finish)
    for name, user_id in (("Dan", 100004), ("Ana", 100001)):
        user = {"id": user_id, "is_bot": False, "first_name": name}
        query = {"id": str(next(_ids)), "from": user, "chat_instance": "1"}
        query["data"] = callbacks.encode(room.id, room.version, "N")
        query["message"] = {
            **old_group_message(HOME, text="…"),
            "chat": {"id": HOME, "type": "supergroup", "title": "Home"},
        }
        deliver(stack, {"update_id": next(_ids), "callback_query": query})
        if name == "Dan":
            current = room_at(stack, HOME)
            assert current is not None and current.id == room.id
    fresh = emu.wait_for(lambda: room_at(stack, HOME), what="the new table")
    assert fresh.id != room.id and fresh.status == "lobby" and fresh.creator == room.creator


def test_a_deleted_topic_found_by_a_reply_of_serve(emu: RunningEmulator, stack: Stack) -> None:
    topic = emu.create_topic("Ben", "Forum", "Burro 3")
    room = open_table(emu, stack, FORUM, "Ana", topic)
    said = len(general_words(emu, FORUM))
    emu.delete_topic("Ana", "Forum", topic)
    # A command sent in the topic just before it went: serve's answer there fails.
    text = {**old_group_message(FORUM, text="/burro"), "message_thread_id": topic}
    text.update(is_topic_message=True, chat={"id": FORUM, "type": "supergroup", "title": "Forum",
                                             "is_forum": True})  # fmt: skip
    text["entities"] = [{"type": "bot_command", "offset": 0, "length": 6}]
    deliver(stack, {"update_id": next(_ids), "message": text})
    emu.wait_for(lambda: room_at(stack, FORUM, topic) is None or None, what="the game to end")
    ended = store_of(stack).load(room.id)
    assert ended is not None and ended.status == "cancelled"
    # The game's word in General; if the worker's re-post found the topic gone first, the
    # command opened a lobby there that ended the same way, with its own word.
    emu.wait_for(lambda: len(general_words(emu, FORUM)) > said or None, what="the word")
    words = [m.text for m in general_words(emu, FORUM)[said:]]
    assert len(words) <= 2 and all(w == words[0] for w in words)


@pytest.mark.parametrize("target", ["abc", 100001, True, None, [1]])
def test_a_malformed_upgrade_moves_nothing(emu: RunningEmulator, stack: Stack, target: Any) -> None:
    room = emu.wait_for(lambda: room_at(stack, CLUB), what="the Club's lobby")
    message = {**old_group_message(CLUB), "migrate_to_chat_id": target}
    message["chat"] = {"id": CLUB, "type": "supergroup", "title": "Club"}
    deliver(stack, {"update_id": next(_ids), "message": message})
    assert room_at(stack, CLUB) == room


def test_a_malformed_removal_stops_nothing(emu: RunningEmulator, stack: Stack) -> None:
    room = emu.wait_for(lambda: room_at(stack, CLUB), what="the Club's lobby")
    bot = {"id": BOT_ID, "is_bot": True, "first_name": "Burro"}
    for chat_id in ("*", "-100*", 100001):
        change = {
            "chat": {"id": chat_id, "type": "supergroup", "title": "?"},
            "from": ANA,
            "date": 0,
            "old_chat_member": {"status": "member", "user": bot},
            "new_chat_member": {"status": "left", "user": bot},
        }
        deliver(stack, {"update_id": next(_ids), "my_chat_member": change})
    assert room_at(stack, CLUB) == room
