"""An ended room's game as it is kept for the retention period: its start and its moves
packed (engine.kernel.packing), a byte or two a move where the whole state takes a
kilobyte a hand. Loading the room rebuilds the game by replaying them.

A process keeps the few games it packed or rebuilt lately, both ways, so that loading
an ended room it saved or loaded lately (its /export, a late button, a new game in the
same chat) does not replay it, and saving a room as it was loaded does not pack it
again.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from dataclasses import asdict
from typing import Any

from pydantic import TypeAdapter

from engine.kernel.packing import Packed, pack, unpack
from engine.registry import find_game

RECENT = 64  # games kept per process, each way
_PACKED = TypeAdapter(Packed)


def packed(preset: str, state: Any) -> dict[str, Any] | None:
    """`state` packed, as JSON data; None when it cannot be (the room keeps it whole)."""
    found = _recent.form_of(state)
    if found is not None:
        return found[1]
    try:
        form = pack(find_game(preset)[0], state)
    except Exception:  # a game's bug met in the replay: the save that ends a game goes on
        logging.getLogger(__name__).exception("packing a game failed: it is kept whole")
        form = None
    data = None if form is None else asdict(form)
    _recent.keep(preset, state, data)
    return data


def rebuilt(preset: str, data: dict[str, Any]) -> Any:
    """The game packed as `data`, replayed (RecordError, or a ValidationError for data
    of the wrong shape, if it is not one of the preset's game)."""
    state = _recent.state_of(preset, data)
    if state is None:
        form = _PACKED.validate_python(data)
        state = unpack(find_game(preset)[0], form)
        _recent.keep(preset, state, asdict(form))  # as `packed` gives it: the same bytes
    return state


class _Recent:
    """The games packed or rebuilt lately, both ways: a game by its packed form, and a
    packed form by the game's identity (states are frozen: the same object is the same
    game). Threads share it (a worker's timer clock): a lock."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.states: OrderedDict[str, Any] = OrderedDict()
        # By id: each entry holds its state, so the id is not reused while it is here.
        self.forms: OrderedDict[int, tuple[Any, dict[str, Any] | None]] = OrderedDict()

    def state_of(self, preset: str, data: dict[str, Any]) -> Any:
        key = _key(preset, data)
        with self.lock:
            if key in self.states:
                self.states.move_to_end(key)
            return self.states.get(key)

    def form_of(self, state: Any) -> tuple[Any, dict[str, Any] | None] | None:
        with self.lock:
            found = self.forms.get(id(state))
            if found is None or found[0] is not state:
                return None
            self.forms.move_to_end(id(state))
            return found

    def keep(self, preset: str, state: Any, data: dict[str, Any] | None) -> None:
        with self.lock:
            self.forms[id(state)] = (state, data)
            self.forms.move_to_end(id(state))
            if data is not None:
                self.states[_key(preset, data)] = state
                self.states.move_to_end(_key(preset, data))
            for kept in (self.forms, self.states):
                while len(kept) > self.size:
                    kept.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.forms.clear()
            self.states.clear()


def _key(preset: str, data: dict[str, Any]) -> str:
    return json.dumps([preset, data], sort_keys=True)


_recent = _Recent(RECENT)
