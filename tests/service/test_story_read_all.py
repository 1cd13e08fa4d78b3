"""The whole story on demand (issue #37), below the platforms: a hand's story that a
screen folds ("… 9 earlier moves") is told whole to each seat (every trick, every draw
with its count, its own cards drawn named to it alone), in its language; split into
messages a platform takes; and asked in a group on Telegram, it goes to the asker's
private chat."""

from __future__ import annotations

import asyncio
import json
import random
import re
import zlib

import pytest

from service.desk.asks import Line, Place, PressAsk, Reply, Request, Sender, StoryAsk
from service.infra import keys
from service.platforms.telegram import answer
from service.platforms.whatsapp import render
from service.table import lobby, log
from service.table.log import LogKind, LogLine
from service.table.outcome import Job
from service.table.room import Room, RoomSettings
from service.ui import games
from service.ui.intents import Command, Press
from service.ui.screens import Button, Screen, TablePainter
from service.ui.story import pages
from service.ui.text_limits import utf16_len
from tests.desk.fakes import FakeBot
from tests.service.test_mistakes import PLAYER, Table, leading
from tests.service.test_story import ANA, BEN, START, Reader, next_change
from tests.service.test_table_contract import check_secrets, queue_jobs

FOLDED = {"en": r"^… \d+ earlier moves?$", "es": r"^… \d+ jugadas? anteriore?s?$"}
TRICK = {"en": (" won the trick.",), "es": (" se lleva la baza.", "Te llevas la baza.")}
OWN_DRAW = {"en": "🫳 You drew ", "es": "🫳 Has robado "}


def long_hand(preset: str, seed: int, lines: int) -> Room:
    """A game of two humans and two bots, played on until its hand's log holds `lines`
    lines (or the game ends)."""
    settings = RoomSettings(preset=preset, turn_timeout=60)
    room = lobby.create_room(-100, None, ANA, START, settings=settings)
    lobby.join(room, BEN)
    lobby.add_bot(room, ANA)
    lobby.add_bot(room, ANA)
    room.seed = (1 << 127) | zlib.crc32(f"whole{preset}{seed}".encode())
    readers, rnd, clock = {1: Reader(), 2: Reader()}, random.Random(seed), [START]
    pending: list[tuple[float, int, Job]] = []
    outcome = lobby.start(room, ANA, START, 1.5)
    for step in range(3000):
        queue_jobs(pending, outcome, step)
        assert room.game is not None
        if room.status != "playing" or len(this_hand(room)) >= lines:
            return room
        outcome = next_change(room, pending, clock, rnd, set(), readers, 0.9)
    raise AssertionError("the game went on too long")


def this_hand(room: Room) -> list:  # type: ignore[type-arg]
    assert room.game is not None
    return [line for line in room.log if line.hand_no == room.game.hand_no]


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize(("preset", "seed"), [("spanish", 1), ("cangkul", 2), ("brazilian", 3)])
def test_a_folded_story_is_told_whole_to_each_seat(preset: str, seed: int, lang: str) -> None:
    room = long_hand(preset, seed, 30)
    assert room.game is not None
    hand = this_hand(room)
    for seat in (0, 1):
        teller = games.teller(room, lang)
        assert teller is not None
        folded = teller.story(room.log, min(line.first() for line in hand) - 1, seat, keep=4)
        assert any(re.match(FOLDED[lang], line) for line in folded)  # the screen's: folded
        whole = teller.whole(room.log, seat)
        assert not any(re.match(FOLDED[lang], line) for line in whole)
        tricks = [line for line in hand if line.kind == LogKind.TRICK]
        assert sum(any(t in line for t in TRICK[lang]) for line in whole) == len(tricks)
        draws = [line for line in hand if line.kind == LogKind.DRAW and line.seat == seat]
        own = [line for line in whole if line.startswith(OWN_DRAW[lang])]
        assert len(own) == len(draws)
        for told, line in zip(own, draws, strict=True):
            assert str(line.count) in told and all(
                games.painter(room, lang).card(card) in told for card in line.cards
            )
        check_secrets(room, {"text": "\n".join(whole), "buttons": []}, seat)


def test_pages_keep_every_line_within_the_limit() -> None:
    lines = [f"{n} · {'🂠' * (n % 40)}" for n in range(400)]
    split = pages(lines, 1000)
    assert len(split) > 1
    assert all(utf16_len(text) <= 1000 for text in split)
    assert "\n".join(split).split("\n") == lines
    assert pages(["x" * 50], 10) == ["x" * 9 + "…"]  # a line longer than a message: cut
    assert pages([], 10) == []


