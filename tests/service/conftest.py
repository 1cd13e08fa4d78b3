"""The product end to end: a local Telegram emulator in this process, and real Redis,
`burro serve` and `burro worker` processes (cli.stack), for the service tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.stack import Stack
from emulator.server import RunningEmulator, running_emulator


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningEmulator]:
    with running_emulator() as emulator:
        yield emulator


@pytest.fixture(scope="module")
def stack(emu: RunningEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data: Path = tmp_path_factory.mktemp("stack")
    with Stack(
        data, flood_limits=False, bot_delay=0.0, persist=False, emulator_url=emu.api_url
    ) as running:
        yield running
