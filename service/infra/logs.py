"""Structured logs: one JSON object per line on stderr, for log collectors to index.

Every line carries the game, chat and update it is about (`game_id`, `chat_id`,
`update_id`; null when there is none), so one query follows a game across every
`serve` and `worker` process. The values live in context variables: `serve` sets them
per request (each request is its own asyncio task, so they never leak between
requests), a worker per job, and the store names the game when it first loads one.
Lines from the standard `logging` module (ours, uvicorn's, RQ's) go through the same
formatter, so they carry the same fields.

No line shows the bot token or a player's cards, at any level: every line is redacted
as it is written (the secrets the process was given, and anything shaped like a bot
token), and the HTTP and python-telegram-bot loggers, whose debug lines hold request
URLs (with the token in them) and request parameters (inline results list a hand), stay
at WARNING whatever the level.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable
from typing import Any, Literal, TextIO

import structlog
from pydantic import SecretStr
from structlog.contextvars import bind_contextvars, clear_contextvars, get_contextvars
from structlog.typing import EventDict, Processor, WrappedLogger

CONTEXT_KEYS = ("game_id", "chat_id", "update_id")
Format = Literal["json", "console"]
# Loggers held at WARNING: their debug and info lines carry request URLs (the bot token
# is part of every Bot API URL) and request parameters (a hand's inline results).
QUIET_LOGGERS = ("httpx", "httpcore", "telegram", "hpack")
# A Telegram bot token: `<bot id>:<35 characters>`. Its tail alone is looked for first:
# a search that starts at a literal ":" is a twelfth of the whole shape's (every line).
TOKEN_SHAPE = re.compile(r"\b\d{5,}:[A-Za-z0-9_-]{30,}")
TOKEN_TAIL = re.compile(r":[A-Za-z0-9_-]{30}")
REDACTED = "<redacted>"
_secrets: set[str] = set()


def redact(text: str) -> str:
    """The text without any secret of this process nor anything shaped like a token."""
    for secret in _secrets:
        text = text.replace(secret, REDACTED)
    return TOKEN_SHAPE.sub(REDACTED, text) if TOKEN_TAIL.search(text) else text


def secret_values(*values: SecretStr | None) -> list[str]:
    """What `setup` must keep out of the lines for these settings: each value, and a
    token's secret part on its own (`<bot id>:<secret>`)."""
    found = [value.get_secret_value() for value in values if value is not None]
    return [*found, *(value.partition(":")[2] for value in found if ":" in value)]


class RedactingFormatter(structlog.stdlib.ProcessorFormatter):
    """A line of the `logging` module's (uvicorn's, RQ's, ours), rendered as structlog
    renders its own, secrets taken out (the message, its fields and any traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class LineLogger:
    """structlog's own lines, rendered by its processors, written straight to the
    stream of the handler `setup` installed: a line that skips the `logging` module's
    record, handler and formatter costs half as much (one per update in `serve`). A
    line whose handler is gone (the root logger's handlers replaced since) goes through
    `logging`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.stdlib = logging.getLogger(name)  # its level, and where a stray line goes

    @property
    def disabled(self) -> bool:
        return self.stdlib.disabled

    def getEffectiveLevel(self) -> int:  # filter_by_level asks it so
        return self.stdlib.getEffectiveLevel()

    def _write(self, line: str, level: int) -> None:
        handler = _handler
        if handler is None or handler not in logging.getLogger().handlers:
            self.stdlib.log(level, line)
            return
        handler.acquire()
        try:
            handler.stream.write(line + handler.terminator)
            handler.flush()
        except Exception:  # as `logging`'s handlers: a line never fails its caller
            handler.handleError(logging.makeLogRecord({"msg": line, "levelno": level}))
        finally:
            handler.release()

    def debug(self, line: str) -> None:
        self._write(line, logging.DEBUG)

    def info(self, line: str) -> None:
        self._write(line, logging.INFO)

    def warning(self, line: str) -> None:
        self._write(line, logging.WARNING)

    def error(self, line: str) -> None:
        self._write(line, logging.ERROR)

    def critical(self, line: str) -> None:
        self._write(line, logging.CRITICAL)

    exception = error
    warn = warning
    fatal = critical


_handler: logging.StreamHandler[TextIO] | None = None
_meta = structlog.stdlib.ProcessorFormatter.remove_processors_meta


def _redacted(logger: WrappedLogger, method: str, line: Any) -> str:
    """The last step of structlog's own lines: the rendered line, secrets taken out."""
    return redact(line)


def _context_keys(logger: WrappedLogger, method: str, event: EventDict) -> EventDict:
    """Name the game, chat and update on every line, null when the line has none."""
    for key in CONTEXT_KEYS:
        event.setdefault(key, None)
    return event


def _processors(process: str) -> list[Processor]:
    def name_process(logger: WrappedLogger, method: str, event: EventDict) -> EventDict:
        event.setdefault("process", process)
        return event

    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.stdlib.ExtraAdder(),
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        name_process,
        _context_keys,
    ]


def setup(
    process: str,
    fmt: Format = "json",
    level: str = "INFO",
    stream: TextIO | None = None,
    secrets: Iterable[str] = (),
) -> None:
    """Send every log line of this process (structlog's and the `logging` module's)
    through one formatter: JSON lines, or readable ones with `fmt="console"`. `secrets`
    (the bot token, the webhook secret) never appear in a line."""
    _secrets.update(secret for secret in secrets if len(secret) >= 8)
    shared = _processors(process)
    renderer: Processor = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    rendering: list[Processor] = [structlog.processors.format_exc_info, renderer]
    formatter = RedactingFormatter(processors=[_meta, *rendering], foreign_pre_chain=shared)
    global _handler
    handler = _handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # No line shows where it was logged from, nor the thread or process fields of the
    # `logging` module's records: not working them out for each line is the logging
    # docs' own advice ("Optimization"). A line names its process itself (`process`).
    logging._srcfile = None
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    for chatty in QUIET_LOGGERS:
        logging.getLogger(chatty).setLevel(max(logging.WARNING, root.level))
    structlog.configure(
        # A line below the logger's level is dropped before any field is worked out.
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            *rendering,
            _redacted,
        ],
        logger_factory=LineLogger,
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def get(name: str) -> structlog.stdlib.BoundLogger:
    """A logger whose keyword arguments become fields of the line."""
    logger: structlog.stdlib.BoundLogger = structlog.stdlib.get_logger(name)
    return logger


def new_context(**values: Any) -> None:
    """Start the context of a new request or job: forget the last one's values."""
    clear_contextvars()
    bind_contextvars(**values)


def bind(**values: Any) -> None:
    bind_contextvars(**values)


def bind_game(room_id: str) -> None:
    """Name the game of this request or job, unless one is named already (the first
    room an update touches is the one it is about) or the context says it is about no
    one game (the sweeper binds None)."""
    if "game_id" not in get_contextvars():
        bind_contextvars(game_id=room_id)


def clear() -> None:
    clear_contextvars()
