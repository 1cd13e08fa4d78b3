"""Screens as WhatsApp messages: within Meta's limits, the control sized to the moves."""

from __future__ import annotations

from typing import Any

import pytest

from service.platforms.whatsapp import render as wa
from service.table import lobby
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from service.ui import games, tokens
from service.ui.intents import Move, Option, Press
from service.ui.screens import Button, Screen

ABUELA = Actor((1 << 52) + 1, "Abuela", "es", platform="whatsapp")


def started(preset: str, bots: int = 3) -> Room:
    room = lobby.create_room(ABUELA.user_id, None, ABUELA, 0.0, True, RoomSettings(preset=preset))
    for _ in range(bots):
        lobby.add_bot(room, ABUELA)
    lobby.start(room, ABUELA, 0.0, 0.0)
    return room


def within_limits(content: dict[str, Any]) -> None:
    """Meta's limits of an interactive message, as the local WhatsApp checks them too."""
    if content["type"] == "text":
        assert 0 < wa.units(content["text"]["body"]) <= 4096
        return
    interactive = content["interactive"]
    assert wa.units(interactive["body"]["text"]) <= wa.MAX_BODY
    action = interactive["action"]
    if interactive["type"] == "button":
        titles = [b["reply"]["title"] for b in action["buttons"]]
        assert 1 <= len(titles) <= 3 and len(set(titles)) == len(titles)
        assert all(wa.units(t) <= 20 for t in titles)
        assert all(len(b["reply"]["id"]) <= 256 for b in action["buttons"])
        return
    assert interactive["type"] == "list" and wa.units(action["button"]) <= 20
    rows = [row for section in action["sections"] for row in section["rows"]]
    assert 1 <= len(rows) <= 10
    assert all(wa.units(r["title"]) <= 24 and len(r["id"]) <= 200 for r in rows)
    assert all(wa.units(r.get("description", "")) <= 72 for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)
    if len(action["sections"]) > 1:
        assert all(0 < wa.units(s["title"]) <= 24 for s in action["sections"])


def ids(content: dict[str, Any]) -> list[str]:
    if content["type"] != "interactive":
        return []
    action = content["interactive"]["action"]
    if "buttons" in action:
        return [b["reply"]["id"] for b in action["buttons"]]
    return [row["id"] for s in action["sections"] for row in s["rows"]]


SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def moves(count: int, cards: bool = True) -> Screen:
    """A prompt of `count` card moves (French suits), or of as many settings."""
    codes = [f"{r}{s}" for s in "SHDC" for r in ("A", "K", "Q", "J", "7", "6", "5", "4")]
    if not cards:
        options = (
            Button(f"Option {i}", Press("abcd1234", 7, Option(f"k{i}"))) for i in range(count)
        )
        return Screen("Settings", (tuple(options),))
    row = tuple(
        Button(c[:-1] + SYMBOLS[c[-1]], Press("abcd1234", 7, Move(f"play:{c}")))
        for c in codes[:count]
    )
    return Screen("Your turn!", (row,))


@pytest.mark.parametrize("preset", ["spanish", "brazilian", "burro_em_pe", "cangkul", "cuartetos"])
def test_every_screen_of_a_game_fits_and_offers_exactly_its_buttons(preset: str) -> None:
    room = started(preset)
    painter = games.painter(room, "es")
    for screen in (painter.lobby(), games.room_screen(room, painter), painter.hand(0, True)):
        content = wa.render(screen, "es")
        within_limits(content)
        pressable = [tokens.text(p) for _b, p in wa.pressable(screen)]
        if len(pressable) <= 10:
            assert ids(content) == pressable or sorted(ids(content)) == sorted(pressable)


def test_three_moves_are_reply_buttons_and_more_a_list_by_suit() -> None:
    assert wa.render(moves(3), "en")["interactive"]["type"] == "button"
    listed = wa.render(moves(9), "en")["interactive"]
    assert listed["type"] == "list"
    assert [s["title"] for s in listed["action"]["sections"]] == ["♠", "♥"]  # by suit
    assert listed["action"]["button"] == "Choose"
    assert wa.render(moves(9), "es")["interactive"]["action"]["button"] == "Elegir"


def rows_of(content: dict[str, Any]) -> list[dict[str, Any]]:
    return [row for s in content["interactive"]["action"]["sections"] for row in s["rows"]]


