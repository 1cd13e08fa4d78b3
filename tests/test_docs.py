"""The docs stay the project's own and complete: code, tests and READMEs cite
docs/rules.md and docs/interfaces.md (the specs the project was built from live outside
the repository), every preset and option of the engine is in docs/rules.md, and every
`burro` command is in docs/interfaces.md."""

from __future__ import annotations

import argparse
import re
import subprocess
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from engine.cuartetos import rules as cuartetos
from engine.follow_suit import rules as follow_suit

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# The outside specs' file names, spelt so that this file does not cite them itself.
STALE = re.compile(r"\b(" + "RULES" + "|" + "CONTRACTS" + r")\.md\b")


def tracked_files() -> list[Path]:
    """The .py and .md files git tracks (outside docs/), or, without git, those on disk."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--", "*.py", "*.md"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
        paths = [ROOT / name for name in listed.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        paths = [*ROOT.rglob("*.py"), *ROOT.rglob("*.md")]
    skip = ("docs", ".venv", ".git", "build", "node_modules")
    return [
        p
        for p in paths
        if p.is_file() and p.relative_to(ROOT).parts[0] not in skip and "egg-info" not in str(p)
    ]


def test_code_and_readmes_cite_the_docs_not_the_outside_specs() -> None:
    stale = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in tracked_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if STALE.search(line)
    ]
    assert not stale, "cite docs/rules.md or docs/interfaces.md instead:\n" + "\n".join(stale)


def rules_text() -> str:
    return (DOCS / "rules.md").read_text(encoding="utf-8")


def choices(model: type[BaseModel]) -> set[str]:
    """Every value a Literal-typed field of a rules model allows."""
    found: set[str] = set()
    for field in model.model_fields.values():
        if typing.get_origin(field.annotation) is typing.Literal:
            found.update(str(v) for v in typing.get_args(field.annotation))
    return found


@pytest.mark.parametrize(
    "name",
    sorted(
        {
            *follow_suit.PRESETS,
            *follow_suit.ALIASES,
            *follow_suit.OPTION_NAMES,
            *cuartetos.PRESETS,
            *cuartetos.ALIASES,
            *cuartetos.OPTION_NAMES,
        }
    ),
)
def test_every_preset_and_option_is_in_the_rules(name: str) -> None:
    assert f"`{name}`" in rules_text(), f"docs/rules.md does not name `{name}`"


@pytest.mark.parametrize(
    "value", sorted((choices(follow_suit.Rules) | choices(cuartetos.CuartetosRules)) - {"4"})
)
def test_every_option_value_is_in_the_rules(value: str) -> None:
    assert f"`{value}`" in rules_text(), f"docs/rules.md does not name the value `{value}`"


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def commands() -> list[str]:
    """Every `burro` command and `burro admin` action, from the CLI's own parser."""
    from cli.main import build_parser

    found = []
    for name, parser in subcommands(build_parser()).items():
        found.append(f"burro {name}")
        found.extend(f"burro {name} {child}" for child in subcommands(parser))
    return found


def test_every_command_is_in_the_interfaces() -> None:
    text = (DOCS / "interfaces.md").read_text(encoding="utf-8")
    names = commands()
    assert "burro replay" in names and "burro admin export" in names
    missing = [name for name in names if f"`{name}" not in text]
    assert not missing, f"docs/interfaces.md does not name {missing}"


def test_links_between_the_docs_resolve() -> None:
    for page in DOCS.glob("*.md"):
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.name}: broken link {target}"
