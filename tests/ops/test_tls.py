"""The process's HTTPS clients share one TLS context: httpx loads the CA bundle for each
client it builds (0.1 s of CPU or more), and a worker or serve builds several."""

from __future__ import annotations

import ssl
from typing import Any

import pytest

from service.infra import tls
from service.platforms.telegram.app import build_application
from service.platforms.telegram.botapi import BotApi
from service.platforms.whatsapp.graph import Graph
from service.services import Services
from service.settings import Settings


def test_the_bot_api_graph_and_ptb_clients_load_the_ca_bundle_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loads: list[str] = []
    load = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loads.append("bundle")
        load(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    tls.context.cache_clear()
    # The application reads only the settings when it is built: no store is needed.
    services = Services(Settings(), store=None)  # type: ignore[arg-type]
    for _ in range(3):
        BotApi("1:token", "https://api.telegram.org")
        Graph("https://graph.facebook.com", "v21.0", "1", "token")
        build_application(services, "1:token", "https://api.telegram.org")
    assert loads == ["bundle"]
    assert tls.context().verify_mode == ssl.CERT_REQUIRED  # still checked, not switched off
