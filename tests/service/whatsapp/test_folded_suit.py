"""A tap on a folded suit's row (issue #37) is answered with what the row opens only:
the suit's cards as the list, its name and count as the body; the table and the story,
shown in the prompt just above, are not sent again."""

from __future__ import annotations

from typing import Any

from service.platforms.whatsapp import render as wa
from service.ui.intents import Move, Press
from service.ui.screens import Button, Screen

TABLE = "\n".join(
    ["🫏 Spanish Burro · hand 1", "▶️ Ana: 11 cards", "", "Stock: 20 cards", "", "Your turn!"]
)


SPANISH = {"A": "As", "K": "Rey", "Q": "Caballo", "J": "Sota", "S": "espadas", "H": "copas"}


def label(rank: str, suit: str, spanish: bool) -> str:
    if spanish:
        return f"{SPANISH.get(rank, rank)} de {SPANISH[suit]}"
    return f"{rank}{'♠' if suit == 'S' else '♥'}"


def hand(spanish: bool) -> Screen:
    """Eight spades and three hearts to play, under a table's text."""
    cards = [(r, "S") for r in ("A", "K", "Q", "J", "7", "6", "5", "4")]
    cards += [(r, "H") for r in ("A", "K", "Q")]
    row = tuple(
        Button(label(r, s, spanish), Press("abcd1234", 7, Move(f"play:{r}{s}"))) for r, s in cards
    )
    return Screen(TABLE, (row,))


def body(content: dict[str, Any]) -> str:
    return str(content["interactive"]["body"]["text"])


def rows(content: dict[str, Any]) -> list[str]:
    interactive = content["interactive"]
    if interactive["type"] == "button":
        return [b["reply"]["id"] for b in interactive["action"]["buttons"]]
    return [r["id"] for s in interactive["action"]["sections"] for r in s["rows"]]


def test_a_folded_suit_opens_alone() -> None:
    whole = wa.render(hand(False), "en")
    assert body(whole) == TABLE and rows(whole)[-1] == "pick:H:abcd1234.7"
    opened = wa.render(hand(False), "en", part="H")
    assert rows(opened) == ["abcd1234.7.pAH", "abcd1234.7.pKH", "abcd1234.7.pQH"]
    assert body(opened) == "♥ · 3 cards"  # the row's words, not the table again


def test_a_folded_spanish_suit_opens_alone_in_spanish() -> None:
    opened = wa.render(hand(True), "es", part="H")
    assert rows(opened) == ["abcd1234.7.pAH", "abcd1234.7.pKH", "abcd1234.7.pQH"]
    assert body(opened) == "Copas · 3 cartas"
    assert "Stock" not in body(opened)


def test_a_page_of_buttons_is_sent_with_its_question_only() -> None:
    row = tuple(Button(f"Option {n}", Press("abcd1234", 7, Move("draw"))) for n in range(14))
    paged = wa.render(Screen(TABLE, (row,)), "en", part="1")
    assert body(paged) == "Your turn!" and len(rows(paged)) == 5
