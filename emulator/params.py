"""The parameters of one Bot API call, whatever form they came in.

Telegram accepts a query string, a form-encoded body, a multipart body or a JSON body.
In form and multipart bodies every value is a string and nested values (reply_markup,
entities, results, ...) are JSON-encoded strings, which is how python-telegram-bot sends
them; in a JSON body they are native. `Params` hides the difference.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from emulator.errors import bad_request


@dataclass(frozen=True)
class Upload:
    """A file sent in a multipart body."""

    filename: str
    content: bytes
    content_type: str | None


class Params:
    def __init__(self, values: Mapping[str, Any], files: Mapping[str, Upload] | None = None):
        self._values = dict(values)
        self._files = dict(files or {})

    def as_log(self) -> dict[str, Any]:
        """The parameters as a JSON-friendly dict (nested JSON decoded, files summarised)."""
        out: dict[str, Any] = {}
        for key, value in self._values.items():
            if isinstance(value, str) and value[:1] in ("{", "["):
                try:
                    out[key] = json.loads(value)
                    continue
                except ValueError:
                    pass
            out[key] = value
        for key, upload in self._files.items():
            out[key] = {"file": upload.filename, "size": len(upload.content)}
        return out

    def has(self, name: str) -> bool:
        return (name in self._values and self._values[name] not in (None, "")) or (
            name in self._files
        )

    def raw(self, name: str) -> Any:
        return self._values.get(name)

    def string(self, name: str, *, required: bool = False) -> str | None:
        value = self._values.get(name)
        if value is None:
            if required:
                raise bad_request(f"{name} is empty")
            return None
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return str(value)
        if not isinstance(value, str):
            raise bad_request(f'field "{name}" must be of type String')
        if required and value == "":
            raise bad_request(f"{name} is empty")
        return value

    def required_str(self, name: str) -> str:
        value = self.string(name, required=True)
        assert value is not None
        return value

    def integer(self, name: str, *, required: bool = False) -> int | None:
        value = self._values.get(name)
        if value is None or value == "":
            if required:
                raise bad_request(f"{name} is empty")
            return None
        if isinstance(value, bool):
            raise bad_request(f'field "{name}" must be of type Integer')
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                pass
        raise bad_request(f'field "{name}" must be of type Integer')

    def required_int(self, name: str) -> int:
        value = self.integer(name, required=True)
        assert value is not None
        return value

    def flag(self, name: str, default: bool = False) -> bool:
        value = self._values.get(name)
        if value is None or value == "":
            return default
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            return value != 0
        if isinstance(value, str) and value.lower() in ("true", "1"):
            return True
        if isinstance(value, str) and value.lower() in ("false", "0"):
            return False
        raise bad_request(f'field "{name}" must be of type Boolean')

    def json(self, name: str) -> Any:
        """A nested value: native in a JSON body, a JSON-encoded string in a form."""
        value = self._values.get(name)
        if value is None or value == "":
            return None
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                raise bad_request(f"can't parse {name} JSON object") from None
        return value

    def chat_id(self, name: str = "chat_id") -> int | str:
        value = self._values.get(name)
        if value is None or value == "":
            raise bad_request(f"{name} is empty")
        if isinstance(value, bool):
            raise bad_request("chat not found")
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("@"):
                return text
            try:
                return int(text)
            except ValueError:
                raise bad_request("chat not found") from None
        raise bad_request("chat not found")

    def file(self, name: str) -> Upload | str | None:
        """A file parameter: an upload, or a string (file_id, URL or attach://<name>)."""
        if name in self._files:
            return self._files[name]
        value = self._values.get(name)
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            raise bad_request(f'field "{name}" must be of type String')
        if value.startswith("attach://"):
            attached = self._files.get(value.removeprefix("attach://"))
            if attached is None:
                raise bad_request(f'can\'t find attached file "{value}"')
            return attached
        return value
