"""Fast unit tests of the service's pure parts: button data, lobby rules, settings,
quiet hours, and screens built from views (no Redis, no Telegram)."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.follow_suit.game import GameState, legal_actions, to_move
from engine.follow_suit.rules import Rules
from service.platforms.telegram import callbacks
from service.table import follow_suit, lobby, play
from service.table import games as table_games
from service.table.lobby import Actor
from service.table.quiet import quiet_until
from service.table.room import KEY_BITS, LEGACY_KEY_LIMIT, Room, RoomSettings, Status
from service.ui import news
from service.ui.follow_suit import FollowSuitPainter
from service.ui.intents import ShowCards

ANA, BEN, CARLA = Actor(1, "Ana", "es"), Actor(2, "Ben", "pt_BR"), Actor(3, "Carla", "en")


def status_of(room: Room) -> Status:
    """The room's status as it is now (mypy would keep an earlier check's narrowing)."""
    return room.status


def follow_suit_rules(room: Room) -> Rules:
    """The room's rule set, of a follow-suit preset."""
    rules = table_games.rules_of(room.settings)
    assert isinstance(rules, Rules)
    return rules


def test_button_data_fits_64_bytes_for_every_action() -> None:
    for action in ["draw", "draw:left", "draw:right", "pass", "play:10H", "play:JK"]:
        data = callbacks.encode("abcdefgh", 999_999_999, callbacks.game_token(action))
        assert len(data.encode()) <= 64
        press = callbacks.decode(data)
        assert press is not None and callbacks.game_action(press.action) == action


@given(st.text(max_size=80))
def test_junk_button_data_is_refused(data: str) -> None:
    press = callbacks.decode(data)
    if press is not None:
        assert callbacks.encode(press.room, press.version, press.action) == data


def test_lobby_rules() -> None:
    room = lobby.create_room(-5, None, ANA, 0.0)
    assert lobby.start(room, ANA, 0.0).popup is not None and room.status == "lobby"  # alone
    assert lobby.join(room, BEN).changed and not lobby.join(room, BEN).changed
    assert lobby.start(room, CARLA, 0.0).popup is not None  # not the creator
    assert lobby.change_setting(room, BEN, "preset").changed is False
    assert lobby.leave(room, BEN).changed and room.seat_of(2) is None
    for _ in range(7):
        lobby.add_bot(room, ANA)
    assert len(room.seats) == 8 and not lobby.add_bot(room, ANA).changed  # full
    assert len({s.name for s in room.seats}) == 8
    assert lobby.remove_bot(room, ANA).changed and len(room.seats) == 7
    outcome = lobby.start(room, Actor(9, "Admin", "en", admin=True), 0.0)
    assert status_of(room) == "playing" and outcome.jobs


def test_settings_cycle_and_skip_what_cannot_be_played() -> None:
    room = lobby.create_room(-5, None, ANA, 0.0)
    seen = set()
    for _ in range(len(follow_suit.TIMEOUTS)):
        lobby.change_setting(room, ANA, "timeout")
        seen.add(room.settings.turn_timeout)
    assert seen == set(follow_suit.TIMEOUTS)
    for key in (
        "preset",
        "hand",
        "target",
        "empty",
        "end",
        "suits",
        "remind",
        "lang",
        "bot",
        "quiet",
        "tz",
        "ontimeout",
    ):
        for _ in range(9):
            assert lobby.change_setting(room, ANA, key).changed
            table_games.rules_of(room.settings)  # always a playable rule set
    assert not lobby.change_setting(room, ANA, "wings").changed


def test_hand_end_setting_brings_its_scoring_and_the_settings_say_so() -> None:
    room = lobby.create_room(-5, None, ANA, 0.0, settings=RoomSettings(preset="cangkul"))
    assert follow_suit_rules(room).scoring == "wins"
    lobby.change_setting(room, ANA, "end")
    rules = follow_suit_rules(room)
    assert (rules.hand_end, rules.scoring) == ("last_holder_loses", "penalty")
    text = FollowSuitPainter(room, "en").settings().text
    assert "5 points lose" in text
    lobby.change_setting(room, ANA, "end")
    assert follow_suit_rules(room).scoring == "wins"


