"""`burro serve`: the webhook web process (CONTRACTS.md section 5)."""

from __future__ import annotations

import argparse
import logging
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the webhook web process",
        description="Serve Telegram's webhook at /telegram/webhook and /healthz. "
        "Configured by BURRO_* environment variables (see README).",
    )
    parser.add_argument("--host", default=None, help="overrides BURRO_HOST")
    parser.add_argument("--port", type=int, default=None, help="overrides BURRO_PORT")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from service.redis_server import embedded_url
    from service.settings import Settings
    from service.web import create_app

    settings = Settings()
    if settings.redis_url is None:  # the embedded default, shared through a unix socket
        settings.redis_url = embedded_url(settings.data_dir)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    app = create_app(settings)
    uvicorn.run(
        app,
        host=args.host or settings.host,
        port=args.port or settings.port,
        log_level="warning",
        timeout_graceful_shutdown=20,
    )
    return 0
