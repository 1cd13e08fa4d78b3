"""Card faces and backs as SVG, drawn by code from a few primitives (docs/card-faces.md).

A face is a 100 × 140 card: the rank and a small suit in two opposite corners, big
enough to read on the strip a fanned hand of twelve shows on a 390 px phone (`fan`);
pips in the classic layouts, a framed emblem for the figures (crown, tiara, horse, cap)
and a big pip for the ace. Each suit has its own shape *and* colour (tests/cards check
the colours apart under protanopia and deuteranopia), every pip outlined in its suit's
ink.

`DATA` (shapes, colours, layouts) drives both renderers: `face` and `back` here, and the
same drawing in JavaScript (`service.cards.widget.WIDGET_JS`) for the Telegram widget,
which must draw cards from code (a widget's whole HTML is a few kilobytes). Both print
the same numbers the same way, so a test compares their output card by card.

Everything is stdlib and deterministic: the same arguments give the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

from engine.kernel.cards import JOKER_CODE, RANKS

Style = Literal["spanish", "french"]
STYLES: Final[tuple[Style, ...]] = ("spanish", "french")
WIDTH, HEIGHT = 100, 140  # the viewBox; `size` scales it
FONT = "system-ui,Roboto,Arial,sans-serif"
FACE = "#fffdf6"
EDGE = "#8d877c"

# Suit shapes in a ±50 box around the origin: a filled body outlined in the suit's ink,
# and for some a detail line (the coin's ring, the cup's rim, the sword's fuller).
_SHAPES: Final = {
    "heart": (
        "M0 44C-14 30-46 10-46-16C-46-34-32-44-20-44C-10-44-3-38 0-30C3-38 10-44 20-44"
        "C32-44 46-34 46-16C46 10 14 30 0 44Z",
        "",
    ),
    "spade": (
        "M0-46C14-32 46-12 46 12C46 28 34 36 22 36C14 36 8 32 4 26C5 34 8 40 16 46H-16"
        "C-8 40-5 34-4 26C-8 32-14 36-22 36C-34 36-46 28-46 12C-46-12-14-32 0-46Z",
        "",
    ),
    "diamond": ("M0-48C10-30 24-14 36 0C24 14 10 30 0 48C-10 30-24 14-36 0C-24-14-10-30 0-48Z", ""),
    "club": (
        "M0-44A20 20 0 0 0-19-14A20 20 0 1 0 0 12A20 20 0 1 0 19-14A20 20 0 0 0 0-44Z"
        "M-5 4C-4 28-10 40-18 46H18C10 40 4 28 5 4Z",
        "",
    ),
    "coin": (
        "M-46 0A46 46 0 1 0 46 0A46 46 0 1 0-46 0Z",
        "M-31 0A31 31 0 1 0 31 0A31 31 0 1 0-31 0ZM-9 0A9 9 0 1 0 9 0A9 9 0 1 0-9 0Z",
    ),
    "cup": (
        "M-38-42H38C38-14 22 0 8 4V22C8 30 20 34 26 44H-26C-20 34-8 30-8 22V4C-22 0-38-14-38-42Z",
        "M-35-30C-12-24 12-24 35-30M-10 14H10",
    ),
    "sword": (
        "M0-50L9-36V8H27C32 8 32 19 27 19H8V30A10 10 0 1 1-8 30V19H-27C-32 19-32 8-27 8H-9V-36Z",
        "M0-34V4M-8 26H8",
    ),
    "baton": (  # a knotty club leaning as on printed cards, with its cut twigs
        "M15 42C16 48 31 40 26 36L3-26C-4-43-14-48-23-43C-32-39-34-27-24-12Z"
        "M-18-6L-32-8L-32-2L-13 0ZM14 4L10-3L18-14L23-11Z",
        "M-21-27C-19-32-15-34-10-32M-3-8L16 30",
    ),
}

# Per suit: its shape; ink, for text and outlines, at least 4.5:1 on the face; fill, the
# pips' body, the four chosen to stay apart under protanopia and deuteranopia
# (tests/cards); line, the detail's colour (light on a dark fill).
_SUITS: Final = {
    "spanish": {  # oros, copas, espadas, bastos
        "D": ("coin", "#7a5200", "#f2c12e", "#7a5200"),
        "H": ("cup", "#a61c2e", "#a61c2e", "#f7d6da"),
        "S": ("sword", "#1f4aa8", "#2f5fcf", "#dce6ff"),
        "C": ("baton", "#2f6b1a", "#4f9e2d", "#2f6b1a"),
    },
    "french": {  # a four-colour deck: black, red, blue, green
        "S": ("spade", "#1c1b1a", "#1c1b1a", ""),
        "H": ("heart", "#b80d0b", "#d3120f", ""),
        "D": ("diamond", "#1f5d99", "#2f7fc4", ""),
        "C": ("club", "#1e7444", "#35b36f", ""),
    },
}

# The figures' emblems, in a ±40 box: crown (king, rey), tiara (queen), horse (caballo),
# cap with a feather (jack, sota).
_EMBLEMS: Final = {
    "crown": "M-34 14L-38-22L-18-2L0-32L18-2L38-22L34 14ZM-34 20H34V30H-34Z",
    "tiara": (
        "M-34 20C-34 4-38-8-36-20C-26-10-16-10-12-26C-6-16 6-16 12-26C16-10 26-10 36-20"
        "C38-8 34 4 34 20ZM-34 24H34V32H-34Z"
    ),
    "horse": (  # a knight's head, with its eye
        "M28 38H-22C-20 28-16 18-10 8C-18 6-30 4-38 0C-42-4-42-12-36-16L-16-30L-10-44L-2-36"
        "C16-34 30-20 33 0C35 14 32 28 28 38ZM-16-18A4 4 0 1 1-24-18A4 4 0 1 1-16-18Z"
    ),
    "cap": "M-36 20C-38-4-14-18 10-16C28-14 38-2 36 20ZM12-14C18-36 34-44 46-42C36-34 26-24 20-12Z",
    "star": "M0-48L11-15H46L18 6L28 40L0 20L-28 40L-18 6L-46-15H-11Z",
}
_FIGURES: Final = {
    "spanish": {"J": "cap", "Q": "horse", "K": "crown"},
    "french": {"J": "cap", "Q": "tiara", "K": "crown"},
}

# Pips (x, y) by count, in the classic layouts; those below the middle stand upside down.
_L, _C, _R = 36, 50, 64
_PIPS: Final = {
    2: ((_C, 26), (_C, 114)),
    3: ((_C, 26), (_C, 70), (_C, 114)),
    4: ((_L, 26), (_R, 26), (_L, 114), (_R, 114)),
    5: ((_L, 26), (_R, 26), (_C, 70), (_L, 114), (_R, 114)),
    6: ((_L, 26), (_R, 26), (_L, 70), (_R, 70), (_L, 114), (_R, 114)),
    7: ((_L, 26), (_R, 26), (_C, 48), (_L, 70), (_R, 70), (_L, 114), (_R, 114)),
    8: ((_L, 26), (_R, 26), (_C, 48), (_L, 70), (_R, 70), (_C, 92), (_L, 114), (_R, 114)),
    9: ((_L, 24), (_R, 24), (_L, 51), (_R, 51), (_C, 70), (_L, 89), (_R, 89), (_L, 116), (_R, 116)),
    10: (  # wider apart: the middle pips stand between the rows
        (34, 26), (66, 26), (_C, 41), (34, 55), (66, 55),
        (34, 85), (66, 85), (_C, 99), (34, 114), (66, 114),
    ),
}  # fmt: skip
_PIP_SCALE = {7: 0.21, 8: 0.21, 9: 0.2, 10: 0.2}  # else PIP: the most pips, the least room
PIP = 0.23

# What a corner shows: Spanish decks number their figures 10, 11, 12 and the ace 1.
_INDEX: Final = {"spanish": {"A": "1", "J": "10", "Q": "11", "K": "12"}, "french": {}}

# Which ranks each style draws: every preset's deck fits in one (engine.kernel.cards.DECKS).
RANKS_OF: Final[dict[Style, tuple[str, ...]]] = {
    "spanish": tuple(r for r in RANKS if r != "10"),
    "french": RANKS,
}
SUIT_ORDER: Final[dict[Style, str]] = {"spanish": "DHSC", "french": "SHDC"}
JOKER_INK, JOKER_FILL = "#5b2a86", "#f2c12e"


def _suit_data(style: Style) -> dict[str, dict[str, str]]:
    out = {}
    for suit, (shape, ink, fill, line) in _SUITS[style].items():
        body, detail = _SHAPES[shape]
        out[suit] = {"ink": ink, "fill": fill, "body": body}
        if detail:
            out[suit] |= {"detail": detail, "line": line}
    return out


# Backs: the deck's colour and its lattice's; the lattice is one stroke repeated, drawn in
# a nested <svg> that clips it (so it compresses to almost nothing in the widget).
_BACKS: Final = {"spanish": ("#8e2430", "#c9646c"), "french": ("#24407a", "#5b79b8")}
_LATTICE: Final = "M-124 0" + "l124 124m-112-124" * 18 + "M0 0" + "l-124 124m136-124" * 18
_MEDALLION: Final = ((50, 58), (62, 70), (50, 82), (38, 70))  # the suits, in SUIT_ORDER


def _back_body(style: Style) -> str:
    """A back: a lattice on the deck's colour, the deck's four suits in a medallion."""
    colour, line = _BACKS[style]
    suits = SUITS[style]
    medallion = "".join(
        _pip(suits[s], x, y, 0.13, False)
        for s, (x, y) in zip(SUIT_ORDER[style], _MEDALLION, strict=True)
    )
    return (
        _card(colour)
        + f'<svg x="8" y="8" width="84" height="124"><path d="{_LATTICE}" stroke="{line}"'
        ' stroke-width="1.5"/></svg><rect x="8" y="8" width="84" height="124" rx="4" fill="none"'
        f' stroke="#f4e6c0" stroke-width="2"/><ellipse cx="50" cy="70" rx="24" ry="26"'
        f' fill="{FACE}" stroke="#f4e6c0" stroke-width="2"/>{medallion}'
    )


def face(code: str, style: Style, size: int = 100, label: str = "") -> str:
    """The SVG of card `code` (`7H`, `QS`, `JK`) in a deck's `style`, `size` px wide; a
    `label` (the card's name in its reader's language) becomes its text alternative."""
    if code == JOKER_CODE and style == "french":
        body = _joker()
    else:
        rank, suit = code[:-1], code[-1]
        if rank not in RANKS_OF[style] or suit not in SUIT_ORDER[style]:
            raise ValueError(f"no card {code!r} in a {style} deck")
        body = _face_body(rank, SUITS[style][suit], style)
    return _svg(body, size, label)


def back(style: Style, size: int = 100, label: str = "") -> str:
    """The back of a card of the deck's `style`."""
    return _svg(_BACK_BODIES[style], size, label)


