"""Telegram's text formatting: HTML and MarkdownV2 parse modes, entity offsets in UTF-16,
and the entities Telegram finds in what users type."""

from __future__ import annotations

import html

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.telegram.errors import ApiError
from emulator.telegram.formatting import (
    detect_entities,
    format_text,
    parse_html,
    utf16_len,
    utf16_slice,
)
from emulator.telegram.markdown import parse_markdown_legacy, parse_markdown_v2


def test_html_tags_become_entities_with_utf16_offsets() -> None:
    text, entities = parse_html(
        "🂡 <b>bold <i>both</i></b> &lt;x&gt; <a href='https://t.me/x'>link</a>"
    )
    assert text == "🂡 bold both <x> link"
    # The card is one character in Python but two UTF-16 code units, as Telegram counts.
    assert entities == [
        {"type": "bold", "offset": 3, "length": 9},
        {"type": "italic", "offset": 8, "length": 4},
        {"type": "text_link", "offset": 17, "length": 4, "url": "https://t.me/x"},
    ]
    assert utf16_slice(text, 3, 9) == "bold both"


def test_pre_with_language_spoiler_and_blockquote() -> None:
    text, entities = parse_html(
        '<pre><code class="language-python">x = 1</code></pre>'
        '<span class="tg-spoiler">s</span><tg-spoiler>t</tg-spoiler>'
        "<blockquote expandable>q</blockquote>"
    )
    assert text == "x = 1stq"
    assert entities == [
        {"type": "pre", "offset": 0, "length": 5, "language": "python"},
        {"type": "spoiler", "offset": 5, "length": 1},
        {"type": "spoiler", "offset": 6, "length": 1},
        {"type": "expandable_blockquote", "offset": 7, "length": 1},
    ]


def test_unknown_html_entities_and_bare_ampersands_stay_as_text() -> None:
    assert parse_html("a & b &nbsp; &#65;&#x42;") == ("a & b &nbsp; AB", [])


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("<div>x</div>", 'Unsupported start tag "div" at byte offset 0'),
        ("é<b>x</i>", 'Unmatched end tag at byte offset 6, expected "</b>", found "</i>"'),
        ("<b>x", 'Can\'t find end tag corresponding to start tag "b"'),
        ("x</b>", "Unexpected end tag at byte offset 1"),
        ("a <b", "Unclosed start tag at byte offset 2"),
        ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
        ("1 < 2", 'Unsupported start tag "" at byte offset 2'),
    ],
)
def test_malformed_html_is_refused_in_telegrams_words(source: str, error: str) -> None:
    with pytest.raises(ApiError) as caught:
        parse_html(source)
    assert caught.value.error_code == 400
    assert caught.value.description == f"Bad Request: can't parse entities: {error}"


@given(st.text())
def test_escaped_text_parses_back_to_itself(text: str) -> None:
    assert parse_html(html.escape(text)) == (text, [])


TAGS = ["b", "i", "u", "s", "code", "tg-spoiler"]


@st.composite
def marked_up(draw: st.DrawFn, depth: int = 0) -> tuple[str, str, list[tuple[str, str]]]:
    """(html, plain text, [(tag, text it wraps)]) for a random nesting of tags."""
    parts = draw(st.lists(st.one_of(st.text(min_size=1, max_size=5), st.just(None)), max_size=4))
    source, plain, wrapped = "", "", []
    for part in parts:
        if part is not None or depth >= 2:
            piece = part or "x"
            source, plain = source + html.escape(piece), plain + piece
            continue
        tag = draw(st.sampled_from(TAGS))
        inner_source, inner_plain, inner_wrapped = draw(marked_up(depth + 1))
        source += f"<{tag}>{inner_source}</{tag}>"
        plain += inner_plain
        wrapped += [*inner_wrapped, (tag, inner_plain)] if inner_plain else inner_wrapped
    return source, plain, wrapped


