"""The passing game's cards: codes as everywhere (`7S`, `KH`, docs/interfaces.md 2), the pack
of a table (its ranks x four suits) and a hand's order.

Hands here are four codes in a sorted tuple: there are at most 32 cards in play and a
hand never has more than four, so plain strings are fast enough and read well in
records, storage and tests.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from engine.kernel.cards import SUITS


def rank_of(card: str) -> str:
    return card[:-1]


def pack(ranks: tuple[str, ...]) -> list[str]:
    """Every card of a table with these ranks, in a fixed order (suit by suit)."""
    return [rank + suit for suit in SUITS for rank in ranks]


def sort_key(ranks: tuple[str, ...]) -> dict[str, int]:
    """Each card's place in a sorted hand: by rank (the table's order), then suit."""
    return {
        rank + suit: r * len(SUITS) + s
        for r, rank in enumerate(ranks)
        for s, suit in enumerate(SUITS)
    }


def matching(hand: tuple[str, ...]) -> int:
    """The size of the largest group of one rank (4: four of a kind)."""
    if not hand:
        return 0
    return max(Counter(rank_of(c) for c in hand).values())


def is_four_of_a_kind(hand: tuple[str, ...]) -> bool:
    return len(hand) == 4 and len({rank_of(c) for c in hand}) == 1


def plan_pass(hand: Sequence[str], rnd: random.Random) -> str:
    """The heuristic's pass: a card of a rank held fewest of, so the rank closest to four
    stays; ties at random (the suit never matters). The engine passes it for a player
    whose time ran out, the bots pass it by choice."""
    counts = Counter(rank_of(c) for c in hand)
    fewest = min(counts.values())
    rank = rnd.choice(sorted(r for r in counts if counts[r] == fewest))
    return rnd.choice([c for c in hand if rank_of(c) == rank])
