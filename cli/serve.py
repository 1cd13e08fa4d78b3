"""`burro serve`: the webhook web process (docs/interfaces.md section 5)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from service.settings import Settings


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

    from service.infra import heap, logs
    from service.infra.redis_server import embedded_url
    from service.settings import Settings
    from service.web import create_app

    settings = Settings()
    if settings.redis_url is None:  # the embedded default, shared through a unix socket
        settings.redis_url = embedded_url(settings.data_dir)
    secrets = logs.secret_values(settings.telegram_token, settings.webhook_secret)
    logs.setup("serve", settings.log_format, settings.log_level, secrets=secrets)
    settings.require_serve()
    if not token_works(settings):
        return 1
    set_menus(settings)
    app = create_app(settings)  # it reads the bot's settings once more (tg.botfather)
    heap.freeze_startup()
    uvicorn.run(
        app,
        host=args.host or settings.host,
        port=args.port or settings.port,
        log_level="warning",
        log_config=None,  # uvicorn's lines go through our formatter (service.infra.logs)
        # On SIGTERM: stop accepting, let in-flight updates commit and answer, then exit.
        timeout_graceful_shutdown=settings.shutdown_grace,
    )
    return 0


def token_works(settings: Settings) -> bool:
    """Whether Telegram answers getMe with the token; if not, says why on stderr (never
    showing the token)."""
    from service.infra import logs
    from service.platforms.telegram.botapi import ApiError, BotApi, NetworkError

    assert settings.telegram_token is not None
    api = BotApi(settings.telegram_token.get_secret_value(), settings.telegram_api_url)
    try:
        api.call("getMe")
    except ApiError as error:
        if error.code in (401, 404):  # Telegram answers 404 to a malformed token
            said = f"Telegram does not know BURRO_TELEGRAM_TOKEN ({error})"
            print(f"burro serve: {said}; copy it again from @BotFather (/token)", file=sys.stderr)
        else:
            print(f"burro serve: getMe failed: {logs.redact(str(error))}", file=sys.stderr)
        return False
    except NetworkError as error:
        said = logs.redact(str(error))
        print(f"burro serve: no answer from {settings.telegram_api_url}: {said}", file=sys.stderr)
        return False
    finally:
        api.close()
    return True


def set_menus(settings: Settings) -> None:
    """Set the bot's command menus (tg.menu); if Telegram refuses, say why on stderr and
    serve all the same (the menu is a help, the commands work without it)."""
    from service.infra import logs
    from service.platforms.telegram import menu
    from service.platforms.telegram.botapi import ApiError, BotApi, NetworkError

    assert settings.telegram_token is not None
    api = BotApi(settings.telegram_token.get_secret_value(), settings.telegram_api_url)
    try:
        menu.register(api)
    except (ApiError, NetworkError) as error:
        print(f"burro serve: setMyCommands failed: {logs.redact(str(error))}", file=sys.stderr)
    finally:
        api.close()
