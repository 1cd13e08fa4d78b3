"""The "💡 Tip" (issue #34), below the platforms: a button beside a hand with a choice
to make, where the table offers tips (always with bots, on a setting without); its
press answers with one sentence only the presser sees, in their language, naming the
card as their cards show it; asked in words too (`/tip`, `pista`, `dica`, `saran`)."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine.follow_suit import tip as follow_tips
from engine.kernel.tip import Tip
from service.desk.asks import Place, PressAsk, Reply, Request, Sender, TipAsk
from service.i18n import LANGUAGES, Translator
from service.platforms.telegram.answer import POPUP
from service.platforms.whatsapp import render, words
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings
from service.ui import cuartetos, follow_suit, games, tokens
from service.ui.intents import Command, Press
from service.ui.screens import Screen, TablePainter
from service.ui.text_limits import utf16_len
from tests.service.test_mistakes import PLAYER, Table, leading
from tests.ui.test_picture import ANA, BEN, new_room, played

TIP = Command("tip")


def tip_buttons(screen: Screen) -> list[Press]:
    return [
        b.intent
        for row in screen.rows
        for b in row
        if isinstance(b.intent, Press) and b.intent.what == TIP
    ]


def group_room(preset: str = "spanish", tips: bool = False, bot: bool = False) -> Room:
    """A group's table of Ana and Ben (and a bot), started."""
    room = lobby.create_room(-100, None, ANA, 0.0, settings=RoomSettings(preset=preset, tips=tips))
    lobby.join(room, BEN)
    if preset == "cuartetos":  # three players at least
        lobby.join(room, Actor(3, "Carla", "pt_BR"))
    if bot:
        lobby.add_bot(room, ANA)
    lobby.start(room, ANA, 0.0)
    assert room.status == "playing"
    return room


def acting(room: Room) -> int:
    seats = [s for s in range(len(room.seats)) if len(legal_of(room, s)) > 1]
    assert seats, "nobody has a choice to make"
    return seats[0]


def legal_of(room: Room, seat: int) -> list[str]:
    game = play.game(room)
    return game.legal_actions(room.game, seat) if seat in game.to_act(room.game) else []


@pytest.mark.parametrize("preset", ["spanish", "cangkul", "cuartetos"])
def test_a_table_of_people_offers_tips_only_once_it_asks(preset: str) -> None:
    room = group_room(preset)
    seat = acting(room)
    assert not room.tips_shown()
    assert not tip_buttons(games.painter(room, "en").hand(seat))
    on = group_room(preset, tips=True)
    assert tip_buttons(games.painter(on, "en").hand(acting(on)))
    with_bot = group_room(preset, bot=True)
    assert with_bot.tips_shown()
    assert tip_buttons(games.painter(with_bot, "en").hand(acting(with_bot)))


def test_the_tips_setting_is_changed_in_the_lobby_as_the_others() -> None:
    room = lobby.create_room(-100, None, ANA, 0.0)
    lobby.join(room, BEN)
    painter = games.painter(room, "en")
    assert "Tips: off" in painter.settings().text
    assert lobby.change_setting(room, ANA, "tips").changed
    assert room.settings.tips and "Tips: on" in games.painter(room, "en").settings().text
    assert not lobby.change_setting(room, BEN, "tips").changed  # only the opener's
    lobby.add_bot(room, ANA)
    assert "Tips: on, with bots at the table" in games.painter(room, "en").settings().text
    lobby.change_setting(room, ANA, "tips")
    after = room.settings  # (a fresh name: the type checker forgets the first answer)
    assert not after.tips and room.tips_shown()  # bots at the table: still on
    private = lobby.create_room(ANA.user_id, None, ANA, 0.0, private=True)
    assert "Tips" not in games.painter(private, "en").settings().text  # always bots there


@pytest.mark.parametrize("preset", list(games.PRESET_NAMES))
def test_every_preset_shows_the_tip_button_only_with_a_choice(preset: str) -> None:
    """A whole game against bots: the button under a hand exactly when its seat has
    more than one move; its press is a command of its own, the same on every wire; the
    drawn hand does not change for it (the widget's moves are the text's, tip aside)."""
    room = new_room(preset, private=True, players=4 if preset == "cuartetos" else 3)
    shown = 0
    for step, now in enumerate(played(room, seed=3)):
        if step % 5 or now.status != "playing":
            continue
        painter = games.painter(now, "en")
        choice = len(legal_of(now, 0)) > 1
        buttons = tip_buttons(painter.hand(0))
        assert bool(buttons) == choice
        if buttons:
            shown += 1
            assert tokens.press(tokens.text(buttons[0])) == buttons[0]
            text = painter.tip_text(0)
            assert text is not None and text.startswith("💡 ")
            assert utf16_len(text) <= POPUP
    assert shown


