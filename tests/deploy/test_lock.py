"""requirements.lock: every runtime dependency of pyproject.toml pinned, at a version
its specifier allows, with hashes (the Dockerfile installs with --require-hashes).
constraints.txt: the same pins without hashes, and the dev extra's, which the README's
install commands and so CI use (tools/constraints.py writes it)."""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.deploy.conftest import ROOT
from tools import constraints

PIN = re.compile(r"^([A-Za-z0-9_.\-\[\]]+)==([^\s\\;]+)")


def pins() -> dict[str, Version]:
    found: dict[str, Version] = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        match = PIN.match(line)
        if match:
            found[canonicalize_name(match[1].split("[")[0])] = Version(match[2])
    return found


def requirements(extra: str | None = None) -> list[Requirement]:
    """pyproject.toml's runtime dependencies, or those of an extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = project["optional-dependencies"][extra] if extra else project["dependencies"]
    return [Requirement(line) for line in lines]


def constraint_pins() -> dict[str, Version]:
    text = (ROOT / "constraints.txt").read_text()
    return {name: Version(line.split("==")[1].split(";")[0]) for name, line in lines(text)}


def lines(text: str) -> list[tuple[str, str]]:
    """A constraints file's pins, as (canonical name, line)."""
    rows = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return [(canonicalize_name(line.split("=")[0]), line) for line in rows]


def test_every_dependency_is_pinned_within_its_specifier() -> None:
    pinned = pins()
    for requirement in requirements():
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not in requirements.lock: run uv pip compile (README)"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"{name}=={pinned[name]} does not satisfy {requirement.specifier}"
        )


def test_every_pin_has_a_hash_and_no_dev_tool_is_shipped() -> None:
    text = (ROOT / "requirements.lock").read_text()
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[-1])
    for block in blocks:
        if PIN.match(block):
            assert "--hash=sha256:" in block, block.splitlines()[0]
    for dev in ("pytest", "mypy", "ruff", "hypothesis", "playwright", "fakeredis"):
        assert canonicalize_name(dev) not in pins(), f"{dev} is a dev tool"


def test_the_constraints_pin_what_the_lock_pins_at_its_versions() -> None:
    """The tests run what the image ships."""
    locked, constrained = pins(), constraint_pins()
    differ = {n: (v, constrained.get(n)) for n, v in locked.items() if constrained.get(n) != v}
    assert not differ, f"lock vs constraints.txt: {differ}; run python3.11 -m tools.constraints"


def test_every_dependency_and_dev_tool_is_pinned_in_the_constraints() -> None:
    constrained = constraint_pins()
    for requirement in [*requirements(), *requirements("dev")]:
        name = canonicalize_name(requirement.name)
        assert name in constrained, f"{name} is not in constraints.txt: see the README"
        assert requirement.specifier.contains(constrained[name], prereleases=True), (
            f"{name}=={constrained[name]} does not satisfy {requirement.specifier}"
        )


def test_the_constraints_are_plain_pins_that_pip_takes_beside_an_editable() -> None:
    """`-c` takes neither extras nor an editable, and a hash would put pip in
    hash-checking mode, which `-e .` cannot pass."""
    found = lines((ROOT / "constraints.txt").read_text())
    for _name, line in found:
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*==[^\s;\[]+( ; .+)?", line), line
    names = [name for name, _line in found]
    assert len(names) == len(set(names)), "a package pinned twice"


def test_the_constraints_are_what_the_tool_writes_from_the_lock() -> None:
    """The header, the order and the lock's lines (markers kept) as tools/constraints.py
    writes them, given the versions pip resolved last time."""
    text = (ROOT / "constraints.txt").read_text()
    locked = constraints.lock_pins((ROOT / "requirements.lock").read_text())
    assert constraints.render(locked, dict(lines(text))) == text


def test_the_tool_keeps_the_lock_and_adds_the_dev_closure_but_not_the_project() -> None:
    report = {
        "install": [
            {"metadata": {"name": name, "version": version}}
            for name, version in [("redis", "9.0"), ("burro", "0.1.0"), ("Ruff", "1.0")]
        ]
    }
    locked = constraints.lock_pins(
        "redis[hiredis]==8.1.0 \\\n    --hash=sha256:00\n"
        'async-timeout==5.0.1 ; python_full_version < "3.11.3" \\\n'
    )
    assert constraints.render(locked, constraints.installs(report)) == (
        constraints.HEADER
        + 'async-timeout==5.0.1 ; python_full_version < "3.11.3"\nredis==8.1.0\nRuff==1.0\n'
    )


def test_the_readmes_install_commands_use_the_constraints() -> None:
    """Both opening commands; CI runs the one with pytest (.ci/run greps it)."""
    opening = (ROOT / "README.md").read_text().split("```sh\n")[1].split("```")[0]
    commands = opening.splitlines()
    assert len(commands) == 2
    for command in commands:
        assert ".venv/bin/pip install -q -c constraints.txt -e " in command, command
    assert "pytest" in commands[1]
