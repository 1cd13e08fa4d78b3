"""Button data: the room id, the room's version and a compact action, within 64 bytes.

`<room>.<version>.<action>`, e.g. `k3j9x0qa.17.p10H`. The version makes a stale
keyboard harmless; anything that does not parse is refused as forged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_BYTES = 64  # Telegram's limit on callback_data
_PATTERN = re.compile(r"^([a-z0-9]{8})\.(\d{1,9})\.([A-Za-z0-9_:+-]{1,40})$")

# Game actions, engine string <-> compact token.
_GAME = {"draw": "d", "draw:left": "dl", "draw:right": "dr", "pass": "x"}
_GAME_BACK = {token: action for action, token in _GAME.items()}


@dataclass(frozen=True)
class Press:
    room: str
    version: int
    action: str  # the compact action


def encode(room: str, version: int, action: str) -> str:
    data = f"{room}.{version}.{action}"
    if len(data.encode()) > MAX_BYTES or not _PATTERN.match(data):
        raise ValueError(f"button data {data!r} is not valid")
    return data


def decode(data: str | None) -> Press | None:
    """The press a button's data names, or None when it is not ours."""
    match = _PATTERN.match(data or "")
    if match is None:
        return None
    return Press(match.group(1), int(match.group(2)), match.group(3))


def game_token(action: str) -> str:
    """`play:10H` -> `p10H`, `draw` -> `d` …"""
    return _GAME.get(action) or "p" + action.removeprefix("play:")


def game_action(token: str) -> str | None:
    """The engine action of a game token, or None when it is not a game action."""
    if token in _GAME_BACK:
        return _GAME_BACK[token]
    if token.startswith("p") and 2 <= len(token) <= 4:
        return "play:" + token[1:]
    return None
