"""The product in this process (tests/service/inproc.py) with the local WhatsApp paced
as fast as it takes: one per module; a module needing other settings makes its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.service.inproc import Hook, running_service


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_service(
        tmp_path_factory.mktemp("wa"), whatsapp_pair_rate=0.0, game_target=2
    ) as running:
        yield running
