"""Telegram's MarkdownV2 parse mode, with its strict escaping rules (and the legacy
Markdown mode, which has almost none).

Any of ``_*[]()~`>#+-=|{}.!`` outside code must be escaped with a backslash; Telegram
refuses the message otherwise, and so does this parser, with the same words.
Supported: *bold*, _italic_, __underline__, ~strikethrough~, ||spoiler||, `code`,
```pre``` (with a language on the first line), [text](url) and `>` block quotes.
"""

from __future__ import annotations

from emulator.telegram.errors import bad_request
from emulator.telegram.formatting import Entity, utf16_len

RESERVED = "_*[]()~`>#+-=|{}.!"

_NAMES = {
    "bold": "Bold",
    "italic": "Italic",
    "underline": "Underline",
    "strikethrough": "Strikethrough",
    "spoiler": "Spoiler",
    "text_link": "TextUrl",
}


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


def parse_markdown_v2(source: str) -> tuple[str, list[Entity]]:
    out: list[str] = []
    pos16 = 0
    entities: list[Entity] = []
    # Open entities: (type, start offset in output, byte offset of the opening in source).
    stack: list[tuple[str, int, int]] = []
    quote_start: int | None = None
    i = 0
    n = len(source)

    def fail(detail: str) -> Exception:
        return bad_request(f"can't parse entities: {detail}")

    def emit(text: str) -> None:
        nonlocal pos16
        out.append(text)
        pos16 += utf16_len(text)

    def close_quote() -> None:
        nonlocal quote_start
        if quote_start is not None and pos16 > quote_start:
            entities.append(
                {"type": "blockquote", "offset": quote_start, "length": pos16 - quote_start}
            )
        quote_start = None

    at_line_start = True
    while i < n:
        c = source[i]
        if at_line_start:
            at_line_start = False
            if c == ">":
                if quote_start is None:
                    quote_start = pos16
                i += 1
                continue
            close_quote()
        if c == "\\" and i + 1 < n and 0 < ord(source[i + 1]) <= 126:
            emit(source[i + 1])
            i += 2
            continue
        if c == "\n":
            emit(c)
            i += 1
            at_line_start = True
            continue
        if c not in RESERVED:
            emit(c)
            i += 1
            continue
        begin = i
        top = stack[-1][0] if stack else None
        if c == "`":
            is_pre = source.startswith("```", i)
            i += 3 if is_pre else 1
            language = ""
            if is_pre:
                newline = source.find("\n", i)
                first_line = source[i:newline] if newline >= 0 else ""
                if newline >= 0 and first_line and " " not in first_line:
                    language = first_line
                    i = newline + 1
            start16 = pos16
            closing = "```" if is_pre else "`"
            while True:
                if i >= n:
                    kind = "Pre" if is_pre else "Code"
                    at = _byte_offset(source, begin)
                    raise fail(f"Can't find end of {kind} entity at byte offset {at}")
                if source[i] == "\\" and i + 1 < n and source[i + 1] in "`\\":
                    emit(source[i + 1])
                    i += 2
                    continue
                if source.startswith(closing, i):
                    i += len(closing)
                    break
                emit(source[i])
                i += 1
            if pos16 > start16:
                entity: Entity = {
                    "type": "pre" if is_pre else "code",
                    "offset": start16,
                    "length": pos16 - start16,
                }
                if language:
                    entity["language"] = language
                entities.append(entity)
            continue
        if c == "]" and top == "text_link":
            _, start16, _ = stack.pop()
            i += 1
            if i < n and source[i] == "(":
                i += 1
                url: list[str] = []
                while i < n and source[i] != ")":
                    if source[i] == "\\" and i + 1 < n:
                        i += 1
                    url.append(source[i])
                    i += 1
                if i >= n:
                    raise fail(
                        f"Can't find end of a URL at byte offset {_byte_offset(source, begin)}"
                    )
                i += 1
                if pos16 > start16:
                    entities.append(
                        {
                            "type": "text_link",
                            "offset": start16,
                            "length": pos16 - start16,
                            "url": "".join(url),
                        }
                    )
            continue
        if c == "[":
            stack.append(("text_link", pos16, _byte_offset(source, begin)))
            i += 1
            continue
        opening: str | None = None
        width = 1
        if c == "*":
            opening = "bold"
        elif c == "~":
            opening = "strikethrough"
        elif c == "|" and source.startswith("||", i):
            opening, width = "spoiler", 2
        elif c == "_":
            if source.startswith("__", i) and top != "italic":
                opening, width = "underline", 2
            else:
                opening = "italic"
        if opening is None:
            raise fail(f"Character '{c}' is reserved and must be escaped with the preceding '\\'")
        i += width
        if top == opening:
            _, start16, _ = stack.pop()
            if pos16 > start16:
                entities.append({"type": opening, "offset": start16, "length": pos16 - start16})
        else:
            stack.append((opening, pos16, _byte_offset(source, begin)))
    if stack:
        kind, _, byte_at = stack[-1]
        raise fail(f"Can't find end of {_NAMES[kind]} entity at byte offset {byte_at}")
    close_quote()
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


_LEGACY = {"*": "bold", "_": "italic"}


def parse_markdown_legacy(source: str) -> tuple[str, list[Entity]]:
    """Telegram's legacy Markdown: *bold*, _italic_, `code`, ```pre```, [text](url); no
    escaping outside entities (a backslash escapes the four markers)."""
    out: list[str] = []
    pos16 = 0
    entities: list[Entity] = []
    i = 0
    n = len(source)

    def fail(at: int) -> Exception:
        return bad_request(
            "can't parse entities: Can't find end of the entity starting at byte offset "
            f"{_byte_offset(source, at)}"
        )

    def emit(text: str) -> None:
        nonlocal pos16
        out.append(text)
        pos16 += utf16_len(text)

    while i < n:
        c = source[i]
        if c == "\\" and i + 1 < n and source[i + 1] in "*_`[":
            emit(source[i + 1])
            i += 2
            continue
        if c in _LEGACY:
            end = source.find(c, i + 1)
            if end < 0:
                raise fail(i)
            start16 = pos16
            emit(source[i + 1 : end])
            if pos16 > start16:
                entities.append({"type": _LEGACY[c], "offset": start16, "length": pos16 - start16})
            i = end + 1
            continue
        if c == "`":
            fence = "```" if source.startswith("```", i) else "`"
            end = source.find(fence, i + len(fence))
            if end < 0:
                raise fail(i)
            start16 = pos16
            emit(source[i + len(fence) : end])
            if pos16 > start16:
                kind = "pre" if fence == "```" else "code"
                entities.append({"type": kind, "offset": start16, "length": pos16 - start16})
            i = end + len(fence)
            continue
        if c == "[":
            close = source.find("](", i + 1)
            end = source.find(")", close + 2) if close >= 0 else -1
            if close < 0 or end < 0:
                raise fail(i)
            start16 = pos16
            emit(source[i + 1 : close])
            if pos16 > start16:
                entities.append(
                    {
                        "type": "text_link",
                        "offset": start16,
                        "length": pos16 - start16,
                        "url": source[close + 2 : end],
                    }
                )
            i = end + 1
            continue
        emit(c)
        i += 1
    return "".join(out), entities
