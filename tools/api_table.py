"""Derive the emulator's table of Bot API methods from the official reference.

    python -m tools.api_table [API_JSON] [--out emulator/telegram/api_table.json]

API_JSON is the machine-readable Bot API reference of the telegram-bot-api-spec project
(MIT, Copyright (c) 2020 Paul Larsen; default: ../shared/telegram-bot-api/api.json).
The table keeps, for every method, its parameters' types, which are required and the
sizes their descriptions state, the same for every type a bot sends, and carries the
reference's licence notice with it (`emulator/telegram/api_table.LICENSE`).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# shared/ lies beside the repository (the specs it was built from), here and in CI
DEFAULT_SOURCE = ROOT.parent / "shared" / "telegram-bot-api" / "api.json"
DEFAULT_OUT = ROOT / "emulator" / "telegram" / "api_table.json"
NOTICE = (
    "Derived from api.json of the telegram-bot-api-spec project, MIT License, "
    "Copyright (c) 2020 Paul Larsen: see api_table.LICENSE. "
    "Regenerate with `python -m tools.api_table`."
)


SIZE_RE = re.compile(r"\b(\d+)-(\d+) (characters|bytes)\b")


def fields_of(entry: dict[str, Any]) -> dict[str, Any]:
    """{"params": {name: [types]}, "required": [names]} of a method or type, and the
    sizes its descriptions state ("1-4096 characters"): {"sizes": {name: [1, 4096,
    "characters"]}}."""
    fields = entry.get("fields", [])
    out: dict[str, Any] = {
        "params": {field["name"]: field["types"] for field in fields},
        "required": [field["name"] for field in fields if field["required"]],
    }
    sizes = {
        field["name"]: [int(found[1]), int(found[2]), found[3]]
        for field in fields
        if (found := SIZE_RE.search(field.get("description", "")))
    }
    if sizes:
        out["sizes"] = sizes
    return out


def named_types(types: list[str], known: dict[str, Any]) -> list[str]:
    """The object types named in field types such as "Array of MessageEntity"."""
    return [word for text in types for word in re.findall(r"[A-Z]\w+", text) if word in known]


def input_types(reference: dict[str, Any]) -> set[str]:
    """The types a bot sends: reachable from the methods' parameters."""
    known: dict[str, Any] = reference["types"]
    todo = [
        name
        for method in reference["methods"].values()
        for field in method.get("fields", [])
        for name in named_types(field["types"], known)
    ]
    found: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            entry = known[name]
            for field in entry.get("fields", []):
                todo += named_types(field["types"], known)
            todo += entry.get("subtypes", [])
    return found


def build(reference: dict[str, Any]) -> dict[str, Any]:
    methods = reference["methods"]
    types = reference["types"]
    return {
        "notice": NOTICE,
        "version": reference["version"],
        "release_date": reference["release_date"],
        "methods": {name: fields_of(methods[name]) for name in sorted(methods)},
        "types": {
            name: {**fields_of(types[name]), "subtypes": types[name].get("subtypes", [])}
            for name in sorted(input_types(reference))
        },
    }


def render(table: dict[str, Any]) -> str:
    """The table as JSON with one method or type a line: small diffs, easy to read."""
    lines = ["{"]
    for key in ("notice", "version", "release_date"):
        lines.append(f"  {json.dumps(key)}: {json.dumps(table[key])},")
    for section in ("methods", "types"):
        entries = [
            f"    {json.dumps(name)}: {json.dumps(value, ensure_ascii=False)}"
            for name, value in table[section].items()
        ]
        closing = "  }," if section == "methods" else "  }"
        lines += [f"  {json.dumps(section)}: {{", ",\n".join(entries), closing]
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    reference = json.loads(args.source.read_text(encoding="utf-8"))
    args.out.write_text(render(build(reference)), encoding="utf-8")
    licence = args.source.parent / "LICENSE"
    if licence.exists():
        args.out.with_suffix(".LICENSE").write_text(
            licence.read_text(encoding="utf-8"), encoding="utf-8"
        )


if __name__ == "__main__":
    main()
