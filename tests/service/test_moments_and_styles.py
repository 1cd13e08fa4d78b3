"""Deadlines as moments and buttons with tones, as each platform draws them: Telegram's
`date_time` entities at their UTF-16 offsets (after emoji and names of astral
characters) and button styles on the moves that matter; WhatsApp's words with no mark
left in them; the desk's reply lines with their marks as entities on Telegram."""

from __future__ import annotations

import asyncio
import json
import re
from types import SimpleNamespace
from typing import Any, cast

import pytest

from emulator.telegram.date_time import text_view
from emulator.telegram.formatting import check_entities, utf16_slice
from engine.cuartetos.views import CallView
from engine.follow_suit.game import GameState, legal_actions, to_move
from engine.follow_suit.views import PlayerView
from service.desk.asks import Choice, Line, Place, Reply, Request, Sender, TypedAsk
from service.platforms.telegram import answer
from service.platforms.telegram.render import message_params
from service.platforms.whatsapp import answer as wa_answer
from service.platforms.whatsapp.delivery import WhatsAppDelivery
from service.platforms.whatsapp.render import render as wa_render
from service.table import lobby, play
from service.table.cuartetos.lobby import family_pace
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from service.ui import spans
from service.ui.clock import when
from service.ui.cuartetos import CuartetosPainter
from service.ui.follow_suit import FollowSuitPainter
from service.ui.screens import Screen
from service.ui.text_limits import utf16_len

START = 1_800_000_000.0  # 2027-01-15 08:00 UTC
# Names past the Basic Multilingual Plane: two UTF-16 units a character.
ANA = Actor(1, "𝔄na 👵🏽", "en")
BEN = Actor(2, "Ben 🐴", "en")
CARLA = Actor(3, "Carla", "en")
PRIVATE_USE = re.compile("[\ue000-\ue002]")


def dealt(
    preset: str,
    *people: Actor,
    private: bool = False,
    zone: str = "Europe/Madrid",
    options: dict[str, Any] | None = None,
) -> Room:
    settings = RoomSettings(preset=preset, timezone=zone, options=options or {})
    room = lobby.create_room(-5, None, people[0], START, private=private, settings=settings)
    room.seed = (1 << 127) | 11
    for person in people[1:]:
        lobby.join(room, person)
    while len(room.seats) < 3:
        lobby.add_bot(room, people[0])
    assert lobby.start(room, people[0], START).changed
    return room


def on_turn_of(room: Room, seat: int) -> Room:
    """Moves played (the first legal each) until it is `seat`'s turn."""
    for _ in range(200):
        assert isinstance(room.game, GameState)
        mover = to_move(room.game)
        if mover == seat:
            return room
        assert mover is not None
        play.act(room, mover, legal_actions(room.game, mover)[0], START, 0.0)
    raise AssertionError(f"seat {seat} never got a turn")


def date_times(params: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in params.get("entities", []) if e["type"] == "date_time"]


# ----- deadlines -----------------------------------------------------------------


def test_a_deadline_sits_at_its_utf16_offset_after_emoji_and_astral_names() -> None:
    """The table, the mover's hand and the reminder each carry the turn's deadline as a
    date_time entity whose UTF-16 offset and length cover exactly its words, though
    emoji and a name of astral characters come before it; Telegram (the emulator)
    takes the entities and shows each reader the time in their zone."""
    room = on_turn_of(dealt("spanish", ANA, BEN, CARLA), 0)
    due = room.deadline
    assert due is not None
    words = when(due, "Europe/Madrid", FollowSuitPainter(room, "en").tr)
    painter = FollowSuitPainter(room, "en")
    screens = {"table": painter.table(), "hand": painter.hand(0), "nudge": painter.nudge()}
    for name, screen in screens.items():
        params = message_params(screen)
        text = params["text"]
        assert utf16_len(text) > len(text), f"{name}: nothing astral before the time"
        found = date_times(params)
        assert len(found) == 1, name
        entity = found[0]
        assert entity["unix_time"] == int(due) and entity["date_time_format"] == "t"
        assert utf16_slice(text, entity["offset"], entity["length"]) == words, name
        assert check_entities(text, params["entities"])  # Telegram's own checks pass
        shown = text_view({"text": text, "entities": found}, "Asia/Jakarta", int(START))
        assert shown == text.replace(words, "03:00"), name  # 20:00 UTC, 03:00 next day
    table_line = "𝔄na 👵🏽 to play until"
    assert table_line in message_params(screens["table"])["text"]
    assert "Your turn until" in message_params(screens["hand"])["text"]
    assert "it is your turn in Burro until" in message_params(screens["nudge"])["text"]