def codes(style: Style) -> list[str]:
    """Every face a style draws: suit by suit, low to high, then the joker (French)."""
    cards = [rank + suit for suit in SUIT_ORDER[style] for rank in RANKS_OF[style]]
    return [*cards, JOKER_CODE] if style == "french" else cards


def _svg(body: str, size: int, label: str) -> str:
    height = (size * 7 + 2) // 5  # size × 1.4, rounded in integers as the widget does
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}"'
        f' width="{size}" height="{height}"'
    )
    if not label:
        return f'{head} aria-hidden="true">{body}</svg>'
    text = _escape(label)
    return f'{head} role="img" aria-label="{text}"><title>{text}</title>{body}</svg>'


def _escape(text: str) -> str:
    """Text for an attribute or an element (the widget's `esc` does the same)."""
    for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;")):
        text = text.replace(char, entity)
    return text


def _face_body(rank: str, suit: Mapping[str, str], style: Style) -> str:
    parts = [_card()]
    figure = _FIGURES[style].get(rank)
    if figure:
        parts.append(
            f'<rect x="24" y="14" width="52" height="112" rx="5" fill="{suit["fill"]}"'
            f' fill-opacity="0.14" stroke="{suit["ink"]}" stroke-width="1.5"/>'
            f'<g transform="translate(50 46) scale(0.55)"><path d="{_EMBLEMS[figure]}"'
            f' fill="{suit["fill"]}" stroke="{suit["ink"]}" stroke-width="4"/></g>'
            + _pip(suit, 50, 96, 0.36, False)
        )
    elif rank == "A":
        parts.append(_pip(suit, 50, 70, 0.56, False))
    else:
        parts.extend(
            _pip(suit, x, y, _PIP_SCALE.get(int(rank), PIP), y > 70) for x, y in _PIPS[int(rank)]
        )
    corner = _index(_INDEX[style].get(rank, rank), suit)
    parts.append(corner + f'<g transform="rotate(180 50 70)">{corner}</g>')
    return "".join(parts)


