"""A press as a short text, the same on every platform's wire: `<room>.<version>.<token>`,
e.g. `k3j9x0qa.17.p10H`. The version makes a stale button harmless; anything that does
not parse is refused as forged. The tokens are compact and fixed for good: buttons
already in people's chats must keep working, so a token is never reused for something
else. Each platform carries the text in its own field (Telegram's 64-byte button data:
service.platforms.telegram.callbacks; WhatsApp's reply ids).

    commands   J join · L leave · B add bot · X remove bot · S start · C settings ·
               o:done close them · R rules · K cancel · k keep playing · N rematch ·
               T the hand's whole story · H the presser's hand, to them alone ·
               I the presser's tip
    options    o:<key>
    moves      follow-suit: p<card> play · d draw · dl / dr draw left / right · x pass
               passing: c<card> pass the card · b ¡Burro! · f fake call · r respond
    not playable (a listed card): n<index>
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.ui import intents
from service.ui.intents import Command, CommandName, Move, NotPlayable, Option, What

_PATTERN = re.compile(r"^([a-z0-9]{8})\.(\d{1,9})\.([A-Za-z0-9_:+-]{1,40})$")

_COMMANDS: dict[CommandName, str] = {
    "join": "J",
    "leave": "L",
    "add_bot": "B",
    "remove_bot": "X",
    "start": "S",
    "settings": "C",
    "settings_done": "o:done",
    "rules": "R",
    "cancel": "K",
    "keep_playing": "k",
    "rematch": "N",
    "story": "T",
    "hand": "H",
    "tip": "I",
}
_COMMANDS_BACK = {token: name for name, token in _COMMANDS.items()}

# Game actions, engine string <-> compact token (a card's moves carry the card).
_FOLLOW = {"draw": "d", "draw:left": "dl", "draw:right": "dr", "pass": "x"}
# the passing game's; `fake` alone means this round's word (the engine's rule)
_PASSING = {"burro": "b", "respond": "r", "fake": "f"}
_FOLLOW_BACK = {token: action for action, token in _FOLLOW.items()}
_MOVES_BACK = {token: action for action, token in (_FOLLOW | _PASSING).items()}


@dataclass(frozen=True)
class Raw:
    """Button data split up: the room, the version and the compact token."""

    room: str
    version: int
    action: str  # the compact token


def encode(room: str, version: int, action: str) -> str:
    data = f"{room}.{version}.{action}"
    if not _PATTERN.match(data):
        raise ValueError(f"button data {data!r} is not valid")
    return data


def decode(data: str | None) -> Raw | None:
    """The parts of a button's data, or None when it is not ours."""
    match = _PATTERN.match(data or "")
    if match is None:
        return None
    return Raw(match.group(1), int(match.group(2)), match.group(3))


# ----- intents <-> tokens ----------------------------------------------------------------


def text(press: intents.Press) -> str:
    """A press as its short text."""
    return encode(press.room, press.version, token(press.what))


def press(data: str | None) -> intents.Press | None:
    """The press a short text names, or None when it is not ours."""
    raw = decode(data)
    return None if raw is None else press_of(raw)


def press_of(raw: Raw) -> intents.Press | None:
    """The press of data split up already, or None when its token names nothing."""
    what = intent_of(raw.action)
    return None if what is None else intents.Press(raw.room, raw.version, what)


def token(what: What) -> str:
    """The compact token of what a press asks for."""
    if isinstance(what, Command):
        return _COMMANDS[what.name]
    if isinstance(what, Option):
        return "o:" + what.key
    if isinstance(what, NotPlayable):
        return f"n{what.index}"
    return game_token(what.action)


def intent_of(token: str) -> What | None:
    """What a compact token asks for, or None when it names nothing."""
    if token in _COMMANDS_BACK:
        return Command(_COMMANDS_BACK[token])
    if token.startswith("o:") and len(token) > 2:
        return Option(token[2:])
    if token.startswith("n") and token[1:].isdigit() and len(token) <= 3:
        return NotPlayable(int(token[1:]))
    action = move_action(token)
    return None if action is None else Move(action)


def game_token(action: str) -> str:
    """`play:10H` -> `p10H`, `draw` -> `d`, `pass:7S` -> `c7S`, `fake:Barro` -> `f` …"""
    if action in _FOLLOW:
        return _FOLLOW[action]
    verb, _colon, card = action.partition(":")
    if verb == "play" and card:
        return "p" + card
    if verb == "pass" and card:
        return "c" + card
    if verb in _PASSING:
        return _PASSING[verb]
    raise ValueError(f"no button token for the action {action!r}")


def move_action(token: str) -> str | None:
    """The engine action of any game's token, or None when it is not a move."""
    if token in _MOVES_BACK:
        return _MOVES_BACK[token]
    if token.startswith("c") and 3 <= len(token) <= 4:
        return "pass:" + token[1:]
    return game_action(token)


def game_action(token: str) -> str | None:
    """The follow-suit action of a token, or None when it is not one (benchmarks and
    tests tell a follow-suit move by it)."""
    if token in _FOLLOW_BACK:
        return _FOLLOW_BACK[token]
    if token.startswith("p") and 2 <= len(token) <= 4:
        return "play:" + token[1:]
    return None
