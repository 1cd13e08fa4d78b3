"""What the Python clients of the emulator's control APIs share (the local Telegram's,
emulator/telegram/driver.py, and the local WhatsApp's, emulator/whatsapp/driver.py): calls that
unwrap `{"ok", "result"}` or raise the client's own error, and waiting on a condition."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx

T = TypeVar("T")
POLL_INTERVAL = 0.02


class ControlClient:
    """A control API over `_http`; a refusal raises `error` with its description."""

    error: type[Exception] = Exception
    timeout: float
    _http: httpx.Client

    def _get(self, path: str, **params: Any) -> Any:
        clean = {k: v for k, v in params.items() if v is not None}
        return self._unwrap(self._http.get(path, params=clean))

    def _post(self, path: str, **body: Any) -> Any:
        clean = {k: v for k, v in body.items() if v is not None}
        return self._unwrap(self._http.post(path, json=clean))

    def _unwrap(self, response: httpx.Response) -> Any:
        data = response.json()
        if not data.get("ok"):
            raise self.error(data.get("description", response.text))
        return data["result"]

    def wait_for(
        self,
        check: Callable[[], T | None],
        *,
        timeout: float | None = None,
        what: str = "condition",
    ) -> T:
        """Poll `check` until it returns something truthy (returned), or fail at the
        deadline."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            value = check()
            if value:
                return value
            if time.monotonic() >= deadline:
                raise TimeoutError(f"timed out waiting for {what}")
            time.sleep(POLL_INTERVAL)