@pytest.mark.parametrize(
    ("utc_hour", "quiet"), [(20, False), (22, True), (3, True), (7, False), (12, False)]
)
def test_quiet_hours_in_the_group_time_zone(utc_hour: int, quiet: bool) -> None:
    settings = RoomSettings(quiet_hours=(22, 8), timezone="Europe/Madrid")  # UTC+1 in winter
    now = datetime(2026, 11, 29, utc_hour, 30, tzinfo=UTC).timestamp()
    until = quiet_until(settings, now)
    assert (until is not None) == quiet
    if until is not None:
        assert datetime.fromtimestamp(until, UTC).hour == 7  # 08:00 in Madrid


@pytest.mark.parametrize("preset", ["spanish", "cangkul", "burro_em_pe"])
@pytest.mark.parametrize("lang", ["en", "es", "pt_BR", "pt_PT", "id"])
def test_screens_show_no_hidden_card(preset: str, lang: str) -> None:
    room = lobby.create_room(-5, None, ANA, 0.0, settings=RoomSettings(preset=preset))
    lobby.join(room, BEN)
    lobby.join(room, CARLA)
    lobby.start(room, ANA, 0.0)
    rnd = random.Random(7)
    for _ in range(120):
        assert isinstance(room.game, GameState)
        seat = to_move(room.game)
        if seat is None:
            break
        painter = FollowSuitPainter(room, lang)
        table = painter.table().text
        for other in range(3):
            hidden = room.game.hand.hands[other] & ~room.game.hand.known[other]
            cards = {painter.card(c) for c in room.game.table.codec.codes(hidden)}
            assert not any(f" {card}" in table or f"{card} " in table for card in cards)
            for viewer in range(3):
                if viewer != other:
                    shown = painter.hand(viewer)
                    labels = {b.label for row in shown.rows for b in row}
                    assert not labels & cards
        play.act(room, seat, rnd.choice(legal_actions(room.game, seat)), 0.0, 0.0)


def test_my_cards_button_opens_this_rooms_inline_query() -> None:
    room = lobby.create_room(-5, None, ANA, 0.0)
    lobby.join(room, BEN)
    lobby.start(room, ANA, 0.0)
    buttons = [b for row in FollowSuitPainter(room, "en").table().rows for b in row]
    assert any(b.intent == ShowCards(room.id) for b in buttons)


def test_a_room_key_is_secret_sized_and_a_legacy_one_is_replaced_on_load() -> None:
    room = lobby.create_room(-5, None, ANA, 0.0)
    assert room.seed.bit_length() == KEY_BITS
    lobby.join(room, BEN)
    lobby.start(room, ANA, 0.0)
    assert room.game is not None and room.game.seed == room.seed
    hand = room.game.hand
    room.seed = 123_456  # as stored before keys were 128 bits (possibly learnt)
    room.game = replace(room.game, seed=123_456)
    loaded = Room.model_validate_json(room.model_dump_json())
    assert loaded.seed >= LEGACY_KEY_LIMIT and loaded.game is not None
    assert loaded.game.seed == loaded.seed  # the hands to come are dealt from the new key
    assert loaded.game.hand == hand  # the hand in play is left as dealt
    again = Room.model_validate_json(loaded.model_dump_json())
    assert again.seed == loaded.seed  # replaced once: a saved key stays


@pytest.mark.parametrize(
    ("why", "action", "words"),
    [
        ("timeout", "draw:left", "your turn was played for you"),
        ("only", "draw:right", "You had only one move"),
        ("only", "draw", "You had only one move"),
        ("timeout", "pass", "your turn was played for you"),
        ("timeout", "play:7H", "7♥ was played for you"),
        ("only", "play:7H", "7♥ was your only card"),
    ],
)
def test_a_move_played_for_a_player_is_said_right(why: str, action: str, words: str) -> None:
    """The tent's halves (`draw:left`) are no card: found by the chaos soak, where the
    word for a timed-out draw could not be made and never went out."""
    room = lobby.create_room(-5, None, ANA, 0.0, settings=RoomSettings(preset="burro_em_pe"))
    lobby.join(room, BEN)
    lobby.start(room, ANA, 0.0)
    assert words in news.said(room, "en", why, action).text