def test_more_cards_than_a_list_holds_fold_the_smallest_suit_into_one_row() -> None:
    screen = moves(11)  # ♠ A K Q J 7 6 5 4, ♥ A K Q
    content = wa.render(screen, "en")
    within_limits(content)
    spades = [f"abcd1234.7.p{r}S" for r in ("A", "K", "Q", "J", "7", "6", "5", "4")]
    assert ids(content) == [*spades, "pick:H:abcd1234.7"]  # one list: a single message
    folded = rows_of(content)[-1]
    assert folded["title"] == "♥ · 3 cards" and folded["description"] == "A · K · Q"
    opened = wa.render(screen, "en", part="H")  # a tap on the folded row: its cards
    within_limits(opened)
    assert ids(opened) == ["abcd1234.7.pAH", "abcd1234.7.pKH", "abcd1234.7.pQH"]


def test_folding_goes_on_with_the_next_smallest_suit_until_the_list_holds_all() -> None:
    content = wa.render(moves(20), "es")  # ♠ 8, ♥ 8, ♦ 4: ♦ folds, then ♠
    within_limits(content)
    picks = [wa.pick_of(i) for i in ids(content)]
    assert [p.part for p in picks if p is not None] == ["S", "D"]
    assert len(ids(content)) == 10
    assert rows_of(content)[0]["title"] == "♠ · 8 cartas"


def test_a_folded_spanish_suit_is_named_and_its_ranks_listed() -> None:
    names = ("As", "Rey", "Caballo", "Sota", "7", "6", "5", "4", "3", "2")
    faces = zip(names, "AKQJ765432", strict=True)
    hearts = [Button(f"{f} de copas", Press("abcd1234", 3, Move(f"play:{c}H"))) for f, c in faces]
    row = (*hearts, Button("As de oros", Press("abcd1234", 3, Move("play:AD"))))
    content = wa.render(Screen("¡Te toca!", (row,)), "es")
    within_limits(content)
    assert ids(content)[0] == "pick:H:abcd1234.3" and len(ids(content)) == 2
    folded = rows_of(content)[0]
    assert folded["title"] == "Copas · 10 cartas"
    assert folded["description"] == "As · Rey · Caballo · Sota · 7 · 6 · 5 · 4 · 3 · 2"


def test_a_folded_suit_longer_than_a_list_opens_as_pages_of_every_move() -> None:
    ranks = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
    row = tuple(Button(f"{r}♠", Press("abcd1234", 7, Move(f"play:{r}S"))) for r in ranks)
    screen = Screen("Your turn!", ((*row, Button("A♥", Press("abcd1234", 7, Move("play:AH")))),))
    assert ids(wa.render(screen, "en")) == ["pick:S:abcd1234.7", "abcd1234.7.pAH"]
    opened = wa.render(screen, "en", part="S")
    within_limits(opened)
    assert ids(opened)[-1] == "pick:1:abcd1234.7" and len(ids(opened)) == 10
    assert ids(wa.render(screen, "en", part="1")) == [f"abcd1234.7.p{r}S" for r in ranks[9:]] + [
        "abcd1234.7.pAH"
    ]


def test_a_long_screen_without_cards_is_paged() -> None:
    screen = moves(14, cards=False)
    first = wa.render(screen, "en")
    within_limits(first)
    rows = ids(first)
    assert len(rows) == 10 and wa.pick_of(rows[-1]) == wa.Pick("abcd1234", 7, "1")
    second = wa.render(screen, "en", part="1")
    within_limits(second)
    assert len(ids(second)) == 5


def test_titles_are_cut_and_kept_unique() -> None:
    long = "🎭 Teriakan palsu: ¡BARRO!"  # 25 UTF-16 units: 🎭 counts two
    for count in (3, 4):  # reply buttons (20), list rows (24)
        row = tuple(Button(long, Press("abcd1234", 1, Option(f"k{i}"))) for i in range(count))
        within_limits(wa.render(Screen("x", (row,)), "id"))
    assert wa.short(long, 24) == "🎭 Teriakan palsu: ¡BAR…" and wa.units(wa.short(long, 24)) == 24


def test_a_long_body_loses_its_oldest_lines_first() -> None:
    """Its title kept, and where lines went, said: nothing falls off unannounced."""
    text = "🫏 Spanish Burro · hand 1\n" + "\n".join(f"line {i}" for i in range(400))
    content = wa.render(Screen(text + "\nYour turn!", moves(3).rows), "en")
    body = content["interactive"]["body"]["text"]
    assert len(body) <= wa.MAX_BODY and body.endswith("Your turn!") and "line 1\n" not in body
    assert body.startswith("🫏 Spanish Burro · hand 1\n…\n")
    assert body.splitlines()[2] == "line 291"  # the lines after the cut, whole
