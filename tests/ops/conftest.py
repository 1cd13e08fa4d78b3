"""Operating the product: the local stack (cli.stack) with a worker metrics port, and
helpers to read Prometheus text and the processes' log files."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import structlog
from prometheus_client.parser import text_string_to_metric_families

from cli.stack import Stack
from emulator.server import RunningEmulator, running_emulator
from service.infra import logs
from service.infra.redis_server import RedisServer, free_port
from tests.conftest import fail_if_ignored
from tests.service.conftest import make_stack

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@contextmanager
def captured_logs(level: str, secrets: list[str] | None = None) -> Iterator[io.StringIO]:
    """This process's logs, as `service.infra.logs.setup` writes them, into a string; the
    logging set-up as it was afterwards."""
    root = logging.getLogger()
    handlers, root_level = root.handlers[:], root.level
    stream = io.StringIO()
    logs.setup("test", "json", level, stream=stream, secrets=secrets or [])
    logs.clear()  # earlier tests in this process touched rooms (the store names them)
    try:
        yield stream
    finally:
        root.handlers[:] = handlers
        root.setLevel(root_level)
        structlog.reset_defaults()
        logs.clear()


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    with running_emulator() as emulator:
        yield emulator
        fail_if_ignored(emulator.emulator)  # what came after the module's last test


def ops_stack(emu: RunningEmulator, folder: Path, **options: Any) -> Stack:
    """A test stack whose worker serves /metrics and /healthz (see `worker_metrics`)."""
    env = {"BURRO_WORKER_METRICS_PORT": str(free_port()), **options.pop("env", {})}
    return make_stack(emu, folder, env=env, **options)


def worker_metrics(stack: Stack) -> str:
    return f"http://127.0.0.1:{stack.extra_env['BURRO_WORKER_METRICS_PORT']}"


@pytest.fixture(scope="module")
def stack(emu: RunningEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with ops_stack(emu, tmp_path_factory.mktemp("ops")) as running:
        yield running


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A throwaway real Redis for one test."""
    with RedisServer(tmp_path / "redis", persist=False) as server:
        yield server.url


def scrape(url: str) -> Samples:
    """Every sample of a /metrics page, by (name, labels)."""
    response = httpx.get(f"{url}/metrics", timeout=5)
    response.raise_for_status()
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def log_lines(path: Path) -> list[dict[str, Any]]:
    """A process's log file, each line parsed as JSON (fails on a line that is not)."""
    lines = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                lines.append(json.loads(line))
            except ValueError:
                raise AssertionError(f"{path.name}:{number} is not JSON: {line[:200]}") from None
    return lines
