"""Apply a delta reference (`bot-api-10.4/delta.json`: only what a version added or
changed) to a full reference in api.json's shape (see `tools/bot_api_dts.py`).

The delta's `methods` and `types` are added whole; each `changed` entry applies by its
`kind`: a parameter or field added or changed (`param`, `field`: its type, whether it is
required, and `required_unless`, what makes it optional), one removed (`param_removed`),
a type added or renamed (`type_added`, `type_renamed`). Entries of other kinds
(`behaviour`, `other`) change no parameter; unconfirmed facts with no names are skipped.
"""

from __future__ import annotations

from typing import Any


def _field(entry: dict[str, Any]) -> dict[str, Any]:
    out = {
        "name": entry["name"],
        "types": entry["type"].split(" or "),
        "required": entry["required"],
        "description": entry.get("notes", ""),
    }
    if entry.get("required_unless"):
        out["required_unless"] = entry["required_unless"]
    return out


def _section(name: str) -> str:
    return "methods" if name[:1].islower() else "types"


def _set_field(owner: dict[str, Any], entry: dict[str, Any]) -> None:
    """Add the field, or change its type and optionality in place (order kept)."""
    new = _field(entry)
    fields: list[dict[str, Any]] = owner.setdefault("fields", [])
    for index, old in enumerate(fields):
        if old["name"] == new["name"]:
            fields[index] = {**old, **new, "description": old.get("description", "")}
            return
    fields.append(new)


def _rename(reference: dict[str, Any], old: str, new: str) -> None:
    types = reference["types"]
    if old in types:
        types[new] = {**types.pop(old), "name": new}
    for section in ("methods", "types"):
        for entry in reference[section].values():
            for found in entry.get("fields", []):
                found["types"] = [t.replace(old, new) for t in found["types"]]
            entry["subtypes"] = [new if s == old else s for s in entry.get("subtypes", [])]


def _apply_change(reference: dict[str, Any], change: dict[str, Any]) -> None:
    kind = change["kind"]
    if kind == "type_renamed":
        for old in change["in"]:
            _rename(reference, old, change["name"])
    elif kind == "type_added":
        reference["types"][change["name"]] = {
            "name": change["name"],
            "fields": [_field(f) for f in change["fields"]],
            "subtypes": [],
        }
    for owner_name in change["in"] if kind in ("param", "field", "param_removed") else ():
        owner = reference[_section(owner_name)].get(owner_name)
        if owner is None:
            continue
        if kind == "param_removed":
            owner["fields"] = [f for f in owner["fields"] if f["name"] != change["name"]]
        else:
            _set_field(owner, change)


def apply_delta(reference: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The reference with the delta applied (the reference is changed in place)."""
    for name, method in delta["methods"].items():
        reference["methods"][name] = {"name": name, "fields": [_field(p) for p in method["params"]]}
    for name, kind in delta["types"].items():
        reference["types"][name] = {
            "name": name,
            "fields": [_field(f) for f in kind["fields"]],
            "subtypes": [],
        }
    for change in delta["changed"]:
        _apply_change(reference, change)
    reference["version"] = f"Bot API {delta['version']}"
    reference["release_date"] = delta["release_date"]
    return reference
