"""The product end to end: a local Telegram emulator in this process, and real Redis,
`burro serve` and `burro worker` processes (cli.stack), for the service tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from cli.stack import Stack
from emulator.server import RunningEmulator
from service.infra.store import Store
from service.platforms.telegram import limits
from service.services import Services
from service.settings import Settings
from tests.conftest import fail_if_ignored
from tests.service.inproc import Hook, local_emulator, running_service
from workers.runtime import Runtime


@pytest.fixture(scope="module")
def emu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningEmulator]:
    with local_emulator() as emulator:  # looks again only when something happened
        yield emulator
        fail_if_ignored(emulator.emulator)  # what came after the module's last test


def make_stack(emu: RunningEmulator, folder: Path, **options: Any) -> Stack:
    """A throwaway product stack on the test's emulator (no flood limits, bots at once,
    Redis in memory), with `options` overriding those choices."""
    choices: dict[str, Any] = {"flood_limits": False, "bot_delay": 0.0, "persist": False}
    return Stack(folder, emulator_url=emu.api_url, **{**choices, **options})


@pytest.fixture(scope="module")
def stack(emu: RunningEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with make_stack(emu, tmp_path_factory.mktemp("stack")) as running:
        yield running


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    """The product in this process (inproc.running_service), one per module; a module
    needing other settings makes its own."""
    with running_service(tmp_path_factory.mktemp("inproc")) as running:
        yield running


# ----- a worker's runtime on fakeredis and a fake Bot API ----------------------------------


class FakeApi:
    """Records the Bot API calls; every message gets the next id."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def call(self, method: str, **params: Any) -> Any:
        self.calls.append((method, params))
        return {"message_id": len(self.calls)}

    def sent(self) -> int:
        return sum(1 for method, _ in self.calls if method == "sendMessage")


@pytest.fixture
def rt(monkeypatch: pytest.MonkeyPatch) -> Iterator[Runtime]:
    """What a worker's jobs share, on fakeredis, with a Bot API that records calls."""
    monkeypatch.setattr(limits, "ENABLED", False)
    client = fakeredis.FakeRedis()
    store = Store(client, 3600, 3600)
    yield Runtime(Services(Settings(telegram_token="t"), store), client, {"telegram": FakeApi()})  # type: ignore[arg-type]
