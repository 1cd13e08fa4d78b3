"""Every test: the emulators it used saw no call with something Telegram would silently
ignore or misread (an unknown parameter, a misspelt optional one above all: in
production it does nothing and nobody notices). A test that sends such calls on purpose
says so with `@pytest.mark.telegram_ignores`."""

from __future__ import annotations

import os
import sys
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from emulator.app import Emulator
from emulator.server import RunningEmulator
from service.infra.redis_cluster import LocalCluster, cluster_binary

# The suite starts many Python processes (xdist workers, `burro serve`, workers, `burro
# local`): without a bytecode cache each would compile the project anew. Some machines
# switch the cache off in their environment; the suite switches it back on.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
# The suite reads its players' private hands as text: drawn ones (widgets, Bot API 10.4)
# only where a test asks for them (tests/service/test_widget*.py); its processes inherit it.
os.environ.setdefault("BURRO_TELEGRAM_WIDGETS", "0")

WAIT_AT_MOST = 20.0  # seconds a test waits for a condition unless it says otherwise

# tests.stories: a test picked alone runs after the tests before it in its module's story
pytest_plugins = ["tests.stories", "pytester"]

# How many of each emulator's records were already reported (a module's emulator serves
# many tests: each answers only for what came during it).
_reported: weakref.WeakKeyDictionary[Emulator, int] = weakref.WeakKeyDictionary()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the cores, since many tests spend their time
    waiting on processes they started (Redis, serve, a browser) rather than computing
    (on 2 cores, 4 workers took as long as 3)."""
    return (os.cpu_count() or 1) + 1


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "telegram_ignores: the test sends parameters Telegram ignores, on purpose"
    )


# Whole-process tests marked `e2e` (pyproject's markers) wherever they are: modules that
# only run the product, a browser or a bot in processes, and any test that uses a
# `*stack*` fixture made with tests/service/conftest.py's `make_stack`.
E2E_MODULES = {
    "tests/chaos/test_soak.py",
    "tests/emulator/test_ptb_e2e.py",
    "tests/service/test_browser_games.py",
    "tests/service/test_local_restart.py",
    "tests/service/test_local_run.py",
}


def whole_stack(item: pytest.Item) -> bool:
    """Whether the test uses a fixture named like a stack from a module that makes
    them with `make_stack` (the in-process ones come from tests/service/inproc.py)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    for name, defs in info.name2fixturedefs.items():
        module = sys.modules.get(defs[-1].func.__module__) if defs else None
        if "stack" in name and module is not None and hasattr(module, "make_stack"):
            return True
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.split("::")[0] in E2E_MODULES or whole_stack(item):
            item.add_marker(pytest.mark.e2e)
    # The modules with whole-process tests go first, those of nothing else before them:
    # they are the longest (up to a minute each), and xdist hands out whole modules in
    # this order (pyproject: --no-loadscope-reorder), so one started last would keep the
    # run going alone at its end.
    slow = {module_of(item) for item in items if item.get_closest_marker("e2e")}
    items.sort(key=lambda item: (module_of(item) not in E2E_MODULES, module_of(item) not in slow))


def module_of(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


def ignored_since_last_look(emulator: Emulator) -> list[str]:
    """What the emulator recorded since the last look, one line each."""
    records = emulator.api.unknown_parameters
    start = _reported.get(emulator, 0)
    _reported[emulator] = len(records)
    return [
        f"{record['method']} {record['parameter']}: {record['problem']}"
        for record in records[start:]
    ]


def fail_if_ignored(emulator: Emulator) -> None:
    """Fail when the emulator recorded something Telegram would ignore or misread."""
    found = ignored_since_last_look(emulator)
    if found:
        pytest.fail(
            "Telegram would silently ignore or misread these call parameters:\n  "
            + "\n  ".join(found),
            pytrace=False,
        )


def emulators_in(values: dict[str, Any]) -> list[Emulator]:
    """The emulators among fixture values, or held by one of them (one level down)."""
    found: list[Emulator] = []
    for value in values.values():
        inner = vars(value).values() if hasattr(value, "__dict__") else ()
        for candidate in (value, *inner):
            if isinstance(candidate, RunningEmulator) and candidate.emulator not in found:
                found.append(candidate.emulator)
    return found


@pytest.fixture(autouse=True)
def _telegram_ignores_nothing(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    item = request.node
    emulators = emulators_in(getattr(item, "funcargs", None) or {})
    if item.get_closest_marker("telegram_ignores") is not None:
        for emulator in emulators:
            ignored_since_last_look(emulator)
        return
    for emulator in emulators:
        fail_if_ignored(emulator)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A local 3-primary Redis/Valkey Cluster, a replica each, for the session (the
    store's tests on a cluster, a whole game on one); skipped where no server binary runs
    a cluster."""
    try:
        cluster_binary()
    except FileNotFoundError as missing:
        pytest.skip(f"no server binary that runs a cluster: {missing}")
    with LocalCluster(tmp_path_factory.mktemp("cluster")) as running:
        yield running
