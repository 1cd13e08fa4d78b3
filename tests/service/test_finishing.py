"""The small things that make it feel finished, through the emulator and the whole stack:
/burro leads to the private chat, the word that the bot cannot reach someone goes once
they open it, a cancel reaches every hand, /language shows at once, plain private
messages get a hint, the command menus, and the family pace of cuartetos."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from cli.stack import SECRET, TOKEN, Stack
from emulator.config import fast_config
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage
from engine.cuartetos import CuartetosRules
from service.i18n import Translator
from service.infra import hints, indexes
from service.infra.keys import PENDING_SYNC
from service.platforms.telegram import blocked, callbacks
from service.table import games as table_games
from service.table.cuartetos.lobby import FAMILY_PACE
from service.table.room import Room, Seat
from service.ui import games, spans
from tests.service.inproc import local_emulator
from tests.service.play import BOT_ID, action_button, store_of

GROUP = -1001000000001  # the emulator's "Family"
COUSINS = -4000000001
IDS = {"Ana": 100001, "Ben": 100002, "Carla": 100003, "Dan": 100004}
PT_BR = {"language_code": "pt-br"}
LANGS = {"Ana": "es", "Ben": "pt_BR", "Carla": "en", "Dan": "id"}


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    """A Bot API before ephemeral messages: a hand's only home is the private chat (the
    hand in the group itself: test_hand_in_group)."""
    with local_emulator(fast_config(bot_api="10.1")) as emulator:
        yield emulator


@pytest.fixture(scope="module", autouse=True)
def started(emu: RunningEmulator, stack: Stack) -> Iterator[None]:
    """Ana, Ben and Carla have opened the bot's private chat; Dan never has."""
    for name in ("Ana", "Ben", "Carla"):
        emu.start(name)
        emu.wait_for_message(name, "🫏")
    yield


# ----- helpers ----------------------------------------------------------------------


def room_at(stack: Stack, chat: int) -> Room | None:
    return store_of(stack).room_in_chat(chat, None)


def bot_says(
    emu: RunningEmulator, chat: int | str, check: Callable[[ChatMessage], bool]
) -> ChatMessage:
    return emu.wait_for_message(chat, lambda m: m.sender_id == BOT_ID and check(m))


def press(emu: RunningEmulator, stack: Stack, user: str, chat: int, token: str) -> str | None:
    """Tap the action `token` of the chat's table as it is now; the popup."""
    room = room_at(stack, chat)
    assert room is not None
    data = callbacks.encode(room.id, room.version, token)
    message = bot_says(emu, chat, lambda m: action_button(m, token) == data)
    answer = emu.tap(user, message, data).answer
    return answer.text if answer is not None else None


def open_game(emu: RunningEmulator, stack: Stack, creator: str, joiner: str | None) -> Room:
    """`creator` opens a table in the family group; `joiner` sits down, or a bot does."""
    emu.send_message(creator, GROUP, "/burro")
    emu.wait_for(lambda: room_at(stack, GROUP), what="the lobby")
    press(emu, stack, joiner or creator, GROUP, "J" if joiner else "B")
    emu.wait_for(lambda: len(seats(stack)) == 2 or None, what="a second player")
    press(emu, stack, creator, GROUP, "S")
    return emu.wait_for(lambda: playing(stack, GROUP), what="the game to start")


def seats(stack: Stack) -> list[Seat]:
    room = room_at(stack, GROUP)
    return list(room.seats) if room else []


def where_blocked(stack: Stack) -> list[int]:
    room = room_at(stack, GROUP)
    return room.blocked if room else []


def hand_of(emu: RunningEmulator, stack: Stack, room: Room, name: str) -> int:
    """The id of the player's hand message, once shown."""
    return emu.wait_for(lambda: shown(stack, room, f"hand:{IDS[name]}"), what=f"{name}'s hand")


def playing(stack: Stack, chat: int) -> Room | None:
    room = room_at(stack, chat)
    return room if room is not None and room.status == "playing" else None


def shown(stack: Stack, room: Room, target: str) -> int | None:
    """The id of the message the outbox keeps for a target, once no change waits."""
    client = store_of(stack).redis
    if indexes.score(client, PENDING_SYNC, f"{room.id}|{target}") is not None:
        return None
    found = client.hget(f"game:{{{room.id}}}:msgs", target)
    return int(found) if found else None


def showing(emu: RunningEmulator, chat: int | str, message_id: int, text: str) -> bool:
    return emu.message(chat, message_id).text == text


