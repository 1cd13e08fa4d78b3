"""Cards, suits and decks.

A card is coded as rank + suit (`10H`, `QS`) and `JK` for the joker (docs/interfaces.md section 2).
Inside the engine a card is an index `suit * 13 + strength`, where strength 0 is the
lowest rank of the deck's order, and the joker is 52. So a suit is a 13-bit block of a
bit set, and the highest card of a suit in a set is its highest bit.
"""

from __future__ import annotations

from typing import Final

SUITS: Final = ("S", "H", "D", "C")
SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER: Final = 52
JOKER_CODE: Final = "JK"
SUIT_BITS: Final = 13
SUIT_MASKS: Final = tuple(((1 << SUIT_BITS) - 1) << (SUIT_BITS * s) for s in range(4))

# Each deck: its ranks from high to low, and whether it holds the joker.
DECKS: Final[dict[str, tuple[tuple[str, ...], bool]]] = {
    "spanish40": (("K", "Q", "J", "7", "6", "5", "4", "3", "2", "A"), False),
    "spanish48": (("K", "Q", "J", "9", "8", "7", "6", "5", "4", "3", "2", "A"), False),
    "portuguese40": (("K", "J", "Q", "7", "6", "5", "4", "3", "2", "A"), False),
    "french52": (("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"), False),
    "french52_joker": (
        ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"),
        True,
    ),
}


def suit_of(card: int) -> int:
    """Suit index of a card index (4 for the joker)."""
    return card // SUIT_BITS


def bits(mask: int) -> list[int]:
    """The card indices in a bit set, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


CODES_KEPT = 4096  # bit sets whose codes a codec keeps


class CardCodec:
    """Maps card codes to indices and back for one rank order (high to low)."""

    def __init__(self, order: tuple[str, ...], joker: bool) -> None:
        self.order = order
        self.joker = joker
        self.code_of: list[str] = [""] * (JOKER + 1)
        self.index_of: dict[str, int] = {}
        self._codes: dict[int, tuple[str, ...]] = {}  # by bit set: the table compares
        # every seat's hand before and after each move (service.table.play)
        for strength, rank in enumerate(reversed(order)):
            for s, suit in enumerate(SUITS):
                index = s * SUIT_BITS + strength
                self.code_of[index] = rank + suit
                self.index_of[rank + suit] = index
        if joker:
            self.code_of[JOKER] = JOKER_CODE
            self.index_of[JOKER_CODE] = JOKER

    def pack(self) -> list[str]:
        """Every card of the deck, in a fixed order (suit by suit, high to low)."""
        cards = [rank + suit for suit in SUITS for rank in self.order]
        return [*cards, JOKER_CODE] if self.joker else cards

    def codes(self, mask: int) -> tuple[str, ...]:
        """A bit set's cards as codes, sorted by suit then high to low."""
        known = self._codes.get(mask)
        if known is None:
            ordered = sorted(bits(mask), key=lambda c: (suit_of(c), -c))
            known = tuple(self.code_of[c] for c in ordered)
            if len(self._codes) >= CODES_KEPT:  # a bound, not a cache of every hand: afresh
                self._codes.clear()
            self._codes[mask] = known
        return known


def display(code: str) -> str:
    """A card for people: `10♥`, `K♠`, and 🃏 for the joker."""
    if code == JOKER_CODE:
        return "🃏"
    return code[:-1] + SUIT_SYMBOLS[code[-1]]
