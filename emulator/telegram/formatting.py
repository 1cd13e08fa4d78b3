"""Message text and its entities: Telegram's HTML parse mode, explicit entities, and the
entities Telegram finds by itself in what users type (commands, mentions, links).

Entity offsets and lengths are in UTF-16 code units, as in the Bot API.
The HTML parser follows Telegram's own (tdlib's `parse_html`): the same tags, the same
handling of `&...;` and the same error texts, so a malformed message fails here as it
would on Telegram.
"""

from __future__ import annotations

import re
from typing import Any

from emulator.telegram.errors import bad_request

Entity = dict[str, Any]

WHITESPACE = " \t\r\n\u00a0"

# Tag -> entity type (None: decided by attributes).
_HTML_TAGS: dict[str, str | None] = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": None,
    "tg-emoji": "custom_emoji",
    "tg-time": "date_time",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
}

ENTITY_TYPES = frozenset(
    {
        "mention",
        "hashtag",
        "cashtag",
        "bot_command",
        "url",
        "email",
        "phone_number",
        "bold",
        "italic",
        "underline",
        "strikethrough",
        "spoiler",
        "blockquote",
        "expandable_blockquote",
        "code",
        "pre",
        "text_link",
        "text_mention",
        "custom_emoji",
        "date_time",
    }
)
# A date_time entity's format: relative alone, or day of the week, date, time.
DATE_TIME_FORMAT_RE = re.compile(r"r|w?[dD]?[tT]?")


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def utf16_slice(text: str, offset: int, length: int) -> str:
    raw = text.encode("utf-16-le")
    return raw[2 * offset : 2 * (offset + length)].decode("utf-16-le", errors="replace")


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY_RE = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);")


def _decode_entity(text: str, index: int) -> tuple[str, int] | None:
    """The character an HTML entity at `index` stands for, and where it ends."""
    match = _ENTITY_RE.match(text, index)
    if match is None:
        return None
    name = match.group(1)
    if name.startswith("#"):
        code = int(name[2:], 16) if name[1:2] in ("x", "X") else int(name[1:])
        if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return None
        return chr(code), match.end()
    char = _NAMED_ENTITIES.get(name)
    return (char, match.end()) if char is not None else None


