"""`burro serve`: the webhook web process (CONTRACTS.md section 5)."""

from __future__ import annotations

import argparse
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

    from service import logs
    from service.redis_server import embedded_url
    from service.settings import Settings
    from service.web import create_app

    settings = Settings()
    if settings.redis_url is None:  # the embedded default, shared through a unix socket
        settings.redis_url = embedded_url(settings.data_dir)
    logs.setup("serve", settings.log_format, settings.log_level)
    app = create_app(settings)
    uvicorn.run(
        app,
        host=args.host or settings.host,
        port=args.port or settings.port,
        log_level="warning",
        log_config=None,  # uvicorn's lines go through our formatter (service.logs)
        # On SIGTERM: stop accepting, let in-flight updates commit and answer, then exit.
        timeout_graceful_shutdown=settings.shutdown_grace,
    )
    return 0