def test_a_story_asked_in_a_group_goes_to_the_private_chat() -> None:
    bot = FakeBot()
    request = Request(7, Sender(42, "Ana"), Place(-100, None, False), StoryAsk(), message=9)
    reply = Reply(lines=(Line("📜 one"), Line("two")), private=True)
    asyncio.run(answer.deliver(bot, answer.Exchange(None), request, reply, None))  # type: ignore[arg-type]
    assert [(m, p["chat_id"], p["text"]) for m, p in bot.calls] == [
        ("sendMessage", 42, "📜 one"),
        ("sendMessage", 42, "two"),
    ]
    assert all("reply_parameters" not in p for _m, p in bot.calls)


def story_buttons(screen: Screen) -> list[Button]:
    return [b for row in screen.rows for b in row if is_story(b)]


def is_story(button: Button) -> bool:
    return isinstance(button.intent, Press) and button.intent.what == Command("story")


def test_a_screen_that_folds_its_story_offers_it_whole() -> None:
    """The group's table and a private hand on Telegram carry a 📜 button once their
    story folded; WhatsApp leaves it out of its lists (the word asks for it)."""
    room = long_hand("spanish", 1, 30)
    painter = games.painter(room, "en")
    assert isinstance(painter, TablePainter)
    painter.after = min(line.first() for line in this_hand(room)) - 1
    assert [b.label for b in story_buttons(painter.table())] == ["📜 Story"]
    for with_table in (False, True):  # a private hand beside the table, or under it
        fresh = games.painter(room, "en")
        assert isinstance(fresh, TablePainter)
        fresh.after = painter.after
        screen = fresh.hand(0, with_table=with_table)
        assert story_buttons(screen)
    assert '.T"' not in json.dumps(render.render(screen, "en"))  # not on WhatsApp
    quiet = games.painter(room, "en")  # a story from its last line on: nothing folded
    assert isinstance(quiet, TablePainter)
    quiet.after = max(line.seq for line in room.log)
    assert not story_buttons(quiet.table())


def test_the_story_button_answers_with_the_whole_story() -> None:
    table = Table("en")
    table.walk_to(leading)
    room = table.room
    press = Press(room.id, room.version, Command("story"))
    reply = table.ask(PressAsk(press, tapped=True))
    assert reply.private and reply.lines
    assert reply.lines[0].text.startswith("📜 The story of hand 1")
    assert table.room.version == room.version  # read only


def test_a_story_button_pressed_in_a_group_answers_in_private() -> None:
    """Pressed on a group's table: the story goes to the private chat, the button says
    so; one who never opened the private chat is sent there first."""
    table = Table("en")
    table.walk_to(leading)
    room, store = table.room, table.svc.store
    press = PressAsk(Press(room.id, room.version, Command("story")), tapped=True)
    sender = Sender(PLAYER, "Abuela", "en")

    def pressed(mark: str) -> Reply:
        request = Request(mark, sender, Place(-100, None, False), press)
        return asyncio.run(table.desk.handle(request)).reply

    store.remember_user(PLAYER, "Abuela", "en", started=True)
    reply = pressed("g1")
    assert reply.popup == "📜 The story is in our private chat."
    assert reply.private and reply.lines[0].text.startswith("📜 The story of hand 1")
    store.redis.hdel(keys.user_key(PLAYER), "started")
    reply = pressed("g2")
    assert reply.url is not None and not reply.lines


def test_a_passing_game_that_folds_its_story_offers_it_whole() -> None:
    """Cuartetos tells little (cards received, calls), but a run of turns played for
    the away folds as any story does, with its button."""
    room = long_hand("cuartetos", 1, 1)
    assert room.game is not None
    for _ in range(9):  # nine choices made for the away: more than the table keeps
        log.append(room, LogLine(kind=LogKind.TIMEOUT, seat=2), room.game.hand_no)
    painter = games.painter(room, "en")
    assert isinstance(painter, TablePainter)
    painter.after = min(line.first() for line in this_hand(room)) - 1
    folded = painter.table()
    assert any(re.match(FOLDED["en"], line) for line in folded.text.split("\n"))
    assert story_buttons(folded)
    teller = games.teller(room, "en")
    assert teller is not None
    assert not any(re.match(FOLDED["en"], line) for line in teller.whole(room.log, None))
