"""An ended room's game as it is kept for the retention period: its start and its moves
packed (engine.kernel.packing), a byte or two a move where the whole state takes a
kilobyte a hand. Loading the room rebuilds the game by replaying them.

A process keeps the few games it packed or rebuilt lately, both ways, so that loading
the same ended room again (its /export, a late button) does not replay it each time,
and saving a room as it was loaded does not pack it again.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import asdict
from functools import lru_cache
from typing import Any

from pydantic import TypeAdapter

from engine.kernel.packing import Packed, pack, unpack
from engine.registry import find_game

RECENT = 64  # games kept per process, each way
_PACKED = TypeAdapter(Packed)


def packed(preset: str, state: Any) -> dict[str, Any] | None:
    """`state` packed, as JSON data; None when it cannot be (the room keeps it whole)."""
    found = _recent.get(state)
    if found is not None:
        return found[1]
    form = pack(find_game(preset)[0], state)
    data = None if form is None else asdict(form)
    _recent.put(state, data)
    return data


def rebuilt(preset: str, data: dict[str, Any]) -> Any:
    """The game packed as `data`, replayed (RecordError, or a ValidationError for data
    of the wrong shape, if it is not one of the preset's game)."""
    return _rebuilt(preset, json.dumps(data, sort_keys=True))


@lru_cache(maxsize=RECENT)
def _rebuilt(preset: str, text: str) -> Any:
    form = _PACKED.validate_python(json.loads(text))
    state = unpack(find_game(preset)[0], form)
    _recent.put(state, asdict(form))  # as `packed` gives it: saved again, the same bytes
    return state


class _Recent:
    """The packed form of the games packed or rebuilt lately, by the state's identity
    (a frozen state: the same object is the same game). Threads share it: a lock."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.forms: OrderedDict[int, tuple[Any, dict[str, Any] | None]] = OrderedDict()

    def get(self, state: Any) -> tuple[Any, dict[str, Any] | None] | None:
        with self.lock:
            found = self.forms.get(id(state))
            if found is None or found[0] is not state:
                return None
            self.forms.move_to_end(id(state))
            return found

    def put(self, state: Any, data: dict[str, Any] | None) -> None:
        # The entry holds the state itself, so its id cannot be reused while it is here.
        with self.lock:
            self.forms[id(state)] = (state, data)
            self.forms.move_to_end(id(state))
            while len(self.forms) > self.size:
                self.forms.popitem(last=False)


_recent = _Recent(RECENT)
