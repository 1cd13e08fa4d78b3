"""Running the emulator: in a background thread for tests (`running_emulator`), or in the
foreground for `burro emulator` (`serve`); the serving itself is emulator/common/server.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from emulator.app import Emulator, create_app
from emulator.common.server import ServerThread, run_foreground
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


class StateFiles:
    """Where `--state` keeps both worlds: Telegram's in `path`, WhatsApp's beside it."""

    def __init__(self, emulator: Emulator, path: Path) -> None:
        self.emulator = emulator
        self.telegram = path
        self.whatsapp = whatsapp_persist.path_beside(path)

    def resume(self) -> None:
        persist.resume(self.emulator.world, self.telegram)
        whatsapp_persist.resume(self.emulator.whatsapp, self.whatsapp)

    def save(self) -> None:
        """Save as the stop is asked for: uvicorn raises the signal again once stopped,
        which ends the process before anything after it runs."""
        persist.save(self.emulator.world, self.telegram)
        whatsapp_persist.save(self.emulator.whatsapp.world, self.whatsapp)

    async def keep(self) -> None:
        """Save each world whenever it changed, until cancelled (then once more)."""
        await asyncio.gather(
            persist.keep(self.emulator.world, self.telegram),
            whatsapp_persist.keep(self.emulator.whatsapp.world, self.whatsapp),
        )


def serve(
    config: EmulatorConfig,
    host: str,
    port: int,
    on_ready: Callable[[str], None] | None = None,
    state: Path | None = None,
) -> None:
    """Run an emulator in the foreground until interrupted; with `state`, the world is
    read from that file at start and kept in it (emulator.telegram.persist), and the
    WhatsApp world beside it (emulator.whatsapp.persist)."""
    emulator = Emulator(config)
    files = StateFiles(emulator, state) if state is not None else None
    if files is not None:
        files.resume()
    run_foreground(
        create_app(emulator),
        host,
        port,
        on_ready,
        on_exit=files.save if files is not None else None,
        alongside=files.keep if files is not None else None,
    )
