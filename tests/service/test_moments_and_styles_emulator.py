"""Deadlines and button styles through the real python-telegram-bot and the local
Telegram: a group game's turn deadline read by relatives in two time zones (the group's
table and the mover's own hand), the card buttons styled; and the local Telegram
refusing the button styles Telegram refuses, in its words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from cli.stack import TOKEN
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage
from emulator.telegram.formatting import utf16_slice
from engine.follow_suit.game import GameState, to_move
from service.i18n import Translator
from service.table.room import Room
from service.ui.clock import when
from tests.emulator.conftest import BotApiClient
from tests.service.group_play import open_lobby, play_inline, tap_lobby
from tests.service.inproc import Hook, LocalEmulator
from tests.service.play import BOT_ID, GROUP, game_buttons, room_in
from tests.service.whatsapp.play import act, outgoing
from tests.service.whatsapp.test_family_table import lobby_offering, player_id
from tests.service.whatsapp.test_mixed_table import LINK

PRIVATE_USE = re.compile("[\ue000-\ue002]")
ZONES = {"Ben": "Asia/Jakarta", "Carla": "America/Sao_Paulo", "Dan": "Europe/Madrid"}


def as_seen(emu: RunningEmulator, chat: str, user: str) -> list[ChatMessage]:
    """The chat as the user's app shows it (date_time entities in their zone), read
    over the control API: the in-process driver's quicker read leaves the viewer out."""
    read = super(LocalEmulator, emu)._get if isinstance(emu, LocalEmulator) else emu._get
    views = read("/messages", chat=chat, user=user)
    return [ChatMessage.from_view(v) for v in views]


def local(at: float, zone: str) -> str:
    return datetime.fromtimestamp(at, ZoneInfo(zone)).strftime("%H:%M")


def deadline_entity(message: ChatMessage) -> dict[str, Any] | None:
    found = [e for e in message.raw.get("entities", []) if e["type"] == "date_time"]
    return found[0] if found else None


def started(hook: Hook) -> Room:
    """A group game of Spanish Burro of four, on the turn of one of the three who opened
    the bot's chat (Ana, who never did, plays her first turn through the inline query)."""
    emu = hook.emu
    for user in ZONES:  # their hands come to their own chats
        emu.start(user)
        emu.wait_for(lambda: emu.last_message(user), what=f"{user} greeted")  # noqa: B023
    group = open_lobby(emu, hook, "spanish")
    tap_lobby(emu, "Ana", "S")
    room = emu.wait_for(lambda: playing(hook, group), what="the game dealt")
    if mover(room) == "Ana":
        play_inline(emu, "Ana", room.id, room.version)
        room = emu.wait_for(lambda: moved_on(hook, group, room.version), what="Ana's move")
    return room


def playing(hook: Hook, group: int) -> Room | None:
    room = room_in(hook, group)
    return room if room.status == "playing" and room.deadline is not None else None


def moved_on(hook: Hook, group: int, version: int) -> Room | None:
    room = room_in(hook, group)
    fresh = room.version > version and room.deadline is not None
    return room if fresh and mover(room) != "Ana" else None


def mover(room: Room) -> str:
    assert isinstance(room.game, GameState)
    seat = to_move(room.game)
    assert seat is not None
    return room.seats[seat].name


def test_a_deadline_in_each_reader_s_zone(hook: Hook) -> None:
    emu = hook.emu
    room = started(hook)
    due, name = room.deadline, mover(room)
    assert due is not None
    words = when(due, room.settings.timezone, Translator(hook.runtime().svc.room_lang(room)))
    for user, zone in ZONES.items():
        emu.set_time_zone(user, zone)

    def table() -> ChatMessage | None:
        """The group's newest message with the deadline (a word may have come after it)."""
        found = [m for m in emu.messages_in(GROUP) if m.sender_id == BOT_ID and not m.deleted]
        for message in reversed(found):
            entity = deadline_entity(message)
            if entity is not None and entity["unix_time"] == int(due):
                return message
        return None

    shown = emu.wait_for(table, what="the group's table with the turn's deadline")
    entity = deadline_entity(shown)
    assert entity is not None
    assert utf16_slice(shown.text, entity["offset"], entity["length"]) == words
    assert f"{name}, " in shown.text[: entity["offset"]].rsplit("\n", 1)[-1]  # its line
    for user, zone in ZONES.items():
        view = next(m for m in as_seen(emu, GROUP, user) if m.message_id == shown.message_id)
        assert view.text_view == shown.text.replace(words, local(due, zone)), user
    assert len({local(due, zone) for zone in ZONES.values()}) == 3  # three different times

    def hand() -> ChatMessage | None:
        last = emu.last_message(name)
        mark = f".{room.phase_version}."
        current = [b for b in game_buttons(last) if mark in str(b.value)]
        return last if current and last is not None and deadline_entity(last) else None

    own = emu.wait_for(hand, what=f"{name}'s hand with the deadline")
    entity = deadline_entity(own)
    assert entity is not None and entity["unix_time"] == int(due)
    assert words in own.text
    view = as_seen(emu, name, name)[-1]
    assert view.text_view == own.text.replace(words, local(due, ZONES[name]))
    styles = {
        b["text"]: b.get("style") for row in own.raw["reply_markup"]["inline_keyboard"] for b in row
    }
    cards = {b.text for b in game_buttons(own) if ".p" in str(b.value)}
    assert cards and all(styles[c] == "success" for c in cards)
    assert all(style is None for label, style in styles.items() if label not in cards)
    nudged(hook, room, words)


