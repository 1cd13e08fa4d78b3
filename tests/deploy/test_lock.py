"""requirements.lock: every runtime dependency of pyproject.toml pinned, at a version
its specifier allows, with hashes (the Dockerfile installs with --require-hashes)."""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.deploy.conftest import ROOT

PIN = re.compile(r"^([A-Za-z0-9_.\-\[\]]+)==([^\s\\;]+)")


def pins() -> dict[str, Version]:
    found: dict[str, Version] = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        match = PIN.match(line)
        if match:
            found[canonicalize_name(match[1].split("[")[0])] = Version(match[2])
    return found


def test_every_dependency_is_pinned_within_its_specifier() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pinned = pins()
    for line in project["dependencies"]:
        requirement = Requirement(line)
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
