"""People's names: cleaned once as they come in, isolated where a line shows them.

A name is chosen by its owner and then painted into lines everybody reads, on every
platform. `clean` keeps it one visible line of at most `MAX_NAME` characters as people
count them (grapheme clusters: a family emoji is one), without what would reorder or
hide the text around it, a command Telegram would make tappable or WhatsApp's
formatting. `shown` isolates a name inside a line, so a right-to-left name cannot
reorder what follows it. `distinct` tells apart two seats whose names look alike.

Platform-neutral: both chat adapters call `clean` on the names they are given.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

MAX_NAME = 32  # grapheme clusters
# Code points one cluster may keep: the longest emoji (a kiss with two skin tones) has
# ten; a run of joiners would otherwise make one "character" of any length.
MAX_CLUSTER = 10

FSI, PDI = "\u2068", "\u2069"  # FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE
ZWJ, ZWNJ = "\u200d", "\u200c"
JOINERS = (ZWJ, ZWNJ)  # kept between two visible characters (emoji families, Indic, Persian)
BLACK_FLAG = "\U0001f3f4"  # a tag sequence's base: 🏴 + tags = England, Scotland, Wales

# Characters that show nothing yet are letters or symbols, not format controls: Hangul
# fillers, Khmer inherent vowels, the blank Braille pattern. They count as a space.
BLANKS = frozenset("\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")

# Every '/' as a lookalike: `/cancel@bot` is no tappable command, and `a/b` looks the same.
SLASH = str.maketrans({"/": "\u2215"})  # ∕ DIVISION SLASH
# WhatsApp's `*bold*`, `_italic_`, `~strike~` and ```mono``` markers, each as a
# lookalike that formats nothing. A marker inside a word (`ana_g`) formats nothing
# either: it is kept.
MARKERS = str.maketrans(
    {
        "*": "\u2217",  # ∗ ASTERISK OPERATOR
        "_": "\u02cd",  # ˍ MODIFIER LETTER LOW MACRON
        "~": "\u223c",  # ∼ TILDE OPERATOR
        "`": "\u02cb",  # ˋ MODIFIER LETTER GRAVE ACCENT
    }
)

# Categories that show nothing by themselves (a name of only these is invisible).
UNSEEN = frozenset(("Mn", "Me", "Cf", "Cc", "Cs", "Zs", "Zl", "Zp"))
# Bidi classes of right-to-left text: a name holding one is isolated where it is shown.
RTL = frozenset(("R", "AL", "AN"))
# Bidi classes of the explicit embeddings, overrides and isolates (names kept before
# `clean` may hold them; `shown` takes them out).
EXPLICIT = frozenset(("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"))


# Most names: words of Latin letters and digits (a `.`, `'` or `-` inside), one space
# apart. `clean` keeps such a name as it is, so it is taken as it is without the work.
LETTER = "0-9A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff"
PLAIN = re.compile(f"[{LETTER}][{LETTER}.'-]*(?: [{LETTER}][{LETTER}.'-]*)*")


def clean(raw: str, fallback: str) -> str:
    """A name as it is kept: one line, nothing hidden or reordering, no command nor
    formatting, at most `MAX_NAME` grapheme clusters; `fallback` if nothing visible
    is left."""
    if len(raw) <= MAX_NAME and PLAIN.fullmatch(raw):
        return raw
    return cleaned(raw, fallback)


@functools.lru_cache(maxsize=4096)  # the same people tap again and again
def cleaned(raw: str, fallback: str) -> str:
    """`clean`, for any name."""
    text = " ".join(_kept(raw).split())  # newlines, tabs and runs of spaces: one space
    clusters = graphemes(_tidy_joiners(unicodedata.normalize("NFC", text)))
    if clusters and _extends(clusters[0][0]):  # a mark with nothing to sit on
        clusters = clusters[1:]
    name = "".join(_trimmed(c) for c in clusters[:MAX_NAME]).strip()
    name = _unformatted(name)  # once cut: the cut may end a word on a marker
    return name if visible(name) else fallback


def _kept(raw: str) -> str:
    """`raw` without format controls (bidi, zero widths), lone surrogates, controls and
    blanks (as spaces), and without a command's slash."""
    out: list[str] = []
    for char in raw.translate(SLASH):
        category = unicodedata.category(char)
        if category == "Cc" or char in BLANKS:
            out.append(" ")
        elif _tag(char):  # only in a flag's tag sequence: else hidden text
            if out and (out[-1] == BLACK_FLAG or _tag(out[-1])):
                out.append(char)
        elif category not in ("Cf", "Cs", "Co") or char in JOINERS:
            out.append(char)  # private use (Co) is dropped: screens mark with it (ui.spans)
    return "".join(out)