def test_the_moment_s_words_are_the_deadline_in_the_table_s_zone() -> None:
    room = on_turn_of(dealt("spanish", ANA, BEN, zone="America/Sao_Paulo"), 1)
    assert room.deadline == START + room.settings.turn_timeout  # 12 hours: 20:00 UTC
    text, marks = spans.split(FollowSuitPainter(room, "en").table().text)
    assert [text[m.start : m.end] for m in marks] == ["17:00 (São Paulo)"]
    assert "Ben 🐴 to play until 17:00 (São Paulo)." in text


def test_a_game_against_bots_tells_no_deadline() -> None:
    """A one-to-one game waits for no one: "Your turn!" as before, no mark."""
    room = on_turn_of(dealt("spanish", ANA, private=True), 0)
    hand = FollowSuitPainter(room, "en").hand(0).text
    assert "Your turn!" in hand and spans.OPEN not in hand and " until " not in hand


def test_a_bot_s_turn_tells_no_deadline() -> None:
    room = on_turn_of(dealt("spanish", ANA, BEN), 2)  # the third seat is a bot's
    assert room.deadline is None
    table = FollowSuitPainter(room, "en").table().text
    assert "🤖 to play." in table and spans.OPEN not in table


@pytest.mark.parametrize("lang", ["es", "pt_BR", "pt_PT", "id"])
def test_the_deadline_lines_are_translated(lang: str) -> None:
    room = on_turn_of(dealt("spanish", ANA, BEN, CARLA), 0)
    painter = FollowSuitPainter(room, lang)
    english = FollowSuitPainter(room, "en")
    for made in ("table", "nudge"):
        said = spans.plain(getattr(painter, made)().text)
        assert said != spans.plain(getattr(english, made)().text)
        assert when(room.deadline or 0, "Europe/Madrid", painter.tr) in said
    hand = spans.plain(painter.hand(0).text)
    assert "Your turn" not in hand and when(room.deadline or 0, "Europe/Madrid", painter.tr) in hand


def test_a_slow_passing_table_s_reminder_says_before_when() -> None:
    """A group's passing table is slow: its reminder says until when, marked; a live
    one (seconds to choose) does not."""
    slow = dealt("cuartetos", ANA, BEN, CARLA, options=family_pace())
    assert slow.deadline is not None
    text, marks = spans.split(CuartetosPainter(slow, "en").nudge().text)
    words = when(slow.deadline, "Europe/Madrid", CuartetosPainter(slow, "en").tr)
    assert text == f"⏰ 𝔄na 👵🏽, Ben 🐴, Carla: choose your card in Burro before {words}!"
    called = [(seat.user_id, spans.plain(seat.name)) for seat in slow.seats]
    assert [(m.kind, m.value, text[m.start : m.end]) for m in marks] == [
        *(("mention", user, name) for user, name in called),  # a reminder tells them
        ("time", int(slow.deadline), words),
    ]
    live = dealt("cuartetos", ANA, BEN, CARLA)
    said = spans.split(CuartetosPainter(live, "en").nudge().text)
    assert said[0].endswith("choose your card in Burro!")
    assert {m.kind for m in said[1]} == {"mention"}