def nudged(hook: Hook, room: Room, words: str) -> None:
    """The turn's reminder in the group says until when, in each reader's zone."""
    emu, worker, due = hook.emu, hook.worker, room.deadline
    assert worker is not None and due is not None
    worker.reach(room.reminder_at())

    def nudge() -> ChatMessage | None:
        for message in reversed(emu.messages_in(GROUP)):
            entity = deadline_entity(message) if message.sender_id == BOT_ID else None
            if entity is not None and "⏰" in message.text and entity["unix_time"] == int(due):
                return message
        return None

    said = emu.wait_for(nudge, what="the group's reminder with the deadline")
    assert words in said.text
    for user, zone in ZONES.items():
        view = next(m for m in as_seen(emu, GROUP, user) if m.message_id == said.message_id)
        assert view.text_view == said.text.replace(words, local(due, zone)), user


# ----- WhatsApp: the words, never a mark ---------------------------------------------


def test_a_whatsapp_family_table_says_its_deadlines_in_words(hook: Hook) -> None:
    """A family's table opened on WhatsApp (Abuela, Vovó and a bot): the player to move
    is told until when in words, in the table's zone; no message to either of them
    holds a private-use character (a mark's) anywhere."""
    wa = hook.emu.whatsapp
    wa.send("Abuela", "familia")
    told = wa.wait_for(
        lambda: next((m for m in outgoing(wa, "Abuela") if "wa.me" in m.text), None),
        what="the links to share",
    )
    found = LINK.search(told.text)
    assert found is not None
    code = re.sub(r"^\S+%20", "", found[2])  # the words before it are the link's
    wa.send("Vovó", f"entrar {code}")
    host = player_id(hook, "Abuela")
    hook.emu.wait_for(lambda: len(room_in(hook, host).seats) == 2 or None, what="Vovó seated")
    lobby = lobby_offering(wa, "Abuela", "🤖 Añadir bot", 0)
    act(wa, "Abuela", lobby, "🤖 Añadir bot")
    hook.emu.wait_for(lambda: len(room_in(hook, host).seats) == 3 or None, what="a bot seated")
    act(wa, "Abuela", lobby_offering(wa, "Abuela", "▶️ Empezar", lobby.seq), "▶️ Empezar")
    room = hook.emu.wait_for(lambda: playing(hook, host), what="a human's turn")
    assert isinstance(room.game, GameState)
    seat = to_move(room.game)
    assert seat is not None and room.deadline is not None
    person = "Abuela" if room.seats[seat].user_id == host else "Vovó"
    words = when(room.deadline, room.settings.timezone, Translator(room.seats[seat].lang))
    wa.wait_for(
        lambda: any(words in m.text for m in outgoing(wa, person)),
        what=f"{person} told until {words}",
    )
    for user in ("Abuela", "Vovó"):
        for message in outgoing(wa, user):
            said = [message.text, message.header or "", message.footer or ""]
            said += [b.title for b in message.buttons] + [r.title for r in message.rows]
            assert not PRIVATE_USE.search("".join(said)), message


# ----- the local Telegram refuses what Telegram refuses ---------------------------------


@pytest.fixture
def api(emu: RunningEmulator) -> Iterator[BotApiClient]:
    client = BotApiClient(emu.url, TOKEN)
    client.ok("getMe")
    yield client
    client.close()


def keyboard(**button: Any) -> dict[str, Any]:
    return {"inline_keyboard": [[{"text": "7♥", "callback_data": "x", **button}]]}


def test_a_button_style_telegram_does_not_know_is_refused(api: BotApiClient) -> None:
    """Telegram's words (telegram-bot-api's Client.cpp, get_button_style): not a guess."""
    for wrong in ("secondary", "link", "green", 3):
        code, said = api.error(
            "sendMessage", chat_id=-1001000000001, text="x", reply_markup=keyboard(style=wrong)
        )
        assert (code, said) == (
            400,
            "Bad Request: can't parse inline keyboard button: invalid button style specified",
        )
    reply = {"keyboard": [[{"text": "hi", "style": "loud"}]]}
    said = api.error("sendMessage", chat_id=-1001000000001, text="x", reply_markup=reply)[1]
    assert said == "Bad Request: can't parse keyboard button: invalid button style specified"
    said = api.error(
        "sendMessage", chat_id=-1001000000001, text="x", reply_markup=keyboard(style={})
    )[1]
    assert (
        said
        == 'Bad Request: can\'t parse inline keyboard button: Field "style" must be of type String'
    )


def test_the_styles_telegram_takes_are_kept_on_the_message(api: BotApiClient) -> None:
    """The three colours (in any case, as Telegram reads them) stay on the message's
    button; none, "" and "default" are the app's own look."""
    for given, kept in (
        ("success", "success"),
        ("DANGER", "danger"),
        ("Primary", "primary"),
        ("default", None),
        ("", None),
        (None, None),
    ):
        markup = keyboard() if given is None else keyboard(style=given)
        sent = api.ok("sendMessage", chat_id=-1001000000001, text="x", reply_markup=markup)
        button = sent["reply_markup"]["inline_keyboard"][0][0]
        assert button.get("style") == kept, given
        assert next(iter(button)) == "text" and list(button)[1] == "callback_data"
