"""A table has a name: its group's title (kept from the group's updates), else its
host's ("Grandma's table"). A person who sits at more than one table reads it at the top
of each screen; a person at one table is not told what they know. Rooms saved before
tables had names load unnamed."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import fakeredis
import pytest
from telegram import Update

from service.infra import tables
from service.infra.store import Store, decode_room, encode_room
from service.platforms.telegram import titles
from service.services import Services
from service.table import groups, lobby
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from service.ui import games
from service.ui.screens import Screen, TablePainter, table_name, titled

GRANDMA = Actor(1, "Grandma", "en", platform="whatsapp")
BEN = Actor(2, "Ben", "en")
SAVED = json.loads((Path(__file__).parent / "rooms_before_the_table_core.json").read_text())


@pytest.fixture
def store() -> Store:
    return Store(fakeredis.FakeRedis(), 3600, 3600)


def group_room(title: str | None = None, preset: str = "spanish") -> Room:
    room = lobby.create_room(-100, None, BEN, time.time(), settings=RoomSettings(preset=preset))
    lobby.join(room, GRANDMA)
    if title is not None:
        groups.named(room, title)
    return room


def family_room(host: Actor = GRANDMA) -> Room:
    """A family's table opened from the host's own chat (WhatsApp's): no group."""
    return lobby.create_room(host.user_id, None, host, time.time())


def started(room: Room) -> Room:
    lobby.add_bot(room, BEN)
    outcome = lobby.start(room, Actor(room.creator, "", "en"), time.time())
    assert outcome.changed and room.status == "playing"
    return room


def painter(room: Room, lang: str = "en", named: bool = False) -> games.Screens:
    drawn = games.painter(room, lang)
    assert isinstance(drawn, TablePainter)
    drawn.named = named
    return drawn


@pytest.mark.parametrize("game", ["follow_suit", "cuartetos"])
def test_a_room_saved_before_names_loads_unnamed_and_keeps_a_name_once_given(game: str) -> None:
    room = Room.model_validate_json(json.dumps(SAVED[game]))
    assert room.name is None
    room.name = "Cousins"
    assert decode_room(encode_room(room)).name == "Cousins"
    unnamed = json.loads(room.model_copy(update={"name": None}).stored_json())
    assert "name" not in unnamed  # stored as before: an unnamed room's JSON is unchanged


def test_a_group_title_names_its_table_cleaned_and_without_a_new_version() -> None:
    room = group_room()
    version = room.version
    assert groups.named(room, "  Familia\u202e García\n ").changed
    assert room.name == "Familia García" and room.version == version
    assert not groups.named(room, "Familia García").changed  # the same title: no write
    assert not groups.named(room, "\u200b").changed  # nothing visible: the old one stays
    assert table_name(room, games.painter(room, "es").tr) == "Familia García"


def test_a_table_without_a_group_is_its_hosts_in_the_readers_language() -> None:
    room = family_room()
    assert table_name(room, games.painter(room, "en").tr) == "Grandma's table"
    assert table_name(room, games.painter(room, "es").tr) == "Mesa de Grandma"
    assert table_name(room, games.painter(room, "pt_BR").tr) == "Mesa de Grandma"
    private = lobby.create_room(2, None, BEN, time.time(), private=True)
    private.name = "ignored: a one-to-one game is its player's"
    assert table_name(private, games.painter(private, "id").tr) == "Meja Ben"


@pytest.mark.parametrize("preset", ["spanish", "cuartetos"])
def test_every_screen_names_its_table_only_for_a_reader_at_more_than_one(preset: str) -> None:
    room = started(group_room("Cousins", preset))
    seat = room.seat_of(GRANDMA.user_id)
    assert seat is not None
    for screen in (
        painter(room).hand(seat),
        painter(room).hand(seat, with_table=True),
    ):
        assert "Cousins" not in screen.text
    for screen in (
        painter(room, named=True).hand(seat),
        painter(room, named=True).hand(seat, with_table=True),
    ):
        assert screen.text.split("\n", 1)[0].endswith("Cousins"), screen.text
    assert "Cousins" not in painter(room).table().text  # the group's own table


def test_a_lobby_in_its_hosts_chat_says_what_they_wait_for_not_tap_join() -> None:
    home = painter(family_room()).lobby().text
    assert "Tap Join" not in home and "You are seated" in home
    assert "Tap Join" in painter(lobby.create_room(-5, None, BEN, time.time())).lobby().text
    es = games.painter(family_room(), "es").lobby().text
    assert "Ya estás sentado" in es and "Toca" not in es, es


def test_the_open_tables_a_person_sits_at(store: Store) -> None:
    family, group = family_room(), group_room("Cousins")
    for room in (family, group):
        assert store.create(room, lobby.changed(room), None)
    assert {r.id for r in tables.open_tables(store, GRANDMA.user_id)} == {family.id, group.id}
    assert tables.elsewhere(store, GRANDMA.user_id, family.id)
    assert not tables.elsewhere(store, BEN.user_id, group.id)  # Ben sits at one
    store.update(group.id, lambda r: lobby.leave(r, GRANDMA))
    assert not tables.elsewhere(store, GRANDMA.user_id, family.id)  # she left it


def group_update(title: str, text: str = "/burro") -> Update:
    """A message in the group, as Telegram posts it (its chat's title with it)."""
    chat = {"id": -100, "type": "supergroup", "title": title}
    sender = {"id": BEN.user_id, "is_bot": False, "first_name": "Ben"}
    message = {"message_id": 7, "date": 0, "chat": chat, "from": sender, "text": text}
    return Update.de_json({"update_id": 1, "message": message}, None)


def test_a_group_renamed_names_its_table_anew_with_its_next_update(store: Store) -> None:
    room = group_room("Family")
    assert store.create(room, lobby.changed(room), None)
    svc = cast(Services, SimpleNamespace(store=store))
    asyncio.run(titles.note_title(svc, group_update("Family 🏡")))
    renamed = store.load(room.id)
    assert renamed is not None and renamed.name == "Family 🏡"
    assert renamed.version == room.version  # its buttons still count
    asyncio.run(titles.note_title(svc, group_update("\u2067")))  # nothing to show: kept
    assert (store.load(room.id) or room).name == "Family 🏡"


def test_a_word_said_to_one_player_opens_with_its_tables_name() -> None:
    said = Screen("🤖 7 of coins was played for you.")
    room = family_room()
    assert titled(said, room, games.painter(room, "es").tr).text == (
        "🫏 Mesa de Grandma\n🤖 7 of coins was played for you."
    )
