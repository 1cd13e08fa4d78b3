"""Running the emulator (or any ASGI app): in a background thread for tests, or in the
foreground for `burro emulator`."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from emulator import persist
from emulator.app import Emulator, create_app
from emulator.config import EmulatorConfig, fast_config
from emulator.driver import EmulatorDriver
from emulator.whatsapp import persist as whatsapp_persist


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
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
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
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

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


class _StoppableServer(uvicorn.Server):
    """A uvicorn server that ends the app's event streams as soon as it is told to stop."""

    def __init__(self, config: uvicorn.Config, on_exit: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_exit = on_exit

    def handle_exit(self, sig: int, frame: Any) -> None:
        self._on_exit()
        super().handle_exit(sig, frame)


class RunningEmulator(EmulatorDriver):
    """A driver for an emulator running in this process; `emulator` is its state, to read
    (not change) from tests. `api_url` is what BURRO_TELEGRAM_API_URL should be."""

    def __init__(self, server: ServerThread, emulator: Emulator) -> None:
        super().__init__(server.url)
        self.server = server
        self.emulator = emulator

    @property
    def api_url(self) -> str:
        return self.url


@contextmanager
def running_emulator(
    config: EmulatorConfig | None = None, *, host: str = "127.0.0.1", port: int = 0
) -> Iterator[RunningEmulator]:
    """Run an emulator in a background thread: `with running_emulator() as emu: ...`.

    Without a config it runs with flood limits off and quick webhook retries
    (`fast_config()`); pass `EmulatorConfig()` for Telegram's real pacing."""
    emulator = Emulator(config or fast_config())
    app = create_app(emulator)
    with ServerThread(app, host, port, on_stop=emulator.close_streams) as server:
        driver = RunningEmulator(server, emulator)
        try:
            yield driver
        finally:
            driver.close()


def serve(
    config: EmulatorConfig,
    host: str,
    port: int,
    on_ready: Callable[[str], None] | None = None,
    state: Path | None = None,
) -> None:
    """Run an emulator in the foreground until interrupted; with `state`, the world is
    read from that file at start and kept in it (emulator.persist), and the WhatsApp
    world beside it (emulator.whatsapp.persist)."""
    emulator = Emulator(config)
    whatsapp_state = whatsapp_persist.path_beside(state) if state is not None else None
    if state is not None and whatsapp_state is not None:
        persist.resume(emulator.world, state)
        whatsapp_persist.resume(emulator.whatsapp, whatsapp_state)
    app = create_app(emulator)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    options = uvicorn.Config(
        app, log_level="warning", timeout_graceful_shutdown=1, access_log=False
    )

    def on_exit() -> None:
        """Save as the stop is asked for: uvicorn raises the signal again once stopped,
        which ends the process before anything after it runs."""
        if state is not None and whatsapp_state is not None:
            persist.save(emulator.world, state)
            whatsapp_persist.save(emulator.whatsapp.world, whatsapp_state)

    server = _StoppableServer(options, on_exit)

    async def main() -> None:
        keeping = asyncio.create_task(persist.keep(emulator.world, state)) if state else None
        keeping_whatsapp = (
            asyncio.create_task(whatsapp_persist.keep(emulator.whatsapp.world, whatsapp_state))
            if whatsapp_state
            else None
        )
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started and on_ready is not None:
            on_ready(f"http://{shown}:{bound_port}")
        try:
            await task
        finally:
            for saver in (keeping, keeping_whatsapp):  # each saves once more as it stops
                if saver is not None:
                    saver.cancel()
                    await asyncio.gather(saver, return_exceptions=True)

    try:
        asyncio.run(main())
    finally:
        sock.close()