def _card(fill: str = FACE) -> str:
    return (
        f'<rect x="1" y="1" width="98" height="138" rx="8" fill="{fill}" stroke="{EDGE}"'
        ' stroke-width="1.5"/>'
    )


def _index(text: str, suit: Mapping[str, str]) -> str:
    """A corner: the rank, squeezed to fit when it has two digits, over a small suit."""
    fit = ' textLength="22" lengthAdjust="spacingAndGlyphs"' if len(text) > 1 else ""
    return (
        f'<text x="13" y="29" font-size="27" font-weight="700" font-family="{FONT}"'
        f' text-anchor="middle" fill="{suit["ink"]}"{fit}>{text}</text>'
        + _pip(suit, 13, 44, 0.17, False)
    )


def _pip(suit: Mapping[str, str], x: float, y: float, scale: float, flip: bool) -> str:
    turn = " rotate(180)" if flip else ""
    detail = suit.get("detail")
    return (
        f'<g transform="translate({x} {y}) scale({scale}){turn}">'
        f'<path d="{suit["body"]}" fill="{suit["fill"]}" stroke="{suit["ink"]}" stroke-width="9"'
        ' paint-order="stroke"/>'  # the fill hides where a shape's parts overlap
        + (
            f'<path d="{detail}" fill="none" stroke="{suit["line"]}" stroke-width="5"/>'
            if detail
            else ""
        )
        + "</g>"
    )


