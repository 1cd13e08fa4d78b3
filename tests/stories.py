"""A test picked alone from a module whose tests share a module-scoped fixture runs
after the tests before it, as in the whole file.

Many modules tell one story across their tests (a game started by the first, played on
by the next: the product in this process is costly to start, so a module keeps one).
Picked alone (`file.py::test_x`, `-k`), such a test met a chat where nothing had
happened yet and failed on a timeout. The tests before it now run first, so a test fails
only for its own reasons. Modules whose tests share nothing (no module-scoped fixture)
are left as picked, and so is every file run whole or chosen by `-m`.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)  # after `-k` and `-m` have deselected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not picking(config):
        return  # whole files (`-m` keeps its own choice: `not e2e` stays without them)
    by_module: dict[str, list[pytest.Item]] = {}
    for item in items:
        module = item.getparent(pytest.Module)
        by_module.setdefault(module.nodeid if module is not None else item.nodeid, []).append(item)
    out: list[pytest.Item] = []
    for picked in by_module.values():
        out += told_from_the_start(picked)
    items[:] = out


def picking(config: pytest.Config) -> bool:
    """Whether tests were picked by name: `file.py::test_x`, or `-k`."""
    return bool(config.option.keyword) or any("::" in arg for arg in config.args)


def told_from_the_start(picked: list[pytest.Item]) -> list[pytest.Item]:
    """A module's picked tests, with the tests before the last of them where they
    share a module-scoped fixture. Collected afresh, all of them: a module collected
    again has its fixtures anew, and the story must run on one copy."""
    module = picked[0].getparent(pytest.Module)
    if module is None or not any(shares_a_module(item) for item in picked):
        return picked
    every = tests_in(module)
    names = [test.nodeid for test in every]
    if names[: len(picked)] == [item.nodeid for item in picked]:
        return picked  # the story from its start: as picked
    last = max((names.index(i.nodeid) for i in picked if i.nodeid in names), default=-1)
    return every[: last + 1] if last >= 0 else picked


def shares_a_module(item: pytest.Item) -> bool:
    """Whether the test uses a module-scoped fixture (state the module's tests share)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    defs = info.name2fixturedefs.values()
    return any(d and d[-1].scope == "module" for d in defs)


def tests_in(node: pytest.Collector) -> list[pytest.Item]:
    found: list[pytest.Item] = []
    for child in node.collect():
        if isinstance(child, pytest.Item):
            found.append(child)
        elif isinstance(child, pytest.Collector):
            found += tests_in(child)
    return found