@given(marked_up())
def test_every_entity_covers_exactly_the_text_its_tag_wrapped(
    case: tuple[str, str, list[tuple[str, str]]],
) -> None:
    source, plain, wrapped = case
    text, entities = parse_html(source)
    assert text == plain
    assert len(entities) == len(wrapped)
    covered = sorted(utf16_slice(text, e["offset"], e["length"]) for e in entities)
    assert covered == sorted(inner for _, inner in wrapped)
    assert all(e["offset"] + e["length"] <= utf16_len(text) for e in entities)


def test_text_is_trimmed_and_entities_follow() -> None:
    assert format_text("  <b> hi</b> \n", "HTML", None) == (
        "hi",
        [{"type": "bold", "offset": 0, "length": 2}],
    )


def test_explicit_entities_are_checked_against_the_text() -> None:
    ok = format_text("hello", None, [{"type": "bold", "offset": 0, "length": 5}])
    assert ok == ("hello", [{"type": "bold", "offset": 0, "length": 5}])
    with pytest.raises(ApiError):
        format_text("hello", None, [{"type": "bold", "offset": 3, "length": 5}])
    with pytest.raises(ApiError):
        format_text("hello", None, [{"type": "shiny", "offset": 0, "length": 1}])


@pytest.mark.parametrize("user", [None, {}, {"id": "7"}, {"id": True}, 7])
def test_a_text_mention_names_a_user_by_id(user: object) -> None:
    """Telegram reads the mentioned user's id: without one the message is refused."""
    mention = {"type": "text_mention", "offset": 0, "length": 3}
    named = {**mention, "user": {"id": 7, "is_bot": False, "first_name": "Ana"}}
    assert format_text("Ana", None, [named])[1] == [named]
    with pytest.raises(ApiError, match="text_mention needs a user"):
        format_text("Ana", None, [mention if user is None else {**mention, "user": user}])


def test_unknown_parse_mode_is_refused() -> None:
    with pytest.raises(ApiError):
        format_text("x", "BBCode", None)


def test_markdown_v2_entities_and_escapes() -> None:
    text, entities = parse_markdown_v2(r"*bold* _it_ __u__ ~s~ ||sp|| `c\`` [l](https://t.me) 1\.5")
    assert text == "bold it u s sp c` l 1.5"
    assert [e["type"] for e in entities] == [
        "bold",
        "italic",
        "underline",
        "strikethrough",
        "spoiler",
        "code",
        "text_link",
    ]


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("Score: 1.5", "Character '.' is reserved and must be escaped with the preceding '\\'"),
        ("*open", "Can't find end of Bold entity at byte offset 0"),
        ("`code", "Can't find end of Code entity at byte offset 0"),
    ],
)
def test_markdown_v2_refusals(source: str, error: str) -> None:
    with pytest.raises(ApiError) as caught:
        parse_markdown_v2(source)
    assert caught.value.description == f"Bad Request: can't parse entities: {error}"


def test_commands_mentions_and_links_in_user_text() -> None:
    text = "/start@burro_bot join-1 hi @ana_garcia <b>no</b> see t.me/burro_bot?start=x"
    found = {
        (e["type"], text[e["offset"] : e["offset"] + e["length"]]) for e in detect_entities(text)
    }
    assert found == {
        ("bot_command", "/start@burro_bot"),
        ("mention", "@ana_garcia"),
        ("url", "t.me/burro_bot?start=x"),
    }


def test_legacy_markdown() -> None:
    text, entities = parse_markdown_legacy("*Bold* 1.5 _it_ `c` [l](https://t.me) a\\_b")
    assert text == "Bold 1.5 it c l a_b"
    assert [e["type"] for e in entities] == ["bold", "italic", "code", "text_link"]
    with pytest.raises(ApiError) as caught:
        parse_markdown_legacy("x *open")
    assert caught.value.description.endswith("starting at byte offset 2")
