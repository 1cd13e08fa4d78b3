"""The Bot API's methods and input types, from `api_table.json` (generated from the
newest reference by `tools/api_table.py`; the sources' MIT licence notices in
`api_table.LICENSE`).

The emulator reads it to tell a method Telegram does not have (404) from one it does,
a parameter Telegram would ignore from one it reads, and a required one from the rest.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parent / "api_table.json"

# Parameters the reference no longer lists but Telegram still reads (telegram-bot-api's
# Client.cpp): a call using them is answered as before, so they are not unknown.
STILL_READ: dict[str, frozenset[str]] = {
    "answerinlinequery": frozenset({"switch_pm_text", "switch_pm_parameter"}),
    "sendmessage": frozenset({"disable_web_page_preview"}),
    "editmessagetext": frozenset({"disable_web_page_preview"}),
}
# Read by every method that sends a message (Client::get_input_message_reply_to).
STILL_READ_BY_SENDERS = {"reply_to_message_id": "Integer", "allow_sending_without_reply": "Boolean"}


@dataclass(frozen=True)
class Param:
    name: str
    types: tuple[str, ...]  # as the reference writes them: "Integer", "Array of String"
    required: bool

    @property
    def scalar(self) -> str | None:
        """The value's kind when it is only one of Integer, Float, Boolean or String (None
        for a file, a JSON object or array, or "Integer or String")."""
        kinds = set(self.types)
        if kinds <= {"Integer", "Float", "Boolean", "String"} and len(kinds) == 1:
            return self.types[0]
        return None


@dataclass(frozen=True)
class Method:
    name: str
    params: dict[str, Param]
    # what makes a parameter optional: "chat_id" -> "ephemeral_message_parameters.
    # callback_query_id" (a path into the call's parameters)
    required_unless: dict[str, str] = field(default_factory=dict)

    def knows(self, name: str) -> bool:
        return name in self.params or name in STILL_READ.get(self.name.lower(), ())

    @property
    def required(self) -> list[Param]:
        return [param for param in self.params.values() if param.required]


@dataclass(frozen=True)
class ObjectType:
    """An input type: its own fields, or (a union such as InlineQueryResult) its
    subtypes'."""

    name: str
    field_types: dict[str, tuple[str, ...]]

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(self.field_types)


@cache
def _table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TABLE.read_text("utf-8"))
    return data


@cache
def _methods() -> dict[str, Method]:
    found: dict[str, Method] = {}
    for name, entry in _table()["methods"].items():
        required = entry["required"]
        params = {
            key: Param(key, tuple(value), key in required) for key, value in entry["params"].items()
        }
        if "reply_parameters" in params:
            for extra, kind in STILL_READ_BY_SENDERS.items():
                params.setdefault(extra, Param(extra, (kind,), False))
        found[name.lower()] = Method(name, params, entry.get("required_unless", {}))
    return found


def method(name: str) -> Method | None:
    """The Bot API method of that name (case-insensitive, as on Telegram), or None."""
    return _methods().get(name.lower())


@cache
def object_type(name: str) -> ObjectType | None:
    """An input type by name; a union's fields are all of its subtypes' fields."""
    entry = _table()["types"].get(name)
    if entry is None:
        return None
    field_types = {key: tuple(value) for key, value in entry["params"].items()}
    for subtype in entry["subtypes"]:
        found = object_type(subtype)
        if found is not None:
            for key, value in found.field_types.items():
                field_types.setdefault(key, value)
    return ObjectType(name, field_types)


def element_types(types: tuple[str, ...]) -> tuple[list[str], int]:
    """The object types named in `types` and how deep in arrays they sit: "Array of Array
    of InlineKeyboardButton" is (["InlineKeyboardButton"], 2)."""
    names: list[str] = []
    depth = 0
    for text in types:
        match = re.fullmatch(r"((?:Array of )*)([\w.]+)", text)
        found = object_type(match.group(2)) if match else None
        if match and found is not None and found.fields:
            names.append(match.group(2))
            depth = max(depth, match.group(1).count("Array of "))
    return names, depth


def size(owner: str, field_name: str) -> tuple[int, int]:
    """The least and greatest size the reference states for a method's parameter or a
    type's field ("1-4096 characters": (1, 4096)), a union's from its subtypes; KeyError
    when it states none."""
    table = _table()
    entry = table["methods"].get(owner) or table["types"][owner]
    found = entry.get("sizes", {}).get(field_name)
    if found is None:
        for subtype in entry.get("subtypes", []):
            try:
                return size(subtype, field_name)
            except KeyError:
                continue
        raise KeyError(field_name)
    low, high, _unit = found
    return int(low), int(high)