def _unformatted(text: str) -> str:
    """WhatsApp's formatting markers as lookalikes, but inside a word."""
    out = []
    for i, char in enumerate(text):
        inside = text[i - 1 : i].isalnum() and text[i + 1 : i + 2].isalnum()
        out.append(char if inside else char.translate(MARKERS))
    return "".join(out)


def _tidy_joiners(text: str) -> str:
    """Joiners only between two visible characters: elsewhere they join nothing."""
    out = []
    for i, char in enumerate(text):
        if char in JOINERS and not (_joinable(text[i - 1 : i]) and _joinable(text[i + 1 : i + 2])):
            continue
        out.append(char)
    return "".join(out)


def _joinable(neighbour: str) -> bool:
    return neighbour != "" and not neighbour.isspace() and neighbour not in JOINERS


def _trimmed(cluster: str) -> str:
    """A cluster of at most `MAX_CLUSTER` code points, not ending in a joiner."""
    return cluster[:MAX_CLUSTER].rstrip(ZWJ + ZWNJ)


def visible(name: str) -> bool:
    """Whether a name shows anything at all."""
    return any(unicodedata.category(c) not in UNSEEN and c not in BLANKS for c in name)


# ----- grapheme clusters ------------------------------------------------------------


def graphemes(text: str) -> list[str]:
    """`text` as people count characters (Unicode's extended grapheme clusters, UAX #29,
    simplified): a base with its marks, variation selectors and skin tones; emoji joined
    by ZWJ; flags as pairs of regional indicators or a tag sequence; Indic conjuncts."""
    clusters: list[str] = []
    for char in text:
        if clusters and _continues(clusters[-1], char):
            clusters[-1] += char
        else:
            clusters.append(char)
    return clusters


def _continues(cluster: str, char: str) -> bool:
    """Whether `char` belongs to the cluster before it."""
    last = cluster[-1]
    if _extends(char) or last == ZWJ:
        return True
    if _regional(char) and _regional(last):  # a flag is two: 🇪🇸🇵🇹 is two flags
        return sum(map(_regional, cluster)) % 2 == 1
    # A virama joins the next letter into a conjunct (Devanagari क्ष).
    return unicodedata.combining(last) == 9 and unicodedata.category(char) == "Lo"


def _extends(char: str) -> bool:
    """Whether a character only ever extends the one before it."""
    return (
        unicodedata.category(char) in ("Mn", "Me", "Mc")  # marks and variation selectors
        or char in JOINERS
        or "\U0001f3fb" <= char <= "\U0001f3ff"  # skin tones
        or _tag(char)
    )


def _regional(char: str) -> bool:
    return "\U0001f1e6" <= char <= "\U0001f1ff"


def _tag(char: str) -> bool:
    return "\U000e0020" <= char <= "\U000e007f"


def cut(text: str, clusters: int) -> str:
    """The first `clusters` grapheme clusters of `text`."""
    return "".join(graphemes(text)[:clusters])


# ----- in a line of text ------------------------------------------------------------


def shown(name: str) -> str:
    """A name to sit inside a line of text, so the rest of the line reads in its own
    order: without explicit bidi controls (a name kept before `clean` may hold an
    unclosed override), and isolated (U+2068 … U+2069) if it holds right-to-left text.
    A left-to-right name is left as is: while every language we speak is written left
    to right, isolating it changes nothing a reader sees (and every text stays as
    tests and people know it)."""
    if any(unicodedata.bidirectional(c) in EXPLICIT for c in name):
        name = "".join(c for c in name if unicodedata.bidirectional(c) not in EXPLICIT)
    if any(unicodedata.bidirectional(c) in RTL for c in name):
        return FSI + name + PDI
    return name


# ----- seats told apart -------------------------------------------------------------


def alike_key(name: str) -> str:
    """What two names that look alike share: compatibility forms folded (NFKD: `ﬁ` is
    `fi`), case folded, and accents, spaces and format controls taken out."""
    folded = unicodedata.normalize("NFKD", name).casefold()
    return "".join(c for c in folded if unicodedata.category(c) not in UNSEEN)


def distinct(name: str, taken: Iterable[str]) -> str:
    """`name`, or `name (n)` with the least n from 2 whose result looks like none of the
    `taken` names (`Ana`, `ANA` → `ANA (2)`); within `MAX_NAME` clusters."""
    keys = {alike_key(t) for t in taken}
    if alike_key(name) not in keys:
        return name
    n = 2
    while alike_key(numbered(name, n)) in keys:
        n += 1
    return numbered(name, n)


def numbered(name: str, n: int) -> str:
    suffix = f" ({n})"
    return _unformatted(cut(name, MAX_NAME - len(suffix)).rstrip()) + suffix
