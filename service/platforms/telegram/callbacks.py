"""Intents on Telegram's wire: button data within 64 bytes, inline queries, deep links.

A press is its short text (service.ui.tokens: `<room>.<version>.<token>`) as
callback_data, which Telegram caps at 64 bytes. "Show my cards" is the inline query
`g<room>` in the current chat; "open in private" the deep link
`https://t.me/<bot>?start=g<room>` (`j<room>` sits the player down first).
"""

from __future__ import annotations

from service.ui import intents, tokens
from service.ui.tokens import (
    Raw,
    decode,
    game_action,
    game_token,
    intent_of,
    move_action,
    press_of,
    token,
)

__all__ = [
    "Raw",
    "decode",
    "encode",
    "game_action",
    "game_token",
    "intent_of",
    "move_action",
    "press_of",
    "token",
]
MAX_BYTES = 64  # Telegram's limit on callback_data
Press = Raw  # its old name (bench.chaos); a press as an intent is service.ui.intents.Press


def encode(room: str, version: int, action: str) -> str:
    return checked(tokens.encode(room, version, action))


def checked(data: str) -> str:
    """Button data as Telegram takes it, within its 64 bytes."""
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"button data {data!r} is longer than {MAX_BYTES} bytes")
    return data


def data(press: intents.Press) -> str:
    """A press as callback_data."""
    return checked(tokens.text(press))


def press(data: str | None) -> intents.Press | None:
    """The press a button's data names, or None when it is not ours."""
    return tokens.press(data)


# ----- links ---------------------------------------------------------------------------


def inline_query(room: str) -> str:
    """The inline query that lists a player's cards in a room (`inline.on_inline_query`)."""
    return f"g{room}"


def deep_link(bot_username: str, room: str, join: bool = False) -> str:
    """The link that opens the bot's private chat on a room (`commands.start`); `join`
    sits the player down first."""
    return f"https://t.me/{bot_username}?start={'j' if join else 'g'}{room}"