# ----- tones ---------------------------------------------------------------------


def styles(params: dict[str, Any]) -> dict[str, str | None]:
    rows = params.get("reply_markup", {}).get("inline_keyboard", [])
    return {b["text"]: b.get("style") for row in rows for b in row}


def test_playable_cards_go_and_a_forced_draw_is_a_danger() -> None:
    """Spanish Burro (strict drawing): the cards that may be played are green; a player
    who cannot follow sees one red Draw; the table's buttons keep the app's look."""
    room = dealt("spanish", ANA, BEN, CARLA)
    seen: set[str | None] = set()
    for _ in range(120):
        assert isinstance(room.game, GameState)
        seat = to_move(room.game)
        if seat is None or room.status != "playing":
            break
        painter = FollowSuitPainter(room, "en")
        drawn = styles(message_params(painter.hand(seat)))
        legal = legal_actions(room.game, seat)
        playing = any(a.startswith("play:") for a in legal)
        for label, style in drawn.items():
            if label.startswith("🂠"):
                assert style == ("danger" if not playing else None), label
            elif label.startswith(("📜", "⏭")):
                assert style is None, label  # a plain pass takes nothing
            else:
                assert style == "success", label
            seen.add(style)
        assert set(styles(message_params(painter.table())).values()) == {None}
        play.act(room, seat, legal[0], START, 0.0)
    assert {"success", "danger"} <= seen


@pytest.mark.parametrize(
    ("preset", "options", "tone"),
    [
        ("spanish", {}, None),  # a pass takes nothing
        ("cangkul", {}, "danger"),  # the passers pick up the trick's cards
        ("brazilian", {"empty_stock": "take_the_table"}, "danger"),  # takes the table
    ],
)
def test_a_pass_that_takes_the_trick_is_a_danger(
    preset: str, options: dict[str, Any], tone: str | None
) -> None:
    """A pass comes only on an empty stock (rare in a short game): its tone by the
    table's rule, read the way the hand's buttons read it."""
    room = dealt(preset, ANA, BEN, CARLA, options=options)
    painter = FollowSuitPainter(room, "en")
    view = cast(PlayerView, SimpleNamespace(legal=["pass"]))
    assert painter.cost(view, "pass") == tone
    forced = cast(PlayerView, SimpleNamespace(legal=["draw"]))
    assert painter.cost(forced, "draw") == "danger"


def test_optional_drawing_is_not_a_danger() -> None:
    """Burro Deitado lets a player draw though they could play: a choice, not red."""
    room = dealt("portuguese", ANA, BEN, CARLA)
    for _ in range(60):
        assert isinstance(room.game, GameState)
        seat = to_move(room.game)
        assert seat is not None
        legal = legal_actions(room.game, seat)
        if "draw" in legal and any(a.startswith("play:") for a in legal):
            drawn = styles(message_params(FollowSuitPainter(room, "en").hand(seat)))
            assert drawn["🂠 Draw"] is None
            return
        play.act(room, seat, legal[0], START, 0.0)
    pytest.fail("no optional draw came up")


def test_passing_cards_go_burro_and_the_big_button_are_calls() -> None:
    room = dealt("cuartetos", ANA, BEN, CARLA)
    painter = CuartetosPainter(room, "en")
    drawn = styles(message_params(painter.hand(0)))
    for label, style in drawn.items():
        if label == "🫏 ¡Burro!":
            assert style == "primary"
        elif label.startswith("🎭"):
            assert style is None  # the fake call looks like any word
        elif not label.startswith("📜"):
            assert style == "success", label
    big = painter.respond_button(CallView(caller=1, word="barro", at=START, responded=()))
    assert styles(message_params(Screen("x", ((big,),)))) == {"🫳 ¡BARRO!": "primary"}


# ----- WhatsApp: words only ----------------------------------------------------------


