"""Marks inside a screen's words for what a platform may draw specially: a person named
so that the message tells them (Telegram's `text_mention`), a moment shown in each
reader's own time zone (Telegram's `date_time`).

A painter writes a mark where the words go (`mention`, `moment`); each platform's
renderer takes them out: `plain` leaves only the words (WhatsApp, a popup), `split`
gives the words and where each mark was (Telegram turns the spans into entities). A
mark is `OPEN kind:value MID words CLOSE`, in private-use characters that no name or
typed word can hold (service.table.names drops them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

OPEN, MID, CLOSE = "\ue000", "\ue001", "\ue002"
MARKS = OPEN + MID + CLOSE
_MARK = re.compile(f"{OPEN}(mention|time):(-?\\d+){MID}([^{MARKS}]*){CLOSE}")
_STRAY = re.compile(f"[{MARKS}]")

Kind = Literal["mention", "time"]


@dataclass(frozen=True)
class Span:
    """A mark's words in the plain text: code points `start` to `end`; a mention's user
    id, or a moment's seconds since 1970, as `value`."""

    start: int
    end: int
    kind: Kind
    value: int


def mention(user: int, name: str) -> str:
    """`name`, marked as naming the person `user` (a message with it notifies them)."""
    return f"{OPEN}mention:{user}{MID}{_STRAY.sub('', name)}{CLOSE}"


def moment(at: float, words: str) -> str:
    """`words` (the time as the screen's own zone says it), marked as the moment `at`:
    where a platform can, each reader sees it in their own zone."""
    return f"{OPEN}time:{int(at)}{MID}{_STRAY.sub('', words)}{CLOSE}"


def split(text: str) -> tuple[str, list[Span]]:
    """The words without their marks, and where each mark was."""
    if OPEN not in text:
        return _STRAY.sub("", text), []
    out: list[str] = []
    spans: list[Span] = []
    length = last = 0
    for found in _MARK.finditer(text):
        before = _STRAY.sub("", text[last : found.start()])
        out.append(before)
        length += len(before)
        words = found[3]
        kind: Kind = "mention" if found[1] == "mention" else "time"
        spans.append(Span(length, length + len(words), kind, int(found[2])))
        out.append(words)
        length += len(words)
        last = found.end()
    out.append(_STRAY.sub("", text[last:]))
    return "".join(out), [s for s in spans if s.end > s.start]


def plain(text: str) -> str:
    """The words without their marks."""
    return split(text)[0]
