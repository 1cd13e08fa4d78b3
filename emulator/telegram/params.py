"""The parameters of one Bot API call, whatever form they came in.

Telegram accepts a query string, a form-encoded body, a multipart body or a JSON body.
In form and multipart bodies every value is a string and nested values (reply_markup,
entities, results, ...) are JSON-encoded strings, which is how python-telegram-bot sends
them; in a JSON body they are native. `Params` hides the difference, and reads values
as Telegram's server does: as text, an Integer by its leading digits, a Boolean true
only for "true", "yes" or "1" (what it would misread, `validation.parameter_problems`
records).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from emulator.telegram.errors import bad_request

TRUE_WORDS = frozenset({"true", "yes", "1"})
_LEADING_INTEGER = re.compile(r"-?[0-9]+")
_ATTACH_RE = re.compile(r"attach://([A-Za-z0-9_-]+)")
# How Telegram names a JSON parameter it cannot parse ("can't parse ... JSON object").
_JSON_NAMES = {
    "reply_markup": "reply keyboard markup",
    "reply_parameters": "reply parameters",
    "link_preview_options": "link preview options",
    "button": "inline query results button",
    "scope": "BotCommandScope",
    "menu_button": "menu button",
    "ephemeral_message_parameters": "ephemeral message parameters",  # GUESS: by analogy
}


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


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

    def changed(self, values: Mapping[str, Any]) -> Params:
        """A copy with these values in place of the call's (None: left out), as native
        JSON values."""
        kept = {key: value for key, value in self._values.items() if key not in values}
        given = {key: value for key, value in values.items() if value is not None}
        return Params({**kept, **given}, self._files)

    def has(self, name: str) -> bool:
        return (name in self._values and self._values[name] not in (None, "")) or (
            name in self._files
        )

    def raw(self, name: str) -> Any:
        return self._values.get(name)

    def names(self) -> list[str]:
        """The parameters given, files included (a file sent for an attach://<name>
        reference belongs to the parameter that names it)."""
        attached = {  # named by a value, or inside a JSON one (InputMedia's "media")
            name
            for value in self._values.values()
            for name in _ATTACH_RE.findall(value if isinstance(value, str) else _as_text(value))
        }
        given = [key for key, value in self._values.items() if value is not None]
        return given + [key for key in self._files if key not in attached and key not in given]

    def text(self, name: str) -> str | None:
        """The value as Telegram's server sees it: text (a JSON body's numbers and
        booleans as they are written, its objects and arrays as JSON)."""
        value = self._values.get(name)
        if value is None or isinstance(value, str):
            return value
        return _as_text(value)

    def string(self, name: str, *, required: bool = False) -> str | None:
        value = self.text(name)
        if required and not value:
            raise bad_request(f"{name} is empty")
        return value

    def required_str(self, name: str) -> str:
        value = self.string(name, required=True)
        assert value is not None
        return value

    def integer(self, name: str, *, required: bool = False) -> int | None:
        """An Integer, read as Telegram reads one: its leading digits ("12abc" is 12, "abc"
        is 0). Values Telegram misreads are recorded by `validation.parameter_problems`."""
        text = self.text(name)
        if text is None or text == "":
            if required:
                raise bad_request(f"{name} is empty")
            return None
        match = _LEADING_INTEGER.match(text)
        return int(match.group()) if match else 0

    def required_int(self, name: str) -> int:
        value = self.integer(name, required=True)
        assert value is not None
        return value

    def flag(self, name: str, default: bool = False) -> bool:
        """A Boolean, read as Telegram reads one: "true", "yes" or "1" (any case) is true,
        anything else false."""
        text = self.text(name)
        if text is None or text == "":
            return default
        return text.strip().lower() in TRUE_WORDS

    def json(self, name: str) -> Any:
        """A nested value: native in a JSON body, a JSON-encoded string in a form."""
        value = self._values.get(name)
        if value is None or value == "":
            return None
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                if name in ("entities", "caption_entities"):
                    return None  # Telegram drops entities it cannot parse, and says nothing
                described = _JSON_NAMES.get(name, name)
                raise bad_request(f"can't parse {described} JSON object") from None
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
        return self.attached(value)

    def attached(self, value: str) -> Upload | str:
        """A file named in a value: the upload an attach://<name> refers to, or the value
        (a file_id or URL) itself."""
        if value.startswith("attach://"):
            attached = self._files.get(value.removeprefix("attach://"))
            if attached is None:
                raise bad_request(f'can\'t find attached file "{value}"')
            return attached
        return value
