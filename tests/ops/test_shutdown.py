"""Graceful shutdown, as a rollout or a scale-down does it (SIGTERM, then a wait):
`serve` stops accepting but finishes the update in hand, answers 200 and exits; a
worker finishes the job in hand (RQ's warm shutdown) and exits 0. Telegram is made
slow (the emulator holds the call) so that the signal lands mid-request / mid-job."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator

import httpx
import pytest

from cli.stack import Stack
from emulator.server import RunningEmulator
from service.infra import indexes
from service.infra.keys import PENDING_SYNC
from service.infra.queue import QUEUE
from service.infra.redis_server import connect
from tests.ops.conftest import ops_stack, scrape, value, worker_metrics
from tests.service.play import action_button

SLOW = 3.0  # seconds the emulator holds the call


@pytest.fixture
def fresh_stack(emu: RunningEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with ops_stack(emu, tmp_path_factory.mktemp("shutdown")) as running:
        yield running


def gauge(url: str, name: str) -> float | None:
    """A gauge's value, or None while the process is not listening yet."""
    try:
        return value(scrape(url), name)
    except httpx.ConnectError:
        return None


def wait_exit(process: subprocess.Popen[bytes], timeout: float) -> int:
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError(f"still running {timeout}s after SIGTERM") from None


def test_serve_finishes_the_update_in_hand(emu: RunningEmulator, fresh_stack: Stack) -> None:
    stack = fresh_stack
    serve = stack.processes["serve"]
    emu.inject_delay("sendMessage", SLOW)  # /help answers inside the request: it hangs there
    since = emu.last_seq()
    emu.send_message("Ana", "Ana", "/help")
    emu.wait_for(
        lambda: gauge(stack.serve_url, "burro_updates_in_progress") == 1 or None,
        what="the update in flight",
    )
    serve.send_signal(signal.SIGTERM)

    def refuses_new_connections() -> bool | None:
        try:
            httpx.get(f"{stack.serve_url}/healthz", timeout=0.5)
        except httpx.ConnectError:
            return True
        except (httpx.RemoteProtocolError, httpx.TimeoutException):
            return None  # caught mid-shutdown (accepted, then closed unanswered): ask again
        return None

    emu.wait_for(refuses_new_connections, timeout=SLOW, what="serve to stop accepting")
    assert serve.poll() is None, "serve exited with a request in flight"
    # uvicorn re-raises the signal once drained: "killed by SIGTERM" is its clean exit.
    assert wait_exit(serve, 20) in (0, -signal.SIGTERM)
    deliveries = [d for d in emu.deliveries(since=since)]
    assert deliveries and all(d["status"] == 200 for d in deliveries), deliveries
    assert emu.calls("sendMessage", since=since)[-1]["ok"]  # the answer went out
    stack.processes.pop("serve")


def test_worker_finishes_the_job_in_hand(emu: RunningEmulator, fresh_stack: Stack) -> None:
    stack = fresh_stack
    worker = stack.processes["worker0"]
    url = worker_metrics(stack)
    emu.inject_delay("sendMessage", SLOW)  # the outbox's send hangs in Telegram
    emu.send_message("Ben", "Ben", "/play spanish")
    # The lobby's send held in Telegram: the sync job is in hand. (A job in progress
    # alone may be the periodic sweep, which RQ finishes before it exits, the sync unrun.)
    emu.wait_for(lambda: emu.held("sendMessage") == 1 or None, what="the sync job's send")
    assert gauge(url, "burro_jobs_in_progress") == 1
    worker.send_signal(signal.SIGTERM)
    assert emu.last_message("Ben") is None or action_button(emu.last_message("Ben"), "S") is None
    assert wait_exit(worker, 30) == 0
    stack.processes.pop("worker0")
    # No other worker runs: the lobby message is there because the dying worker sent it.
    message = emu.last_message("Ben")
    assert message is not None and action_button(message, "S") is not None
    assert indexes.count(stack.state(), PENDING_SYNC) == 0  # marked done, not left for the sweeper
    assert connect(stack.redis.url).zcard(f"rq:failed:{QUEUE}") == 0  # RQ's own Redis
