"""The finishing touches without Redis or Telegram: cuartetos' pace by where it is
played, the environment's target for new tables, a new language on a running table, and
the command menus."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from engine.cuartetos import CuartetosRules
from service.i18n import Translator
from service.platforms.telegram import menu
from service.settings import Settings
from service.table import games as table_games
from service.table import lobby
from service.table.cuartetos.lobby import FAMILY_PACE
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from service.ui import games

ANA, BEN = Actor(1, "Ana", "es"), Actor(2, "Ben", "pt_BR")
SETTINGS = Settings(telegram_token=SecretStr("1:x"))


def windows(options: dict[str, object]) -> tuple[float, float]:
    rules = table_games.rules_of(RoomSettings(preset="cuartetos", options=options))
    assert isinstance(rules, CuartetosRules)
    return rules.pass_window, rules.response_window


def test_cuartetos_starts_slow_in_a_group_and_live_in_private() -> None:
    assert windows(table_games.initial_options("cuartetos", SETTINGS)) == FAMILY_PACE
    assert FAMILY_PACE[0] >= 3600 and 60 <= FAMILY_PACE[1] <= 3600  # hours, then minutes
    assert windows(table_games.initial_options("cuartetos", SETTINGS, group=False)) == (30.0, 10.0)
    short = Settings(telegram_token=SecretStr("1:x"), pass_window=6.0, response_window=2.5)
    assert windows(table_games.initial_options("cuartetos", short)) == (6.0, 2.5)  # tests' windows
    assert table_games.initial_options("spanish", SETTINGS) == {}


@pytest.mark.parametrize("preset", ["spanish", "brazilian", "cangkul", "cuartetos"])
@pytest.mark.parametrize("group", [True, False])
def test_new_tables_end_at_the_environments_target(preset: str, group: bool) -> None:
    short = Settings(telegram_token=SecretStr("1:x"), game_target=2)
    options = table_games.initial_options(preset, short, group=group)
    assert options["target"] == 2
    assert table_games.rules_of(RoomSettings(preset=preset, options=options)).target == 2
    assert "target" not in table_games.initial_options(preset, SETTINGS, group=group)


@pytest.mark.parametrize("target", [0, 6, -1])
def test_a_target_no_game_can_take_is_refused(target: int) -> None:
    with pytest.raises(ValidationError, match="game_target"):
        Settings(telegram_token=SecretStr("1:x"), game_target=target)


def test_a_reminder_comes_before_a_family_table_times_out() -> None:
    assert RoomSettings().reminder_after < FAMILY_PACE[0]


def cuartetos_by_settings(private: bool) -> Room:
    room = lobby.create_room(-5 if not private else 1, None, ANA, 0.0, private=private)
    while room.settings.preset != "cuartetos":
        lobby.change_setting(room, ANA, "preset")
    return room


def test_cuartetos_chosen_in_settings_takes_the_pace_of_its_chat() -> None:
    assert windows(cuartetos_by_settings(private=False).settings.options) == FAMILY_PACE
    assert windows(cuartetos_by_settings(private=True).settings.options) == (30.0, 10.0)


def test_a_new_language_relabels_the_seat_and_keeps_the_buttons_good() -> None:
    room = lobby.create_room(-5, None, ANA, 0.0)
    lobby.join(room, BEN)
    lobby.add_bot(room, ANA)
    assert lobby.start(room, ANA, 0.0).changed
    version = room.version
    outcome = lobby.relabel(room, BEN.user_id, "id")
    assert outcome.changed and outcome.sync == {"table", f"hand:{BEN.user_id}"}
    assert room.seats[1].lang == "id" and room.version == version
    assert not lobby.relabel(room, BEN.user_id, "id").changed  # the same again: nothing
    assert not lobby.relabel(room, 99, "en").changed  # not at the table
    room.status = "over"
    assert not lobby.relabel(room, ANA.user_id, "en").changed  # a finished game stays


def test_the_menus_cover_both_chats_in_every_language() -> None:
    calls = menu.menus()
    assert len(calls) == len(menu.SCOPES) * len(menu.MENU_LANGUAGES)
    for call in calls:
        lang = menu.MENU_LANGUAGES[call.get("language_code")]
        for command in call["commands"]:
            assert 1 <= len(command["description"]) <= 256
            if lang != "en":  # every description translated
                english = dict(dict(menu.SCOPES)[call["scope"]["type"]])[command["command"]]
                assert command["description"] == Translator(lang).gettext(english) != english


def test_a_cancelled_game_tells_every_hand_and_leaves_no_button() -> None:
    from service.table.lobby import cancel

    for preset in ("spanish", "cuartetos"):
        room = lobby.create_room(-5, None, ANA, 0.0, settings=RoomSettings(preset=preset))
        lobby.join(room, BEN)
        lobby.add_bot(room, ANA)
        assert lobby.start(room, ANA, 0.0).changed
        outcome = cancel(room, BEN, 1.0)  # neither its creator nor an admin
        assert not outcome.changed and outcome.popup is not None
        outcome = cancel(room, Actor(3, "Carla", "en", admin=True), 1.0)
        assert room.status == "cancelled"
        assert outcome.sync == {"table", f"hand:{ANA.user_id}", f"hand:{BEN.user_id}"}
        for seat, actor in enumerate((ANA, BEN)):
            hand = games.painter(room, actor.lang).hand(seat)
            said = Translator(actor.lang).gettext("🫏 This game of Burro was cancelled.")
            assert hand.text == said and hand.rows == ()