def cancel(emu: RunningEmulator, stack: Stack, user: str) -> None:
    room = room_at(stack, GROUP)
    assert room is not None
    emu.send_message(user, GROUP, "/cancel")
    confirm = bot_says(emu, GROUP, lambda m: room.id in str(action_button(m, "K")))
    data = action_button(confirm, "K")
    assert data is not None
    emu.tap(user, confirm, data)
    emu.wait_for(lambda: room_at(stack, GROUP) is None or None, what="the cancel")
    emu.wait_for(lambda: emu.message(GROUP, confirm.message_id).deleted, what="the question gone")


def links(message: ChatMessage) -> list[str]:
    return [str(b.value) for row in message.buttons for b in row if b.kind == "url"]


def replies_to(message: ChatMessage, asked: ChatMessage) -> bool:
    return bool(message.raw.get("reply_to_message", {}).get("message_id") == asked.message_id)


def webhook_answer(stack: Stack, update: dict[str, Any]) -> dict[str, Any]:
    """Post an update to serve as Telegram would; the method in its answer."""
    response = httpx.post(
        f"{stack.serve_url}/telegram/webhook",
        json=update,
        headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
        timeout=30,
    )
    assert response.status_code == 200
    answer: dict[str, Any] = response.json()
    return answer


# ----- /burro and the private chat --------------------------------------------------


def test_burro_leads_to_the_cards_and_the_word_goes_once_the_chat_is_open(
    emu: RunningEmulator, stack: Stack
) -> None:
    asked = emu.send_message("Dan", GROUP, "/burro")  # Dan never opened the bot's chat
    room = emu.wait_for(lambda: room_at(stack, GROUP), what="the lobby")
    link = f"https://t.me/burro_bot?start=g{room.id}"
    invite = bot_says(emu, GROUP, lambda m: replies_to(m, asked) and link in links(m))
    emu.open_link("Dan", link)  # in the lobby: the cards come when it starts
    lobby_word = Translator("id").gettext(
        "You are at the table: your cards will come here when it starts."
    )
    bot_says(emu, "Dan", lambda m: m.text == lobby_word)
    emu.block_bot("Dan")  # and then he closed it again: his hand is refused
    press(emu, stack, "Dan", GROUP, "B")
    press(emu, stack, "Dan", GROUP, "S")
    said = Translator("id").gettext(
        "{name}, I cannot send you your cards: open a private chat with @{bot} and press "
        "Start, then tap “🃏 My cards” here.",
        name="Dan",
        bot="burro_bot",
    )
    word = bot_says(emu, GROUP, lambda m: m.text == said)
    emu.wait_for(lambda: IDS["Dan"] in where_blocked(stack), what="Dan's hand refused")
    emu.wait_for(
        lambda: store_of(stack).redis.hget(blocked.notices_key(room.id), str(IDS["Dan"])),
        what="the outbox keeping where its word is",
    )
    emu.unblock_bot("Dan")
    emu.start("Dan")
    emu.wait_for(lambda: emu.message(GROUP, word.message_id).deleted, what="the word deleted")
    assert not invite.deleted and not emu.message(GROUP, invite.message_id).deleted
    hand = hand_of(emu, stack, room, "Dan")
    assert emu.message("Dan", hand).sender_id == BOT_ID
    assert IDS["Dan"] not in (room_at(stack, GROUP) or room).blocked
    cancel(emu, stack, "Dan")


def test_burro_again_offers_a_player_their_cards(emu: RunningEmulator, stack: Stack) -> None:
    room = open_game(emu, stack, "Ana", "Ben")
    asked = emu.send_message("Ben", GROUP, "/burro")
    again = bot_says(emu, GROUP, lambda m: replies_to(m, asked))
    assert f"https://t.me/burro_bot?start=g{room.id}" in links(again)
    assert "/cancel" in again.text
    cancel(emu, stack, "Ana")


# ----- /cancel ----------------------------------------------------------------------


def test_an_admin_cancels_and_every_hand_says_so_without_buttons(
    emu: RunningEmulator, stack: Stack
) -> None:
    room = open_game(emu, stack, "Ben", "Carla")  # Ana owns the group: an admin
    hands = {name: hand_of(emu, stack, room, name) for name in ("Ben", "Carla")}
    old = callbacks.encode(room.id, room.version, "d")  # as a hand's Draw button
    asked = emu.send_message("Ana", GROUP, "/cancel")
    question = bot_says(emu, GROUP, lambda m: replies_to(m, asked))
    keep = action_button(question, "k")
    assert keep is not None
    emu.tap("Ana", question, keep)  # no: the question goes, the game goes on
    emu.wait_for(lambda: emu.message(GROUP, question.message_id).deleted, what="it gone")
    assert playing(stack, GROUP) is not None
    cancel(emu, stack, "Ana")
    for name, message_id in hands.items():
        said = Translator(LANGS[name]).gettext("🫏 This game of Burro was cancelled.")
        emu.wait_for(lambda: showing(emu, name, message_id, said), what="the word")  # noqa: B023
        assert emu.message(name, message_id).buttons == ()
    press_update = {
        "update_id": 900_000_001,
        "callback_query": {
            "id": "9001",
            "from": {"id": IDS["Ben"], "is_bot": False, "first_name": "Ben", **PT_BR},
            "chat_instance": "1",
            "data": old,
            "message": {
                "message_id": hands["Ben"],
                "date": 0,
                "chat": {"id": IDS["Ben"], "type": "private", "first_name": "Ben"},
                "from": {"id": BOT_ID, "is_bot": True, "first_name": "Burro"},
                "text": "…",
            },
        },
    }
    answer = webhook_answer(stack, press_update)
    assert answer["method"] == "answerCallbackQuery" and answer["show_alert"]
    assert answer["text"] == Translator("pt_BR").gettext("The game was cancelled.")


