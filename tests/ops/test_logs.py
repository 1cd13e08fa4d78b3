"""Structured logs: JSON lines naming the game, chat and update on every line, from our
loggers and from the libraries' (logging module) alike, and never the bot token."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from cli.stack import TOKEN, Stack
from emulator.server import RunningEmulator
from service.infra import logs
from tests.ops.conftest import captured_logs, log_lines
from tests.service.play import GROUP, room_in


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    with captured_logs("INFO") as stream:
        yield stream


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_every_line_names_game_chat_and_update(captured: io.StringIO) -> None:
    logging.getLogger("some.library").warning("no context yet")
    logs.new_context(update_id=7, chat_id=-100)
    logs.bind_game("abcd1234")
    logs.bind_game("other123")  # the first room an update touches is the one it is about
    logs.get("burro.test").info("moved", seat=2)
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("burro.test").exception("failed")
    first, moved, failed = lines(captured)
    assert first["event"] == "no context yet" and first["level"] == "warning"
    assert first["game_id"] is None and first["chat_id"] is None and first["update_id"] is None
    assert moved == moved | {
        "event": "moved",
        "seat": 2,
        "update_id": 7,
        "chat_id": -100,
        "game_id": "abcd1234",
        "process": "test",
        "logger": "burro.test",
    }
    assert failed["game_id"] == "abcd1234" and "ValueError: boom" in str(failed["exception"])
    assert "timestamp" in moved


def test_a_new_context_forgets_the_last_one(captured: io.StringIO) -> None:
    logs.new_context(update_id=1, chat_id=5)
    logs.bind_game("aaaaaaaa")
    logs.new_context(update_id=2)
    logging.getLogger("x").warning("second")
    (line,) = lines(captured)
    assert line["update_id"] == 2 and line["chat_id"] is None and line["game_id"] is None


def test_the_sweepers_context_names_no_game(captured: io.StringIO) -> None:
    logs.new_context(game_id=None, job="sweep")
    logs.bind_game("aaaaaaaa")  # rooms the sweeper loads are not what its lines are about
    logging.getLogger("x").warning("swept")
    assert lines(captured)[0]["game_id"] is None


def test_console_format_for_people(captured: io.StringIO) -> None:
    stream = io.StringIO()
    logs.setup("test", "console", "INFO", stream=stream)
    logs.new_context(update_id=3)
    logging.getLogger("x").warning("hello")
    assert "hello" in stream.getvalue() and "update_id=3" in stream.getvalue()


def test_serve_and_worker_lines_follow_a_game(emu: RunningEmulator, stack: Stack) -> None:
    emu.send_message("Ana", GROUP, "/burro")
    message = emu.wait_for_message(GROUP, lambda m: "✋" in " ".join(m.button_texts))
    room = room_in(stack, message.chat_id)
    update_id = next(
        u["update_id"] for u in emu.updates() if u.get("message", {}).get("text") == "/burro"
    )

    def worker_job_line() -> dict[str, object] | None:
        for line in log_lines(stack.data_dir / "worker0.log"):
            if line["event"] == "job" and line["game_id"] == room.id:
                return line
        return None

    job = emu.wait_for(worker_job_line, what="the worker's line about the game")
    assert job["kind"] == "sync" and job["outcome"] == "ok"
    assert job["chat_id"] == message.chat_id and job["update_id"] is None
    served = emu.wait_for(
        lambda: next((line for line in log_lines(stack.data_dir / "serve.log")
                      if line.get("update_id") == update_id and line["event"] == "update"),
                     None),
        what="serve's line about the update",
    )  # fmt: skip
    assert served["game_id"] == room.id and served["chat_id"] == message.chat_id
    assert served["kind"] == "command" and served["outcome"] == "ok"
    for name in ("serve.log", "worker0.log"):
        text = (stack.data_dir / name).read_text()
        assert TOKEN.split(":")[1] not in text, f"{name} shows the bot token"
        for line in log_lines(stack.data_dir / name):
            assert {"game_id", "chat_id", "update_id", "timestamp", "level"} <= line.keys()


def test_a_line_the_stream_cannot_take_fails_nobody() -> None:
    """A stream closed under the handler (a test's captured stderr, a pipe gone): the
    line is reported as `logging`'s own handlers report one, and its caller goes on."""
    with captured_logs("INFO") as stream:
        stream.close()
        logs.get("burro.test").warning("after the stream closed")