def _joker() -> str:
    ink, fill = JOKER_INK, JOKER_FILL
    letters = "".join(f'<tspan x="12" y="{20 + 12 * i}">{c}</tspan>' for i, c in enumerate("JOKER"))
    corner = (
        f'<text font-size="12" font-weight="700" font-family="{FONT}" text-anchor="middle"'
        f' fill="{ink}">{letters}</text>'
    )
    return (
        _card() + f'<g transform="translate(50 70) scale(0.62)"><path d="{_EMBLEMS["star"]}"'
        f' fill="{fill}" stroke="{ink}" stroke-width="5"/></g>'
        + corner
        + f'<g transform="rotate(180 50 70)">{corner}</g>'
    )


# Each style's suits as drawn: shape, ink, fill and detail line.
SUITS: Final = {style: _suit_data(style) for style in STYLES}
# All the drawing needs, for the widget's script (service.cards.widget).
DATA: Final[dict[str, object]] = {
    "face": FACE,
    "edge": EDGE,
    "font": FONT,
    "suits": SUITS,
    "emblems": _EMBLEMS,
    "figures": _FIGURES,
    "pips": {
        str(n): [_PIP_SCALE.get(n, PIP), [list(p) for p in spots]] for n, spots in _PIPS.items()
    },
    "joker": {"ink": JOKER_INK, "fill": JOKER_FILL},
    "index": _INDEX,
    "backs": _BACKS,
    "lattice": _LATTICE,
    "medallion": _MEDALLION,
    "order": SUIT_ORDER,
}
_BACK_BODIES: Final = {style: _back_body(style) for style in STYLES}  # after _pip


# How wide a corner's index is (the rank and the small suit under it), in card units:
# a fanned hand must leave at least this much of each card but the last in sight.
INDEX_WIDTH: Final = 27


def fan(count: int, width: int, widest: int = 90) -> tuple[int, int]:
    """A hand of `count` cards fanned across `width` px: each card's width and the step
    from one card to the next, as large as fits while every corner index shows whole."""
    if count <= 1:
        return min(widest, width), 0
    card = min(widest, width * WIDTH // (WIDTH + INDEX_WIDTH * (count - 1)))
    while (width - card) // (count - 1) * WIDTH < INDEX_WIDTH * card:  # whole pixels
        card -= 1
    return card, min(card + 4, (width - card) // (count - 1))  # few cards: side by side
