"""Games to JSON and back, losslessly: the service keeps them in Redis this way.

`JsonCodec` serves both families (follow-suit here, passing in `engine.passing.storage`).
"""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import TypeAdapter, ValidationError

from engine.errors import RecordError
from engine.game import GameState

T = TypeVar("T")


class JsonCodec(Generic[T]):
    """Compact JSON of a frozen game state type, checked on the way back in."""

    def __init__(self, kind: type[T], name: str) -> None:
        self.adapter: TypeAdapter[T] = TypeAdapter(kind)
        self.name = name

    def dumps(self, game: T) -> bytes:
        return self.adapter.dump_json(game)

    def loads(self, data: bytes | str) -> T:
        """A game from `dumps` output; RecordError if it is not one."""
        try:
            return self.adapter.validate_json(data)
        except ValidationError as exc:
            raise RecordError(f"not a stored {self.name}: {exc.errors()[0]['msg']}") from None


_CODEC = JsonCodec(GameState, "game")
dumps = _CODEC.dumps  # a whole game: rules, scores, every hand's deck and actions
loads = _CODEC.loads