def test_the_tip_button_answers_with_the_tip_to_the_presser_alone() -> None:
    table = Table("es")
    table.walk_to(leading)
    room = table.room
    press = Press(room.id, room.version, TIP)
    reply = table.ask(PressAsk(press, tapped=True))
    painter = games.painter(room, "es")
    assert reply.popup == painter.tip_text(table.seat) and reply.alert
    assert reply.popup is not None and reply.popup.startswith("💡 Sal con ")
    assert not reply.lines
    assert table.room.version == room.version  # read only


def test_a_tip_asked_in_words_is_a_line_of_the_person_s_chat() -> None:
    table = Table("pt_BR")
    table.walk_to(leading)
    assert words.command_of("dica") == ("tip", "")
    reply = table.ask(TipAsk())
    said = games.painter(table.room, "pt_BR").tip_text(table.seat)
    assert said is not None and said.startswith("💡 Saia com ")
    assert [line.text for line in reply.lines] == [said]


def test_whatsapp_lists_the_tip_as_a_row_of_the_hand() -> None:
    table = Table("id")
    table.walk_to(leading)
    room = table.room
    screen = games.room_screen(room, games.painter(room, "id"))
    content = render.render(screen, "id")
    rows = [
        row
        for section in content["interactive"]["action"].get("sections", [])
        for row in section["rows"]
    ]
    buttons = content["interactive"]["action"].get("buttons", [])
    ids = [row["id"] for row in rows] + [b["reply"]["id"] for b in buttons]
    assert any(tokens.press(i) == Press(room.id, room.version, TIP) for i in ids)
    assert words.command_of("saran") == ("tip", "")


def test_a_tip_typed_in_a_group_goes_to_the_private_chat_and_a_press_stays_a_popup() -> None:
    table = Table("en")
    table.walk_to(leading)
    room = table.room
    sender = Sender(PLAYER, "Abuela", "en")
    place = Place(-100, None, False)

    def handled(mark: str, ask: TipAsk | PressAsk) -> Reply:
        request = Request(mark, sender, place, ask)
        return asyncio.run(table.desk.handle(request)).reply

    table.svc.store.remember_user(PLAYER, "Abuela", "en", started=True)
    pressed = handled("g1", PressAsk(Press(room.id, room.version, TIP), tapped=True))
    assert pressed.popup is not None and pressed.popup.startswith("💡 ") and not pressed.lines
    typed = handled("g2", TipAsk())
    assert typed.private and [line.text for line in typed.lines] == [pressed.popup]


def test_a_table_of_people_without_tips_says_so_and_a_seat_not_to_move_gets_none() -> None:
    """Asked in words at a group's table that offers no tips: said so; a seat with no
    move to choose gets no tip at a table that offers them."""
    table = Table("en")
    room = group_room("spanish")
    room.chat_id, room.seats[0].user_id = -200, PLAYER
    table.svc.store.create(room, Outcome(changed=True), None)
    sender, place = Sender(PLAYER, "Abuela", "en"), Place(-200, None, False)
    asked = asyncio.run(table.desk.handle(Request("t1", sender, place, TipAsk()))).reply
    said = "Tips are off at this table: its opener can turn them on in Settings."
    assert asked.private and [line.text for line in asked.lines] == [said]
    on = group_room("spanish", tips=True)
    painter = games.painter(on, "en")
    waiting = next(s for s in range(len(on.seats)) if not legal_of(on, s))
    assert painter.tip_text(acting(on)) is not None and painter.tip_text(waiting) is None


LONGEST = {"card": "Caballo de copas", "suit": "tréboles", "rank": "Caballo", "n": 3}


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_tip_is_worded_in_every_language_within_a_popup(lang: str) -> None:
    tr = Translator(lang)
    texts = [*follow_suit.TIP_WORDS.values(), *cuartetos.TIP_WORDS.values()]
    assert set(follow_suit.TIP_WORDS) == set(follow_tips.REASONS)
    for text in texts:
        said = tr.gettext(text, **LONGEST)
        assert said != text.format(**LONGEST), f"{lang}: {text!r} is not translated"
        assert not re.search(r"[{}]", said), said
        assert utf16_len("💡 " + said) <= POPUP, said


def test_a_tip_names_the_card_as_the_cards_show_it() -> None:
    room = group_room("spanish", tips=True)
    painter = games.painter(room, "es")
    assert isinstance(painter, TablePainter)
    said = painter.tip_words(Tip("play:QH", follow_tips.LEAD_LONG, "QH", "H"))
    assert (
        said
        == "Sal con Caballo de copas de tu palo más largo, copas: a los demás se les acaba antes."
    )
    french = group_room("cangkul", tips=True)
    painter = games.painter(french, "en")
    assert isinstance(painter, TablePainter)
    said = painter.tip_words(Tip("play:QH", follow_tips.FOLLOW_HIGH, "QH", "H"))
    assert said == "Play Q♥: high cards win tricks, and winning means leading."