def _html_unescape(value: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(value):
        if value[i] == "&":
            decoded = _decode_entity(value, i)
            if decoded is not None:
                out.append(decoded[0])
                i = decoded[1]
                continue
        out.append(value[i])
        i += 1
    return "".join(out)


class _OpenTag:
    def __init__(self, name: str, attrs: dict[str, str], start: int) -> None:
        self.name = name
        self.attrs = attrs
        self.start = start  # UTF-16 offset in the output text


def parse_html(source: str) -> tuple[str, list[Entity]]:
    """Parse Telegram HTML into plain text and entities; errors as Telegram words them."""
    out: list[str] = []
    pos16 = 0
    stack: list[_OpenTag] = []
    entities: list[Entity] = []
    i = 0
    n = len(source)

    def fail(detail: str) -> Exception:
        return bad_request(f"can't parse entities: {detail}")

    while i < n:
        c = source[i]
        if c == "&":
            decoded = _decode_entity(source, i)
            if decoded is not None:
                out.append(decoded[0])
                pos16 += utf16_len(decoded[0])
                i = decoded[1]
                continue
        if c != "<":
            out.append(c)
            pos16 += utf16_len(c)
            i += 1
            continue
        begin = i
        i += 1
        if i < n and source[i] == "/":
            end = source.find(">", i)
            if end < 0:
                raise fail(f"Unclosed end tag at byte offset {_byte_offset(source, begin)}")
            name = source[i + 1 : end].strip().lower()
            if not stack:
                raise fail(f"Unexpected end tag at byte offset {_byte_offset(source, begin)}")
            top = stack[-1]
            if name != top.name:
                raise fail(
                    f"Unmatched end tag at byte offset {_byte_offset(source, begin)}, "
                    f'expected "</{top.name}>", found "</{name}>"'
                )
            stack.pop()
            _close_tag(top, pos16, stack, entities)
            i = end + 1
            continue
        name_start = i
        while i < n and source[i] not in WHITESPACE and source[i] != ">":
            i += 1
        if i >= n:
            raise fail(f"Unclosed start tag at byte offset {_byte_offset(source, begin)}")
        name = source[name_start:i].lower()
        if name not in _HTML_TAGS:
            raise fail(
                f'Unsupported start tag "{name}" at byte offset {_byte_offset(source, begin)}'
            )
        attrs: dict[str, str] = {}
        while True:
            while i < n and source[i] in WHITESPACE:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {_byte_offset(source, begin)}")
            if source[i] == ">":
                i += 1
                break
            attr_start = i
            while i < n and source[i] not in WHITESPACE and source[i] not in "=>":
                i += 1
            attr = source[attr_start:i].lower()
            while i < n and source[i] in WHITESPACE:
                i += 1
            if i < n and source[i] == "=":
                i += 1
                while i < n and source[i] in WHITESPACE:
                    i += 1
                if i >= n:
                    raise fail(f"Unclosed start tag at byte offset {_byte_offset(source, begin)}")
                if source[i] in "\"'":
                    quote = source[i]
                    close = source.find(quote, i + 1)
                    if close < 0:
                        raise fail(
                            f"Unclosed start tag at byte offset {_byte_offset(source, begin)}"
                        )
                    value = source[i + 1 : close]
                    i = close + 1
                else:
                    value_start = i
                    while i < n and source[i] not in WHITESPACE and source[i] != ">":
                        i += 1
                    value = source[value_start:i]
                attrs[attr] = _html_unescape(value)
            elif attr:
                attrs[attr] = ""
        if name == "span" and attrs.get("class") != "tg-spoiler":
            raise fail(
                f'Tag "span" must have class "tg-spoiler" at byte offset '
                f"{_byte_offset(source, begin)}"
            )
        if name == "tg-emoji" and not attrs.get("emoji-id"):
            raise fail(
                f'Tag "tg-emoji" must have attribute "emoji-id" at byte offset '
                f"{_byte_offset(source, begin)}"
            )
        stack.append(_OpenTag(name, attrs, pos16))

    if stack:
        raise fail(f'Can\'t find end tag corresponding to start tag "{stack[-1].name}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def _close_tag(tag: _OpenTag, pos16: int, stack: list[_OpenTag], entities: list[Entity]) -> None:
    length = pos16 - tag.start
    if tag.name == "code" and stack and stack[-1].name == "pre" and stack[-1].start == tag.start:
        language = tag.attrs.get("class", "")
        if language.startswith("language-"):
            stack[-1].attrs["language"] = language.removeprefix("language-")
        return
    if length <= 0:
        return
    entity: Entity = {"type": "", "offset": tag.start, "length": length}
    if tag.name == "a":
        href = tag.attrs.get("href")
        if not href:
            return
        user = re.fullmatch(r"tg://user\?id=(\d+)", href)
        if user:
            entity["type"] = "text_mention"
            entity["user"] = {"id": int(user.group(1)), "is_bot": False, "first_name": ""}
        else:
            entity["type"] = "text_link"
            entity["url"] = href
    elif tag.name == "pre":
        entity["type"] = "pre"
        if tag.attrs.get("language"):
            entity["language"] = tag.attrs["language"]
    elif tag.name == "blockquote":
        entity["type"] = "expandable_blockquote" if "expandable" in tag.attrs else "blockquote"
    elif tag.name == "tg-emoji":
        entity["type"] = "custom_emoji"
        entity["custom_emoji_id"] = tag.attrs["emoji-id"]
    elif tag.name == "tg-time":
        unix = tag.attrs.get("unix", "")
        date_time_fields(int(unix) if unix.isdigit() else None, tag.attrs.get("format", ""))
        entity.update(type="date_time", unix_time=int(unix))
        entity["date_time_format"] = tag.attrs.get("format", "")
    else:
        kind = _HTML_TAGS[tag.name]
        assert kind is not None
        entity["type"] = kind
    entities.append(entity)


def date_time_fields(unix_time: Any, date_time_format: Any) -> None:
    """A date_time entity's time and format (the wording is a guess in Telegram's style)."""
    if not isinstance(unix_time, int) or isinstance(unix_time, bool) or unix_time < 0:
        raise bad_request("can't parse MessageEntity: date_time needs a unix_time")
    if not isinstance(date_time_format, str) or not DATE_TIME_FORMAT_RE.fullmatch(date_time_format):
        raise bad_request("can't parse MessageEntity: wrong date_time_format")


def check_entities(text: str, raw: Any) -> list[Entity]:
    """Validate an explicit `entities` parameter against the text it formats."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise bad_request("can't parse entities JSON object")
    total = utf16_len(text)
    entities: list[Entity] = []
    for item in raw:
        if not isinstance(item, dict):
            raise bad_request("can't parse MessageEntity: object expected")
        kind = item.get("type")
        offset = item.get("offset")
        length = item.get("length")
        if kind not in ENTITY_TYPES:
            raise bad_request(f'can\'t parse MessageEntity: unsupported type "{kind}"')
        if not isinstance(offset, int) or not isinstance(length, int) or isinstance(offset, bool):
            raise bad_request("can't parse MessageEntity: offset and length must be integers")
        if offset < 0 or length < 0 or offset + length > total:
            raise bad_request("can't parse entities: entity is outside of the text")
        if kind == "text_link" and not isinstance(item.get("url"), str):
            raise bad_request("can't parse MessageEntity: text_link needs a url")
        if kind == "text_mention" and not mentioned_user(item.get("user")):
            # GUESS at the words: Telegram reads the user's id and refuses without one
            raise bad_request("can't parse MessageEntity: text_mention needs a user")
        if kind == "date_time":
            date_time_fields(item.get("unix_time"), item.get("date_time_format", ""))
        if length > 0:
            entities.append(dict(item))
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return entities


def mentioned_user(user: Any) -> bool:
    """Whether a text_mention names a user as the Bot API's User: an object with an
    integer id."""
    if not isinstance(user, dict):
        return False
    user_id = user.get("id")
    return isinstance(user_id, int) and not isinstance(user_id, bool)


def format_text(text: str, parse_mode: str | None, entities: Any) -> tuple[str, list[Entity]]:
    """Text and entities as Telegram would store them, trimmed of surrounding whitespace."""
    if parse_mode:
        mode = parse_mode.lower()
        if mode == "html":
            plain, found = parse_html(text)
        elif mode == "markdownv2":
            from emulator.telegram.markdown import parse_markdown_v2

            plain, found = parse_markdown_v2(text)
        elif mode == "markdown":
            from emulator.telegram.markdown import parse_markdown_legacy

            plain, found = parse_markdown_legacy(text)
        else:
            raise bad_request(f'unsupported parse_mode "{parse_mode}"')
    else:
        plain, found = text, check_entities(text, entities)
    return trim(plain, found)


def trim(text: str, entities: list[Entity]) -> tuple[str, list[Entity]]:
    """Strip leading and trailing whitespace, moving and clipping entities to match."""
    stripped_left = text.lstrip(WHITESPACE)
    left16 = utf16_len(text) - utf16_len(stripped_left)
    result = stripped_left.rstrip(WHITESPACE)
    total = utf16_len(result)
    out: list[Entity] = []
    for entity in entities:
        start = max(entity["offset"] - left16, 0)
        end = min(entity["offset"] + entity["length"] - left16, total)
        if end > start:
            moved = dict(entity)
            moved["offset"] = start
            moved["length"] = end - start
            out.append(moved)
    return result, out


# Entities found in what a user types.
_AUTO_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("bot_command", re.compile(r"(?<![\w/<>])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?")),
    ("url", re.compile(r"(?<![\w@])(?:https?://|t\.me/)[^\s<>\"]+")),
    ("mention", re.compile(r"(?<![\w@])@[A-Za-z][A-Za-z0-9_]{3,31}")),
    ("hashtag", re.compile(r"(?<![\w#])#[^\W\d_][\w]*")),
)


def detect_entities(text: str) -> list[Entity]:
    """Commands, links, mentions and hashtags in plain text, as Telegram marks them."""
    found: list[Entity] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _AUTO_PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < b and a < end for a, b in taken):
                continue
            taken.append((start, end))
            found.append(
                {
                    "type": kind,
                    "offset": utf16_len(text[:start]),
                    "length": utf16_len(text[start:end]),
                }
            )
    found.sort(key=lambda e: (e["offset"], -e["length"]))
    return found
