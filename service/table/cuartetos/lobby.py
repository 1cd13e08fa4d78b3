"""A cuartetos table's lobby: its settings and its start.

A cuartetos table is played against the clock: every round has a time to choose and every
call a time to respond (the engine's `pass_window` and `response_window` options). The
lobby offers them as a pace, live (seconds, everyone at the table at once) or slow
(minutes or hours, a game across a day), instead of the follow-suit turn time.
"""

from __future__ import annotations

from typing import Any

from engine.cuartetos import make_rules
from engine.kernel.rules import LETTERS
from service.settings import Settings
from service.table.kernel import next_of
from service.table.room import RoomSettings

MIN_PLAYERS = 3  # docs/rules.md, Passing Burro: 3 to 8 players
# (time to choose a card, time to respond to a call), seconds: live paces, then slow ones.
PACES: tuple[tuple[float, float], ...] = (
    (20.0, 5.0),
    (30.0, 10.0),
    (60.0, 15.0),
    (3600.0, 600.0),
    (4 * 3600.0, 1800.0),
    (12 * 3600.0, 3600.0),
)
# A group's table is played across a day by default (four hours to choose, half an hour
# to respond; reminders come before the time is up); a table against bots in a private
# chat, with its one player right there, is live.
FAMILY_PACE = PACES[4]
TARGETS = tuple(range(1, len(LETTERS) + 1))  # letters that lose: B, B-U, ... B-U-R-R-O
NOT_HERE = ("hand", "empty", "timeout", "ontimeout")  # follow-suit settings


def initial_options(settings: Settings | None, group: bool = True) -> dict[str, Any]:
    """Options a new table starts with: a group's the family pace, a private one the
    engine's live pace; the windows and the target the environment sets win
    (`BURRO_PASS_WINDOW`, `BURRO_RESPONSE_WINDOW`, `BURRO_GAME_TARGET`; tests use short
    ones)."""
    options = family_pace() if group else {}
    if settings is None:
        return options
    if settings.pass_window is not None:
        options["pass_window"] = settings.pass_window
    if settings.response_window is not None:
        options["response_window"] = settings.response_window
    if settings.game_target is not None:
        options["target"] = settings.game_target
    return options


def family_pace() -> dict[str, Any]:
    """The pace options of a group's table unless it chooses another."""
    return {"pass_window": FAMILY_PACE[0], "response_window": FAMILY_PACE[1]}


def cycle(settings: RoomSettings, key: str) -> bool | None:
    """Cycle a cuartetos table's own setting: True when done, False for a follow-suit
    setting (it means nothing here), None for a setting both families share."""
    rules = make_rules(settings.preset, settings.options)
    options = settings.options
    if key == "pace":
        now = (rules.pass_window, rules.response_window)
        options["pass_window"], options["response_window"] = next_of(PACES, now)
    elif key == "target":
        options["target"] = next_of(TARGETS, rules.target)
    elif key == "suits":
        options["suit_style"] = "french" if rules.suit_style == "spanish" else "spanish"
    elif key in NOT_HERE:
        return False
    else:
        return None
    return True
