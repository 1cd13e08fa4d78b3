"""Texts cut to a limit counted as Telegram counts: in UTF-16 code units.

Telegram limits a message text to 4096 units, a callback answer to 200 and a caption to
1024, counted in UTF-16 (an emoji outside the Basic Multilingual Plane counts two), not
in Python's code points. A cut never splits a surrogate pair, and (best effort) not a
grapheme cluster either: a family emoji is kept whole or left out whole.
"""

from __future__ import annotations

from service.table.names import graphemes

ELLIPSIS = "…"


def utf16_len(text: str) -> int:
    """`text`'s length in UTF-16 code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def cut_utf16(text: str, limit: int, ellipsis: str = ELLIPSIS) -> str:
    """`text` if it fits in `limit` UTF-16 units, else its longest run of whole grapheme
    clusters that fits with `ellipsis` after it."""
    if utf16_len(text) <= limit:
        return text
    budget = limit - utf16_len(ellipsis)
    kept: list[str] = []
    used = 0
    # A code point is at least one unit: past `limit` of them nothing more fits, and a
    # cluster the slice cuts short ends past the budget, so it is left out whole.
    for cluster in graphemes(text[: limit + 1]):
        used += utf16_len(cluster)
        if used > budget:
            break
        kept.append(cluster)
    return "".join(kept) + ellipsis
