"""Read the Bot API reference from @grammyjs/types' TypeScript declarations (`*.d.ts`).

The declarations are tsc's output: one member a line (`name?: type;`), JSDoc comments
above them, methods as the members of `ApiMethods`, "one of" types as unions
(`export type Chat = Chat.PrivateChat | ...`) over interfaces that may `extend` others.
`read_declarations` turns them into the shape of the telegram-bot-api-spec project's
api.json (`{"methods": {name: {"fields": [...]}}, "types": {name: {"fields": [...],
"subtypes": [...]}}}`, each field `name`, `types` as the reference words them,
`required`, `description`), so one table builder serves both.

TypeScript cannot say Integer from Float: `number` is an Integer unless an earlier
reference (api.json, aiogram's schema.json) calls the same field a Float.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_INTERFACE = re.compile(r"^(?:export )?interface (\w+)(?:<[^>]*>)?(?: extends (.+))? \{$")
_NAMESPACE = re.compile(r"^export declare namespace (\w+) \{$")
_UNION = re.compile(r"^export type (\w+)(?:<[^>]*>)? = (.+);$")
_METHOD = re.compile(r"^(\w+)\((?:args\??: \{|\): .+;)$")
_MEMBER = re.compile(r"^(\w+)(\??): (.+);$")
_STRING_TYPES = frozenset({"string", "ParseMode", "LanguageCode"})


@dataclass
class _Block:
    """An interface or a method being read."""

    name: str
    parents: list[str] = field(default_factory=list)
    fields: list[dict[str, Any]] = field(default_factory=list)


def split_top(text: str, separator: str) -> list[str]:
    """`text` split at `separator` where it is not inside <>, () or quotes."""
    parts, depth, quoted, start = [], 0, False, 0
    for index, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "<([":
            depth += 1
        elif not quoted and char in ">)]":
            depth -= 1
        elif not quoted and depth == 0 and text.startswith(separator, index):
            parts.append(text[start:index].strip())
            start = index + len(separator)
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def _strip_parens(text: str) -> str:
    """`(A | B)` without its outer parentheses (`(A)[]` keeps them)."""
    text = text.strip()
    while text.startswith("(") and _closing(text) == len(text) - 1:
        text = text[1:-1].strip()
    return text


def _closing(text: str) -> int:
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return index
    return -1


def type_words(ts_type: str) -> list[str]:
    """The reference's words for a TypeScript type: `number | string` is ["Integer",
    "String"], `MessageEntity[]` ["Array of MessageEntity"], `F | string` ["InputFile",
    "String"]."""
    words: list[str] = []
    for part in split_top(_strip_parens(ts_type), "|"):
        for word in _one_word(_strip_parens(part)):
            if word not in words:
                words.append(word)
    return words


def _one_word(part: str) -> list[str]:
    part = part.removeprefix("readonly ")
    array = re.fullmatch(r"(?:ReadonlyArray|Array)<(.+)>", part)
    inner = array.group(1) if array else part[:-2] if part.endswith("[]") else None
    if inner is not None:
        return [f"Array of {word}" for word in type_words(inner)]
    if part == "F":
        return ["InputFile"]
    if part == "number" or re.fullmatch(r"-?(?:0x[0-9A-Fa-f]+|[0-9]+)", part):
        return ["Integer"]
    if part in ("boolean", "true", "false"):
        return ["Boolean"]
    if part in _STRING_TYPES or part.startswith(('"', "Exclude<", "(string &")):
        return ["String"]
    omitted = re.fullmatch(r"Omit<([\w.]+)(?:<[^>]*>)?, .+>", part)
    if omitted:
        return [omitted.group(1)]
    named = re.fullmatch(r"([\w.]+)(?:<.*>)?", part)
    return [named.group(1)] if named else ["String"]


class _Reader:
    """Reads the declaration files line by line into methods, interfaces and unions."""

    def __init__(self) -> None:
        self.methods: dict[str, _Block] = {}
        self.interfaces: dict[str, _Block] = {}
        self.unions: dict[str, list[str]] = {}
        self._namespace: str | None = None
        self._in_methods = False
        self._block: _Block | None = None
        self._comment: list[str] = []
        self._in_comment = False

    def read(self, text: str) -> None:
        for raw in text.splitlines():
            self._line(raw.strip())

    def _line(self, line: str) -> None:
        if self._in_comment or line.startswith("/**"):
            self._collect_comment(line)
            return
        if self._block is not None:
            self._in_block(line)
            return
        self._at_top(line)
        self._comment = []

    def _collect_comment(self, line: str) -> None:
        if line.startswith("/**"):
            self._comment, line = [], line[3:]
        self._in_comment = not line.endswith("*/")
        self._comment.append(line.removesuffix("*/").strip())

    def _in_block(self, line: str) -> None:
        assert self._block is not None
        member = _MEMBER.match(line)
        if member and "@deprecated" not in " ".join(self._comment):
            self._block.fields.append(
                {
                    "name": member.group(1),
                    "types": type_words(member.group(3)),
                    "required": member.group(2) != "?",
                    "description": " ".join(part for part in self._comment if part),
                }
            )
        elif line.startswith("}"):
            self._block = None
        self._comment = []

    def _at_top(self, line: str) -> None:
        if self._in_methods:
            self._method_line(line)
        elif line.startswith("export type ApiMethods<F> = {"):
            self._in_methods = True
        elif namespace := _NAMESPACE.match(line):
            self._namespace = namespace.group(1)
        elif interface := _INTERFACE.match(line):
            self._open_interface(interface.group(1), interface.group(2))
        elif union := _UNION.match(line):
            self._add_union(union.group(1), union.group(2))
        elif line == "}":
            self._namespace = None

    def _method_line(self, line: str) -> None:
        if line == "};":
            self._in_methods = False
            return
        method = _METHOD.match(line)
        if method:
            block = _Block(method.group(1))
            self.methods[block.name] = block
            if line.endswith("{"):
                self._block = block

    def _open_interface(self, name: str, parents: str | None) -> None:
        full = f"{self._namespace}.{name}" if self._namespace else name
        bases = [_one_word(parent)[0] for parent in split_top(parents or "", ",")]
        if self._namespace:
            bases = [f"{self._namespace}.{b}" if "." not in b else b for b in bases]
        self._block = self.interfaces.setdefault(full, _Block(full))
        self._block.parents += bases

    def _add_union(self, name: str, text: str) -> None:
        if "{" in text:
            return
        members = [_one_word(_strip_parens(part))[0] for part in split_top(text, "|")]
        self.unions[name] = members


def _all_fields(reader: _Reader, name: str, seen: frozenset[str] = frozenset()) -> list[Any]:
    block = reader.interfaces.get(name)
    if block is None or name in seen:
        return []
    inherited = [f for parent in block.parents for f in _all_fields(reader, parent, seen | {name})]
    own = {f["name"] for f in block.fields}
    return [f for f in inherited if f["name"] not in own] + block.fields


def read_declarations(folder: Path) -> dict[str, Any]:
    """The reference in folder's `*.d.ts`, in api.json's shape."""
    reader = _Reader()
    for path in sorted(folder.glob("*.d.ts")):
        reader.read(path.read_text(encoding="utf-8"))
    types: dict[str, Any] = {}
    for name in reader.interfaces:
        types[name] = {"name": name, "fields": _all_fields(reader, name), "subtypes": []}
    named = set(reader.interfaces) | set(reader.unions)
    for name, members in reader.unions.items():
        subtypes = [member for member in members if member in named]
        types[name] = {"name": name, "fields": [], "subtypes": subtypes}
    methods = {
        name: {"name": name, "fields": block.fields} for name, block in reader.methods.items()
    }
    return {"methods": methods, "types": types}


def refine_numbers(reference: dict[str, Any], earlier: dict[str, Any]) -> None:
    """Call a field a Float where an earlier reference does (TypeScript says `number`)."""
    for section in ("methods", "types"):
        for name, entry in reference[section].items():
            known = {
                f["name"]: f["types"] for f in earlier[section].get(name, {}).get("fields", [])
            }
            for found in entry["fields"]:
                if "Float" in known.get(found["name"], ()):
                    found["types"] = ["Float" if t == "Integer" else t for t in found["types"]]


def aiogram_reference(schema: dict[str, Any]) -> dict[str, Any]:
    """aiogram's schema.json (10.2) in api.json's shape, for its field types only."""
    out: dict[str, Any] = {"methods": {}, "types": {}}
    for section in schema["items"]:
        for child in section["children"]:
            fields = [
                {"name": a["name"], "types": a["type"].split(" or "), "required": a["required"]}
                for a in child.get("annotations", [])
            ]
            kind = "methods" if child["name"][:1].islower() else "types"
            out[kind][child["name"]] = {"fields": fields}
    return out
