"""Refresh constraints.txt: the exact versions a fresh machine installs for the tests.

    python3.11 -m tools.constraints

The README's two install commands and CI install with `-c constraints.txt`, so a new
release of a dependency cannot change what the tests run on unnoticed. The runtime pins
are requirements.lock's (what the image ships, so the tests run what ships), copied
without their hashes (hashes would put pip in hash-checking mode, which `-e .` fails). The `dev`
extra and everything it pulls in are resolved on top of them by pip in a throwaway venv
(`pip install --dry-run --report`, nothing installed), for this interpreter: run it
with Python 3.11 on Linux x86_64, as CI and the image are. It needs the package index.
Regenerate requirements.lock first when pyproject.toml's runtime dependencies change
(the README's `uv pip compile` line), then run this.
"""

from __future__ import annotations

import json
import platform
import re
import subprocess
import sys
import tempfile
import venv
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
CONSTRAINTS = ROOT / "constraints.txt"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.\-]*)(?:\[[^\]]*\])?==([^\s\\;]+)\s*(;[^\\]*)?")


HEADER = """\
# The exact versions the tests and CI install: pip install -c constraints.txt -e '.[dev]'.
# requirements.lock's pins (without hashes), then the dev extra resolved on top of them
# for Python 3.11 on Linux x86_64. Refresh: python3.11 -m tools.constraints (README).
"""


def canonicalize_name(name: str) -> str:
    """A distribution's name as pip compares them (PEP 503); the script needs no package
    beyond the standard library, so any Python 3.11 runs it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_pins(text: str) -> dict[str, str]:
    """requirements.lock's pins as constraint lines (`name==version ; marker`, no extras,
    no hashes), by canonical name."""
    pins: dict[str, str] = {}
    for line in text.splitlines():
        match = PIN.match(line)
        if match:
            marker = f" {match[3].strip()}" if match[3] else ""
            pins[canonicalize_name(match[1])] = f"{match[1]}=={match[2]}{marker}"
    return pins


def installs(report: dict[str, Any]) -> dict[str, str]:
    """What a pip installation report would install, as `name==version` lines by
    canonical name (the project itself left out: `-e .` installs it)."""
    found: dict[str, str] = {}
    for item in report["install"]:
        name, version = item["metadata"]["name"], item["metadata"]["version"]
        if canonicalize_name(name) != "burro":
            found[canonicalize_name(name)] = f"{name}=={version}"
    return found


def render(pins: dict[str, str], resolved: dict[str, str]) -> str:
    """The constraints file: the lock's pins, then what the lock does not pin."""
    merged = {**resolved, **pins}  # the lock wins (pip resolved within it anyway)
    return HEADER + "".join(f"{merged[name]}\n" for name in sorted(merged))


def resolve(pins: dict[str, str]) -> dict[str, str]:
    """Resolve `.[dev]` within the lock's pins in a throwaway venv, installing nothing."""
    with tempfile.TemporaryDirectory(prefix="burro-constraints-") as tmp:
        folder = Path(tmp)
        (folder / "lock.txt").write_text("".join(f"{line}\n" for line in pins.values()))
        venv.create(folder / "venv", with_pip=True)
        pip = [str(folder / "venv" / "bin" / "python"), "-m", "pip"]
        subprocess.run([*pip, "install", "-q", "--upgrade", "pip"], check=True)
        report = folder / "report.json"
        command = ["install", "-q", "--dry-run", "--report", str(report)]
        subprocess.run([*pip, *command, "-c", str(folder / "lock.txt"), f"{ROOT}[dev]"], check=True)
        return installs(json.loads(report.read_text()))


def main() -> None:
    target = (sys.version_info[:2], sys.platform, platform.machine())
    if target != ((3, 11), "linux", "x86_64"):
        sys.exit(f"run this with Python 3.11 on Linux x86_64 (this is {target})")
    pins = lock_pins(LOCK.read_text())
    CONSTRAINTS.write_text(render(pins, resolve(pins)))
    print(f"wrote {CONSTRAINTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
