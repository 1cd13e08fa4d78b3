"""Running the emulator: in a background thread for tests (`running_emulator`), or in the
foreground for `burro emulator` (`serve`); the serving itself is emulator/common/server.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from emulator.app import Emulator, create_app
from emulator.common.server import ServerThread, StoppableServer, bound_socket, shown_host
from emulator.config import EmulatorConfig, fast_config
from emulator.telegram import persist
from emulator.telegram.driver import EmulatorDriver
from emulator.whatsapp import persist as whatsapp_persist


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
    read from that file at start and kept in it (emulator.telegram.persist), and the WhatsApp
    world beside it (emulator.whatsapp.persist)."""
    emulator = Emulator(config)
    whatsapp_state = whatsapp_persist.path_beside(state) if state is not None else None
    if state is not None and whatsapp_state is not None:
        persist.resume(emulator.world, state)
        whatsapp_persist.resume(emulator.whatsapp, whatsapp_state)
    app = create_app(emulator)
    sock = bound_socket(host, port)
    bound_port = sock.getsockname()[1]
    options = uvicorn.Config(
        app, log_level="warning", timeout_graceful_shutdown=1, access_log=False
    )

    def on_exit() -> None:
        """Save as the stop is asked for: uvicorn raises the signal again once stopped,
        which ends the process before anything after it runs."""
        if state is not None and whatsapp_state is not None:
            persist.save(emulator.world, state)
            whatsapp_persist.save(emulator.whatsapp.world, whatsapp_state)

    server = StoppableServer(options, on_exit)

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
            on_ready(f"http://{shown_host(host)}:{bound_port}")
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
