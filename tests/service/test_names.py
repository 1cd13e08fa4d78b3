"""Names people choose (issue #30, "Names"): cleaned once as they come in, isolated
where a line shows them, two alike told apart. Each test feeds a real shape of name
that broke a table: a fake hand line, an invisible player, a family emoji cut in half,
a tappable command, WhatsApp's formatting, an unclosed right-to-left override."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.platforms.telegram.people import name_of
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.names import (
    FSI,
    MAX_NAME,
    PDI,
    alike_key,
    clean,
    cleaned,
    distinct,
    graphemes,
    shown,
)
from service.table.room import Room, RoomSettings
from service.ui import games

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # 👨‍👩‍👧‍👦
FAKE_HAND = "Ana 🃏 Your cards: A♠ K♠"
RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE


def test_a_fake_hand_line_stays_inside_its_own_line() -> None:
    # The name fits and is kept as typed (it is a name, if an odd one), but as one line.
    assert clean(FAKE_HAND, "x") == FAKE_HAND
    assert clean("Ana\nYour cards: A♠ K♠", "x") == "Ana Your cards: A♠ K♠"
    assert clean("Ana\u2028Your\u2029cards\r\n\x85A♠", "x") == "Ana Your cards A♠"


def test_a_fake_hand_line_cannot_pass_for_the_players_cards() -> None:
    """In a one-to-one hand (the table above the cards) the only line that begins as
    the real hand line does is the real one: the name sits after a seat's mark."""
    room = started([Actor(1, clean(FAKE_HAND, "x"), "en")], private=True)
    text = games.painter(room, "en").hand(0).text
    lines = text.splitlines()
    assert any(line.startswith("▫️ " + FAKE_HAND) for line in lines)  # its seat's line
    assert len([line for line in lines if line.startswith("Your cards")]) == 1
    assert not any(line.startswith("Ana") for line in lines)


@pytest.mark.parametrize(
    "invisible",
    [
        "\u3164",  # HANGUL FILLER
        "\u115f\u1160",  # HANGUL CHOSEONG and JUNGSEONG FILLERs
        "\uffa0 \u2800",  # HALFWIDTH HANGUL FILLER, BRAILLE PATTERN BLANK
        "\u200b\u200c\u200d\u2060\ufeff",  # zero widths, word joiner, BOM
        "\u202e\u2066\u2069\u200f",  # bidi controls
        "\u0301\u0302",  # marks with nothing to sit on
        "\U000e0041\U000e006e\U000e0061",  # tags spelling "Ana", hidden
        "  \n\t ",
        "",
    ],
)
def test_an_invisible_name_gets_the_fallback(invisible: str) -> None:
    assert clean(invisible, "Telegram 42") == "Telegram 42"


def test_hidden_characters_go_from_a_visible_name() -> None:
    assert clean("\u3164Ana\u200b\u3164Bea\u2060", "x") == "Ana Bea"
    assert clean("An\u00ada\U000e0041", "x") == "Ana"  # soft hyphen, a tag


def test_a_name_is_cut_at_32_characters_as_people_count_them() -> None:
    name = clean(FAMILY * 40, "x")
    assert graphemes(name) == [FAMILY] * MAX_NAME
    assert clean("A" * 31 + FAMILY + "B", "x") == "A" * 31 + FAMILY  # not A…A👨
    flags = "🇪🇸🇵🇹🇧🇷🇮🇩🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    assert len(graphemes(flags)) == 5
    assert clean("x" * 31 + flags, "x") == "x" * 31 + "🇪🇸"  # no half flag


def test_grapheme_clusters_keep_marks_selectors_and_skin_tones() -> None:
    thumbs = "👍🏽"
    heart = "❤️"  # U+2764 U+FE0F
    keycap = "1\ufe0f\u20e3"
    decomposed = "Jose\u0301"
    hindi = "क्षत्रिय"  # two conjuncts: क्ष, त्रि, य
    assert graphemes(thumbs + heart + keycap) == [thumbs, heart, keycap]
    assert graphemes(decomposed) == ["J", "o", "s", "e\u0301"]
    assert graphemes(hindi) == ["क्ष", "त्रि", "य"]
    assert clean(decomposed, "x") == "José"  # NFC: one code point


def test_a_run_of_joiners_is_no_endless_character() -> None:
    name = clean("a\u200d" * 100, "x")
    assert len(name) <= 10 and not name.endswith("\u200d")


def test_a_command_in_a_name_is_not_tappable() -> None:
    name = clean("/cancel@burro_bot", "x")
    assert "/" not in name
    assert name == "\u2215cancel@burro_bot"  # ∕ DIVISION SLASH looks the same


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("*Ana*", "\u2217Ana\u2217"),
        ("_Ana_", "\u02cdAna\u02cd"),
        ("~Ana~", "\u223cAna\u223c"),
        ("```Ana```", "\u02cb\u02cb\u02cbAna\u02cb\u02cb\u02cb"),
        ("ana_g", "ana_g"),  # inside a word a marker formats nothing: kept
    ],
)
def test_whatsapp_formatting_in_a_name_formats_nothing(raw: str, expected: str) -> None:
    assert clean(raw, "x") == expected


