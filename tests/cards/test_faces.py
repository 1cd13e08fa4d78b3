"""Card faces: every card of both decks draws as valid SVG, suits differ in shape and not
only in colour, the colours hold apart for protanopes and deuteranopes, ranks read
against the face, sizes, and each face's text alternative in every language."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

import pytest

from engine.kernel.cards import DECKS, CardCodec
from service.cards.faces import (
    FACE,
    INDEX_WIDTH,
    JOKER_INK,
    STYLES,
    SUIT_ORDER,
    SUITS,
    Style,
    back,
    codes,
    face,
    fan,
)
from service.i18n import LANGUAGES, Translator
from service.ui.screens import card_name

SVG = "{http://www.w3.org/2000/svg}"

# Machado, Oliveira and Fernandes (2009), severity 1: linear RGB as a protanope and a
# deuteranope see it.
VISION = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
}
APART = 20  # CIE76 ΔE between two suits' colours: plainly two colours, not one


def linear(colour: str) -> tuple[float, ...]:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return tuple(channel(int(colour[i : i + 2], 16)) for i in (1, 3, 5))


def seen(colour: str, vision: str) -> tuple[float, ...]:
    rgb = linear(colour)
    return tuple(
        min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb, strict=True))))
        for row in VISION[vision]
    )


def lab(rgb: tuple[float, ...]) -> tuple[float, float, float]:
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return float(sum((p - q) ** 2 for p, q in zip(lab(a), lab(b), strict=True)) ** 0.5)


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    def luminance(rgb: tuple[float, ...]) -> float:
        return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]

    low, high = sorted((luminance(a), luminance(b)))
    return (high + 0.05) / (low + 0.05)


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root


def test_the_colour_measures_measure() -> None:
    """The measures against known values: white on black 21:1; red and olive, red and
    green, plain to most eyes, one colour to a protanope, to a deuteranope; black and
    white a world apart for everyone."""
    assert contrast(linear("#ffffff"), linear("#000000")) == pytest.approx(21)
    for red, green, vision in (
        ("#d00000", "#505000", "protanopia"),
        ("#d00000", "#009800", "deuteranopia"),
    ):
        assert delta_e(seen(red, "normal"), seen(green, "normal")) > 75
        assert delta_e(seen(red, vision), seen(green, vision)) < 6
    assert delta_e(seen("#000000", "deuteranopia"), seen("#ffffff", "deuteranopia")) > 99


@pytest.mark.parametrize("style", STYLES)
def test_every_card_of_the_deck_draws_as_svg(style: Style) -> None:
    drawn = codes(style)
    assert len(drawn) == (48 if style == "spanish" else 53)
    for code in drawn:
        root = parse(face(code, style, 90))
        assert (root.get("width"), root.get("height"), root.get("viewBox")) == (
            "90",
            "126",
            "0 0 100 140",
        )
        assert root.find(SVG + "text") is not None, code  # a rank (or JOKER) in the corner
    parse(back(style, 90))


def test_every_preset_deck_has_its_faces() -> None:
    """A Spanish deck draws in either style (the suit-style setting), any other French."""
    for deck, (order, joker) in DECKS.items():
        styles: tuple[Style, ...] = (
            ("spanish", "french") if deck.startswith("spanish") else ("french",)
        )
        for style in styles:
            for code in CardCodec(order, joker).pack():
                assert code in codes(style), (deck, style, code)


def test_a_card_not_in_the_deck_is_refused() -> None:
    for code, style in (("10H", "spanish"), ("JK", "spanish"), ("5X", "french"), ("1H", "french")):
        with pytest.raises(ValueError, match="no card"):
            face(code, style)  # type: ignore[arg-type]


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("rank", ["A", "7", "K"])
def test_suits_differ_in_shape_not_only_colour(style: Style, rank: str) -> None:
    """The four suits drawn in one colour are still four different drawings."""

    def in_black(svg: str) -> str:
        return re.sub(r"#[0-9a-f]{6}", "#000000", svg)

    shapes = {in_black(face(rank + suit, style)) for suit in SUIT_ORDER[style]}
    assert len(shapes) == 4


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("vision", VISION)
def test_suit_colours_stay_apart_for_colour_blind_eyes(style: Style, vision: str) -> None:
    suits = SUITS[style]
    for a, b in itertools.combinations(SUIT_ORDER[style], 2):
        distance = delta_e(seen(suits[a]["fill"], vision), seen(suits[b]["fill"], vision))
        assert distance >= APART, (a, b, round(distance))


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("vision", VISION)
def test_ranks_read_against_the_face(style: Style, vision: str) -> None:
    """Every text a face shows (the ranks, JOKER) has 4.5:1 against the face, for every
    eye: WCAG's AA for text."""
    inks = set()
    for code in codes(style):
        for text in parse(face(code, style)).iter(SVG + "text"):
            inks.add(text.get("fill"))
    assert inks >= {SUITS[style][s]["ink"] for s in SUIT_ORDER[style]}
    for ink in inks:
        assert ink is not None
        assert contrast(seen(ink, vision), seen(FACE, vision)) >= 4.5, ink
    if style == "french":
        assert JOKER_INK in inks


