"""What bench.move_e2e's looks need of a room, read from its stored JSON: who sits where,
its version and status, and the hand in play (pydantic skips the rest unparsed: the log
lines, the past hands). A half to a fifth of a whole Room's CPU, which the harness would
otherwise take from the machine it measures.

Its own module, not bench.move_e2e's: pydantic finds the models' annotations by their
module's name, which a module run as `__main__` under `python -m cProfile` does not have.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

from service.infra.store import room_json
from service.table.room import DEFAULT_PRESET, state_adapter


class SeenSeat(BaseModel):
    user_id: int | None = None  # None: a bot


class SeenSettings(BaseModel):
    preset: str = DEFAULT_PRESET


class Seen(BaseModel):
    """A room as a look sees it (its fields' defaults are Room's: stored rooms leave
    fields at their defaults out)."""

    id: str
    version: int = 0
    status: str = "lobby"
    settings: SeenSettings = Field(default_factory=SeenSettings)
    seats: list[SeenSeat] = Field(default_factory=list)
    game: Any = None

    @model_validator(mode="after")
    def _hand_in_play(self) -> Seen:
        """The game as its state, without its past hands (who is to move and the legal
        moves depend on the hand in play alone)."""
        if isinstance(self.game, dict):
            state = {**self.game, "past": ()}
            self.game = state_adapter(self.settings.preset).validate_python(state)
        return self

    @classmethod
    def of(cls, data: bytes | str) -> Seen:
        """Read from a room as stored (as `decode_room` reads it)."""
        return cls.model_validate_json(room_json(data))
