"""`serve` and the worker leave what they built at startup out of later collections
(service/infra/heap.py): a full collection walked it all, 30-45 ms with the loop stopped."""

from __future__ import annotations

import gc
import inspect
from collections.abc import Iterator
from types import ModuleType

import pytest

from cli import serve, worker
from service.infra import heap


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()  # the test process goes on as it was


def test_what_is_alive_at_startup_is_frozen_and_new_garbage_still_goes(unfrozen: None) -> None:
    kept = [object() for _ in range(1000)]
    frozen = heap.freeze_startup()
    assert frozen >= len(kept) and gc.get_freeze_count() == frozen
    cycle: list[object] = []
    cycle.append(cycle)  # garbage made after the freeze is collected as ever
    del cycle
    assert gc.collect() >= 1


@pytest.mark.parametrize("module", [serve, worker])
def test_serve_and_the_worker_freeze_their_startup(module: ModuleType) -> None:
    """Both commands call it before they start serving (read from their source:
    starting them takes a whole stack, and the freeze is not seen from outside)."""
    assert "heap.freeze_startup()" in inspect.getsource(module.run)