def test_sizes() -> None:
    """A face scales to any width at the card's proportions, and stays small: a web view
    of a whole table inlines dozens."""
    for size, height in ((30, 42), (44, 62), (90, 126), (101, 141), (390, 546)):
        root = parse(face("7H", "french", size))
        assert (root.get("width"), root.get("height")) == (str(size), str(height))
    largest = max(len(face(c, s).encode()) for s in STYLES for c in codes(s))
    assert largest <= 6000
    assert len(back("spanish").encode()) <= 6000


@pytest.mark.parametrize("count", range(1, 14))
@pytest.mark.parametrize("width", [320, 390])
def test_a_fanned_hand_shows_every_corner_on_a_phone(count: int, width: int) -> None:
    card, step = fan(count, width)
    assert card + step * (count - 1) <= width
    if count > 1:
        assert step * 100 >= INDEX_WIDTH * card  # each card's index shows whole
    assert card * 27 / 100 >= 16  # the rank's font, in px: readable on a phone


def test_the_index_fits_the_width_the_fan_leaves() -> None:
    """The corner (rank text centred at 13, the small suit ±9 around 13) ends before
    INDEX_WIDTH, so a fanned card shows it whole."""
    root = parse(face("10D", "french"))
    text = root.find(SVG + "text")
    assert text is not None
    assert float(text.get("x", 0)) + float(text.get("textLength", 0)) / 2 < INDEX_WIDTH


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("style", STYLES)
def test_each_card_names_itself_in_its_readers_language(language: str, style: Style) -> None:
    """The text alternative is the name the chat gives the card (service.ui.screens)."""
    tr = Translator(language)
    for code in codes(style):
        name = card_name(code, style == "spanish", tr)
        root = parse(face(code, style, 60, name))
        title = root.find(SVG + "title")
        assert title is not None and title.text == name
        assert (root.get("role"), root.get("aria-label")) == ("img", name)
    assert (
        parse(face("KD", "spanish", 60, card_name("KD", True, tr))).get("aria-label")
        == {
            "en": "King of coins",
            "es": "Rey de oros",
            "pt_BR": "Rei de ouros",
            "pt_PT": "Rei de ouros",
            "id": "Raja koin",
        }[language]
    )


def test_a_label_is_escaped_and_no_label_hides_the_picture() -> None:
    label = 'Rey de "oros" & <copas>'
    root = parse(face("KD", "spanish", 60, label))
    assert root.get("aria-label") == label
    assert parse(face("KD", "spanish", 60)).get("aria-hidden") == "true"  # named beside it


def test_faces_are_deterministic() -> None:
    assert [face(c, "spanish", 70, "x") for c in codes("spanish")] == [
        face(c, "spanish", 70, "x") for c in codes("spanish")
    ]