def test_whatsapp_screens_and_replies_carry_no_mark() -> None:
    """Every WhatsApp message made of a marked screen or line: the words stay (the
    time in the table's zone), no private-use character is left anywhere in it."""
    room = on_turn_of(dealt("spanish", ANA, BEN, CARLA), 0)
    painter = FollowSuitPainter(room, "es")
    words = when(room.deadline or 0, "Europe/Madrid", painter.tr)
    marked = [painter.table(), painter.hand(0), painter.nudge()]
    for screen in marked:
        assert spans.OPEN in screen.text
        plain = Screen(spans.plain(screen.text), screen.rows)
        rendered = wa_render(plain, "es")
        dumped = json.dumps(rendered, ensure_ascii=False)
        assert not PRIVATE_USE.search(dumped) and words in dumped
        delivery = WhatsAppDelivery(cast(Any, None), cast(Any, None), lambda: START, 0)
        made = delivery.render(screen, "es")
        dumped = json.dumps(made, ensure_ascii=False)
        assert not PRIVATE_USE.search(dumped) and words in dumped
    line = Line(
        f"🕒 {spans.moment(START, 'hasta las 09:00 (Madrid)')}, {spans.mention(2, 'Ben 🐴')}",
        ((Choice(spans.mention(1, "𝔄na"), ask="x"),),),
    )
    for content in (wa_answer.content_of(line, "es"), wa_answer.content_of(Line(line.text), "es")):
        dumped = json.dumps(content, ensure_ascii=False)
        assert not PRIVATE_USE.search(dumped)
        assert "hasta las 09:00 (Madrid), Ben 🐴" in dumped


# ----- Telegram: the desk's lines ------------------------------------------------------


class RecordingBot:
    """The PTB calls answer.py makes, as keyword arguments."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    async def send_message(self, *args: Any, **params: Any) -> None:
        self.calls.append(("send_message", args, params))

    async def edit_message_text(self, *args: Any, **params: Any) -> None:
        self.calls.append(("edit_message_text", args, params))


def test_a_reply_line_s_marks_go_as_entities_and_its_popup_as_words() -> None:
    text = f"👵🏽 𝔄na: {spans.moment(START, '09:00 (Madrid)')} · {spans.mention(2, 'Ben 🐴')}"
    request = Request(1, Sender(1, "Ana"), Place(-5, private=False), TypedAsk("x"))
    bot = RecordingBot()
    exchange = answer.Exchange(None)
    pressed = answer.Pressed("q1", -5, 9)
    reply = Reply(popup=text, lines=(Line(text),))
    replaced = Reply(lines=(Line(text),), replaced=True)
    asyncio.run(answer.deliver(bot, exchange, request, reply, pressed))  # type: ignore[arg-type]
    asyncio.run(answer.deliver(bot, answer.Exchange(None), request, replaced, pressed))  # type: ignore[arg-type]
    assert exchange.answer["text"] == "👵🏽 𝔄na: 09:00 (Madrid) · Ben 🐴"
    (sent, args, params), (edited, edit_args, edit_params) = bot.calls
    assert (sent, edited) == ("send_message", "edit_message_text")
    assert args[1] == edit_args[0] == "👵🏽 𝔄na: 09:00 (Madrid) · Ben 🐴"
    # 👵🏽 is 4 UTF-16 units, 𝔄 and 🐴 2 each
    expected = [
        {"type": "date_time", "offset": 11, "length": 14, "unix_time": int(START),
         "date_time_format": "t"},
        {"type": "text_mention", "offset": 28, "length": 6,
         "user": {"id": 2, "is_bot": False, "first_name": "Ben 🐴"}},
    ]  # fmt: skip
    assert params["entities"] == edit_params["entities"] == expected
    json.dumps(params["entities"])  # JSON values: a line kept waiting is kept as JSON


def test_a_line_without_marks_sends_no_entities() -> None:
    assert answer.drawn("plain words") == ("plain words", {})
    assert answer.drawn(spans.mention(3, "Carla"), "caption_entities")[1]["caption_entities"]
