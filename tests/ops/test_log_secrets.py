"""No log line shows the bot token, the webhook secret or a player's cards, even at
DEBUG: lines are redacted as they are written, and the loggers of httpx and
python-telegram-bot (request URLs hold the token, inline answers list a hand) stay at
WARNING; `burro serve` reports a refused token without printing it."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cli.stack import SECRET, TOKEN, Stack
from emulator.server import RunningEmulator
from service.infra import logs
from service.infra.redis_server import free_port
from tests.ops.conftest import captured_logs
from tests.service.conftest import make_stack
from tests.service.test_inline_cards import choose_a_card, mover_of, started_game

REAL_SHAPED = "7234567890:AAHk3-example_example_example_exampleXY"


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    with captured_logs("DEBUG", secrets=[TOKEN, SECRET]) as stream:
        yield stream


def test_every_way_a_secret_reaches_a_line_is_redacted(captured: io.StringIO) -> None:
    log = logging.getLogger("burro.test")
    log.warning("calling https://api.telegram.org/bot%s/getMe", TOKEN)
    log.warning(f"secret {SECRET} in the message itself")
    logs.get("burro.test").info("a field", url=f"/bot{TOKEN}/sendMessage", other=REAL_SHAPED)
    try:
        raise RuntimeError(f"boom at /bot{TOKEN}/x")
    except RuntimeError:
        log.exception("failed")
    text = captured.getvalue()
    assert text.count(logs.REDACTED) >= 5
    for secret in (TOKEN, TOKEN.partition(":")[2], SECRET, REAL_SHAPED.partition(":")[2]):
        assert secret not in text


def test_http_and_telegram_loggers_stay_at_warning_under_debug(captured: io.StringIO) -> None:
    for name in ("httpx", "httpcore", "telegram.ext.Application", "telegram._bot"):
        logging.getLogger(name).debug("request with results: Ace of spades")
        logging.getLogger(name).info("request with results: Ace of spades")
    logging.getLogger("burro.test").debug("our own debug line")
    text = captured.getvalue()
    assert "Ace of spades" not in text and "our own debug line" in text


@pytest.fixture
def debug_stack(emu: RunningEmulator, tmp_path: Path) -> Iterator[Stack]:
    with make_stack(emu, tmp_path, env={"BURRO_LOG_LEVEL": "DEBUG"}) as running:
        yield running


def test_a_debug_stack_logs_no_token_and_no_hand(emu: RunningEmulator, debug_stack: Stack) -> None:
    room = started_game(emu, debug_stack)
    answer, _posted = choose_a_card(emu, mover_of(room), room)
    emu.wait_for(lambda: emu.updates()[-1], what="updates")
    written = ""
    for name in ("serve.log", "worker0.log"):
        written += (debug_stack.data_dir / name).read_text()
    assert '"level": "debug"' in written  # DEBUG was on
    for secret in (TOKEN, TOKEN.partition(":")[2], SECRET):
        assert secret not in written
    for result in answer.results:  # what the inline answer showed only to its player
        assert result.id not in written and f'"{result.title}"' not in written


def test_serve_reports_a_refused_token_without_printing_it(
    emu: RunningEmulator, tmp_path: Path
) -> None:
    httpx.post(f"{emu.api_url}/bot{TOKEN}/getMe", timeout=10)  # the bot exists
    wrong = TOKEN.partition(":")[0] + ":not-the-secret-of-this-bot"
    env = {**os.environ, "BURRO_TELEGRAM_TOKEN": wrong, "BURRO_WEBHOOK_SECRET": SECRET,
           "BURRO_TELEGRAM_API_URL": emu.api_url, "BURRO_DATA_DIR": str(tmp_path),
           "BURRO_REDIS_URL": "redis://127.0.0.1:9/0"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "serve", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "BURRO_TELEGRAM_TOKEN" in done.stderr and "@BotFather" in done.stderr
    assert "not-the-secret-of-this-bot" not in done.stderr + done.stdout