def test_an_unclosed_override_is_taken_out() -> None:
    assert clean(f"{RLO}anA", "x") == "anA"
    assert clean("\u2067Ana\u202b", "x") == "Ana"


def test_a_right_to_left_name_is_isolated_in_a_line() -> None:
    assert shown("Ana") == "Ana"  # nothing to isolate
    assert shown("علي") == f"{FSI}علي{PDI}"
    assert shown("שרה 2") == f"{FSI}שרה 2{PDI}"
    # A name kept before names were cleaned: its override goes, it cannot leak.
    assert shown(f"{RLO}anA") == "anA"
    assert shown(f"{RLO}אנה") == f"{FSI}אנה{PDI}"


def test_two_names_alike_are_told_apart() -> None:
    assert distinct("Ana", ["Ana"]) == "Ana (2)"
    assert distinct("ANA", ["Ana", "ana (2)"]) == "ANA (3)"
    assert distinct("Ａｎａ", ["Ana"]) == "Ａｎａ (2)"  # fullwidth: NFKC
    assert distinct("Aná", ["Ana"]) == "Aná (2)"
    assert distinct("Bea", ["Ana"]) == "Bea"
    long = distinct("x" * 32, ["x" * 32])
    assert long == "x" * 28 + " (2)" and len(graphemes(long)) == MAX_NAME
    assert alike_key("A n\u200ba") == alike_key("ana")


def test_the_telegram_name_is_cleaned() -> None:
    assert name_of(7, FAKE_HAND, "ana_g") == FAKE_HAND
    assert name_of(7, "\u3164", "ana_g") == "ana_g"  # invisible: the username
    assert name_of(7, "\u3164", None) == "7"
    assert name_of(7, None, None) == "7"
    assert name_of(7, "Ana\n/start", None) == "Ana \u2215start"


# ----- through the table ------------------------------------------------------------


def started(actors: list[Actor], private: bool = False) -> Room:
    """A game of Spanish Burro with these people (and bots to make four), dealt."""
    settings = RoomSettings(preset="spanish")
    room = lobby.create_room(-5, None, actors[0], 0.0, private=private, settings=settings)
    for actor in actors[1:]:
        lobby.join(room, actor)
    while len(room.seats) < 4:
        lobby.add_bot(room, actors[0])
    play.start(room, 1.0, 0.0)
    assert room.status == "playing"
    return room


def test_two_anas_sit_at_a_table_as_two_names() -> None:
    room = lobby.create_room(-5, None, Actor(1, "Ana", "en"), 0.0)
    outcome = lobby.join(room, Actor(2, "ana", "en"))
    lobby.join(room, Actor(3, "Canela", "en"))
    lobby.add_bot(room, Actor(1, "Ana", "en"))
    lobby.add_bot(room, Actor(1, "Ana", "en"))
    names = [seat.name for seat in room.seats]
    assert names == ["Ana", "ana (2)", "Canela", "Rocinante", "Platero"]
    assert outcome.popup is not None and dict(outcome.popup.values)["name"] == "ana (2)"
    assert "  2. ana (2)" in games.painter(room, "en").lobby().text.splitlines()


def test_a_rematch_tells_apart_seats_kept_alike() -> None:
    room = started([Actor(1, "Ana", "en"), Actor(2, "Bea", "en")])
    room.seats[1].name = "ANA"  # as a room kept before names were told apart
    room.status = "over"
    fresh = lobby.rematch(room, Actor(1, "Ana", "en"), 2.0)
    assert isinstance(fresh, tuple)
    assert [seat.name for seat in fresh[0].seats][:2] == ["Ana", "ANA (2)"]


def test_a_right_to_left_name_does_not_reorder_the_table() -> None:
    """Every line of the group's table that shows the name shows it isolated, and
    no override is left to run past it."""
    room = started([Actor(1, "Ana", "en"), Actor(2, "علي", "en")])
    room.seats[0].name = f"{RLO}anA"  # kept before names were cleaned
    text = games.painter(room, "en").table().text
    assert RLO not in text
    lines = [line for line in text.splitlines() if "علي" in line]
    assert lines and all(f"{FSI}علي{PDI}" in line for line in lines)
    assert all(unicodedata.bidirectional(c) != "RLO" for c in text)


def test_a_cut_leaves_no_marker_at_a_names_end() -> None:
    name = clean("x" * 31 + "_y", "x")  # `_` inside a word, until the cut ends it there
    assert name == "x" * 31 + "\u02cd"
    assert distinct("x" * 27 + "_yz", ["x" * 27 + "_yz"]) == "x" * 27 + "\u02cd (2)"


@given(st.text(alphabet="aZé0ÿÀ .'-_*/\u200d\u202e", max_size=40))
def test_a_plain_name_is_kept_as_the_full_cleaning_keeps_it(raw: str) -> None:
    """`clean` takes a plain name as it is (most taps carry one): exactly what the full
    cleaning would make of it, and the full cleaning for anything else."""
    assert clean(raw, "fallback") == cleaned(raw, "fallback")


def test_a_first_name_with_nothing_visible_falls_back_to_the_username() -> None:
    assert name_of(7, "\u3164", "ana_g") == "ana_g"
    assert name_of(7, "Ana", "ana_g") == "Ana"
    assert name_of(7, None, None) == "7"