# ----- /language --------------------------------------------------------------------


def test_a_new_language_shows_at_once_in_a_running_game(emu: RunningEmulator, stack: Stack) -> None:
    room = open_game(emu, stack, "Carla", "Ana")
    hand = hand_of(emu, stack, room, "Carla")
    table = emu.wait_for(lambda: shown(stack, room, "table"), what="the table")
    assert "Your cards" in emu.message("Carla", hand).text
    emu.send_message("Carla", "Carla", "/language es")
    emu.wait_for(lambda: seats(stack)[0].lang == "es", what="her seat in Spanish")
    fresh = room_at(stack, GROUP)
    assert fresh is not None
    painter = games.painter(fresh, "es")
    hints.give(store_of(stack), fresh, painter, fresh.seats[0].user_id)  # as the outbox does
    emu.wait_for(
        lambda: showing(emu, "Carla", hand, spans.plain(painter.hand(0).text)), what="her hand"
    )
    emu.wait_for(
        lambda: showing(emu, GROUP, table, spans.plain(painter.table().text)), what="the table"
    )
    assert "Tus cartas" in emu.message("Carla", hand).text
    cancel(emu, stack, "Carla")
    emu.send_message("Carla", "Carla", "/language en")


# ----- plain messages in private ----------------------------------------------------


def test_a_plain_private_message_gets_a_hint_now_and_then(
    emu: RunningEmulator, stack: Stack
) -> None:
    hint = Translator("pt_BR").gettext(
        "🫏 I understand commands only: send /play to play against bots, or /help."
    )
    emu.send_message("Ben", "Ben", "oi")
    bot_says(emu, "Ben", lambda m: m.text == hint)
    emu.send_message("Ben", "Ben", "tudo bem?")
    emu.send_message("Ben", "Ben", "/help")  # answered after the message before it
    bot_says(emu, "Ben", lambda m: "/play" in m.text and "/rules" in m.text)
    assert [m.text for m in emu.messages_in("Ben")].count(hint) == 1


# ----- the command menus ------------------------------------------------------------


def menu(emu: RunningEmulator, scope: str, language: str | None = None) -> dict[str, str]:
    body: dict[str, Any] = {"scope": {"type": scope}}
    if language:
        body["language_code"] = language
    answer = httpx.post(f"{emu.api_url}/bot{TOKEN}/getMyCommands", json=body, timeout=10)
    return {c["command"]: c["description"] for c in answer.json()["result"]}


def test_serve_sets_the_command_menus_per_chat_and_language(
    emu: RunningEmulator, stack: Stack
) -> None:
    group_es, private_en = menu(emu, "all_group_chats", "es"), menu(emu, "all_private_chats")
    assert group_es["burro"] == "abrir una mesa aquí" and "play" not in group_es
    assert private_en["play"] == "play against bots" and "burro" not in private_en
    assert menu(emu, "all_private_chats", "pt")["play"] == "jogar contra bots"
    assert menu(emu, "all_group_chats", "id")["cancel"] == "akhiri permainan yang terbuka"


# ----- cuartetos' pace --------------------------------------------------------------


def test_cuartetos_is_slow_in_a_group_and_live_against_bots(
    emu: RunningEmulator, stack: Stack
) -> None:
    emu.send_message("Ana", COUSINS, "/burro cuartetos")
    group = emu.wait_for(lambda: room_at(stack, COUSINS), what="the lobby")
    rules = table_games.rules_of(group.settings)
    assert isinstance(rules, CuartetosRules)
    assert (rules.pass_window, rules.response_window) == FAMILY_PACE
    emu.send_message("Ana", "Ana", "/play cuartetos")
    private = emu.wait_for(lambda: room_at(stack, IDS["Ana"]), what="her table")
    rules = table_games.rules_of(private.settings)
    assert isinstance(rules, CuartetosRules)
    assert rules.pass_window <= 60
