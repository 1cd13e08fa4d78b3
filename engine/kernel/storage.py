"""Game states to JSON and back, losslessly: the service keeps them in Redis this way.
Each game's package makes its own codec (`storage.py`) of its state type."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import TypeAdapter, ValidationError

from engine.kernel.errors import RecordError

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
