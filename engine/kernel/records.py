"""The record envelope, `burro-record/1` (docs/interfaces.md section 3): every game's
hand records share it, each game checks its own fields."""

from __future__ import annotations

import json
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from engine.kernel.errors import RecordError

FORMAT = "burro-record/1"
Doc = TypeVar("Doc", bound=BaseModel)


def parse_document(text: str, shape: type[Doc]) -> Doc:
    """A record's JSON text as `shape` (either family's document model), or RecordError
    naming the first problem in one line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    if data.get("format") != FORMAT:
        raise RecordError(f"'format' must be {FORMAT!r} (got {data.get('format')!r})")
    try:
        return shape.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise RecordError(f"{where}: {error['msg']}") from None
