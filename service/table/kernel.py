"""What each game's table ways are built from (as `engine.kernel` is for the games): the
bots' default pace, the refusal of a start with too few players, a settings cycle.

Apart from `service.table.games` because that registry imports every game's table ways,
and they need these: the service's layers allow no import cycle.
"""

from __future__ import annotations

from typing import Any

from service.i18n import _
from service.table.outcome import Outcome

DEFAULT_DELAY = 1.5  # seconds: the service's default bot delay, which think times assume


def too_few(seats: int, least: int) -> Outcome | None:
    """The refusal of a start with fewer than `least` players (two or three)."""
    if seats >= least:
        return None
    if least == 3:
        return Outcome().say(_("Three or more players are needed to start."), alert=True)
    return Outcome().say(_("Two or more players are needed to start."), alert=True)


def next_of(choices: tuple[Any, ...], current: Any) -> Any:
    """The value after `current` in `choices`, round and round (the first if unknown):
    every settings button is such a cycle."""
    if current not in choices:
        return choices[0]
    return choices[(choices.index(current) + 1) % len(choices)]
