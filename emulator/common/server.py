"""Serving an ASGI app (the emulator's, or a test's stand-in) with uvicorn: in a
background thread with its own event loop, or in the foreground until told to stop."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import uvicorn


def bound_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to `host` (IPv4 or IPv6) and `port` (0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    return sock


def shown_host(host: str) -> str:
    """`host` as a URL names it (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


class ServerThread:
    """An ASGI app served by uvicorn on its own thread and event loop.

    The socket is bound before the thread starts, so `url` is known at once (port 0 picks
    a free port). Use as a context manager, or call `start()` and `stop()`.
    """

    def __init__(
        self,
        app: Any,
        host: str = "127.0.0.1",
        port: int = 0,
        on_stop: Callable[[], None] | None = None,
    ) -> None:
        self.app = app
        self._on_stop = on_stop
        self._loop: asyncio.AbstractEventLoop | None = None
        self._socket = bound_socket(host, port)
        self.host = host
        self.port: int = self._socket.getsockname()[1]
        config = uvicorn.Config(
            app,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=1,
            access_log=False,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name=f"asgi-{self.port}", daemon=True)
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"http://{shown_host(self.host)}:{self.port}"

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        await self._server.serve(sockets=[self._socket])

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # reported by start()
            self._error = exc

    def start(self, timeout: float = 10.0) -> ServerThread:
        self._thread.start()
        deadline = threading.Event()
        waited = 0.0
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError(f"server failed to start: {self._error!r}")
            if waited >= timeout:
                raise TimeoutError("server did not start in time")
            deadline.wait(0.01)
            waited += 0.01
        return self

    def stop(self, timeout: float = 10.0) -> None:
        if self._on_stop is not None and self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._on_stop)
        self._server.should_exit = True
        self._thread.join(timeout)
        self._socket.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class StoppableServer(uvicorn.Server):
    """A uvicorn server that ends the app's event streams as soon as it is told to stop."""

    def __init__(self, config: uvicorn.Config, on_exit: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_exit = on_exit

    def handle_exit(self, sig: int, frame: Any) -> None:
        self._on_exit()
        super().handle_exit(sig, frame)


def run_foreground(
    app: Any,
    host: str,
    port: int,
    on_ready: Callable[[str], None] | None = None,
    *,
    on_exit: Callable[[], None] | None = None,
    alongside: Callable[[], Coroutine[Any, Any, None]] | None = None,
) -> None:
    """Serve `app` on this thread until interrupted. `on_ready` gets its URL once it
    listens; `on_exit` runs as the stop is asked for; `alongside` runs as a task while
    it serves, cancelled (and awaited) once it stopped."""
    sock = bound_socket(host, port)
    url = f"http://{shown_host(host)}:{sock.getsockname()[1]}"
    options = uvicorn.Config(
        app, log_level="warning", timeout_graceful_shutdown=1, access_log=False
    )
    server = StoppableServer(options, on_exit or (lambda: None))
    try:
        asyncio.run(_serve(server, sock, url, on_ready, alongside))
    finally:
        sock.close()


async def _serve(
    server: uvicorn.Server,
    sock: socket.socket,
    url: str,
    on_ready: Callable[[str], None] | None,
    alongside: Callable[[], Coroutine[Any, Any, None]] | None,
) -> None:
    side = asyncio.create_task(alongside()) if alongside is not None else None
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    if server.started and on_ready is not None:
        on_ready(url)
    try:
        await task
    finally:
        if side is not None:
            side.cancel()
            await asyncio.gather(side, return_exceptions=True)
