"""Derive the emulator's table of Bot API methods from the newest reference.

    python -m tools.api_table [--out emulator/telegram/api_table.json]
        [--declarations DIR] [--delta FILE] [--earlier API_JSON SCHEMA_JSON]

The newest reference is built from three sources in ../shared/telegram-bot-api/:
@grammyjs/types 5.0.0's declarations of Bot API 10.3 (`bot-api-10.3/*.d.ts`, MIT,
Copyright (c) 2021-2024 KnorpelSenf), with the 10.4 changes as data applied on top
(`bot-api-10.4/delta.json`, this project's); TypeScript's `number` is called a Float
where the earlier references do (`api.json`, 10.1, MIT, Copyright (c) 2020 Paul Larsen;
`bot-api-10.2/schema.json`, MIT, Copyright (c) 2017 - present Alex Root Junior).
The table keeps, for every method, its parameters' types, which are required (and what
makes one optional: `required_unless`), the sizes their descriptions state, the same
for every type a bot sends, and carries the sources' licence notices with it
(`emulator/telegram/api_table.LICENSE`).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from tools.bot_api_delta import apply_delta
from tools.bot_api_dts import aiogram_reference, read_declarations, refine_numbers

ROOT = Path(__file__).resolve().parent.parent
# shared/ lies beside the repository (the specs it was built from), here and in CI
SHARED = ROOT.parent / "shared" / "telegram-bot-api"
DEFAULT_SOURCE = SHARED / "bot-api-10.3"
DEFAULT_DELTA = SHARED / "bot-api-10.4" / "delta.json"
DEFAULT_EARLIER = (SHARED / "api.json", SHARED / "bot-api-10.2" / "schema.json")
DEFAULT_OUT = ROOT / "emulator" / "telegram" / "api_table.json"
NOTICE = (
    "Derived from @grammyjs/types 5.0.0 (Bot API 10.3, MIT License, Copyright (c) "
    "2021-2024 KnorpelSenf) with this project's Bot API 10.4 delta applied, Floats named "
    "as in api.json of the telegram-bot-api-spec project (MIT License, Copyright (c) 2020 "
    "Paul Larsen) and aiogram's schema.json (MIT License, Copyright (c) 2017 - present "
    "Alex Root Junior): see api_table.LICENSE. Regenerate with `python -m tools.api_table`."
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
    unless = {f["name"]: f["required_unless"] for f in fields if f.get("required_unless")}
    if unless:
        out["required_unless"] = unless
    return out


def named_types(types: list[str], known: dict[str, Any]) -> list[str]:
    """The object types named in field types such as "Array of MessageEntity"."""
    words = (word for text in types for word in re.findall(r"[A-Z][\w.]*\w", text))
    return [word for word in words if word in known]


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


def newest_reference(
    declarations: Path, delta: Path, earlier: tuple[Path, Path] = DEFAULT_EARLIER
) -> dict[str, Any]:
    """The 10.3 declarations with the delta applied, Floats named as earlier."""
    reference = read_declarations(declarations)
    spec_json, aiogram_schema = (json.loads(p.read_text(encoding="utf-8")) for p in earlier)
    for known in (spec_json, aiogram_reference(aiogram_schema)):
        refine_numbers(reference, known)
    return apply_delta(reference, json.loads(delta.read_text(encoding="utf-8")))


def licences(paths: list[Path]) -> str:
    """The sources' licence notices, one after another."""
    texts = [path.read_text(encoding="utf-8").strip() for path in paths if path.exists()]
    return ("\n\n" + "-" * 72 + "\n\n").join(texts) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--declarations", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--delta", type=Path, default=DEFAULT_DELTA)
    parser.add_argument("--earlier", type=Path, nargs=2, default=DEFAULT_EARLIER)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    reference = newest_reference(args.declarations, args.delta, tuple(args.earlier))
    args.out.write_text(render(build(reference)), encoding="utf-8")
    notices = [args.declarations / "LICENSE", *(path.parent / "LICENSE" for path in args.earlier)]
    args.out.with_suffix(".LICENSE").write_text(licences(notices), encoding="utf-8")


if __name__ == "__main__":
    main()
