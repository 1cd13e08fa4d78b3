"""`burro set-webhook`: tell Telegram where to POST updates, once per deployment.

The webhook is `<public URL>/telegram/webhook`, with the secret `serve` checks, the
update kinds the service handles (Telegram leaves some out unless asked) and how many
connections Telegram may open at once. Safe to run on every deploy: setWebhook
replaces the last setting, and pending updates are kept unless asked otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

WEBHOOK_PATH = "/telegram/webhook"
ALLOWED_UPDATES = (
    "message",
    "callback_query",
    "inline_query",
    "chosen_inline_result",
    "my_chat_member",
    "widget_query",  # a hand's widget tapped (Bot API 10.4)
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "set-webhook",
        help="register the webhook with Telegram",
        description="Call setWebhook with BURRO_TELEGRAM_TOKEN, BURRO_WEBHOOK_SECRET and "
        f"<BURRO_PUBLIC_URL>{WEBHOOK_PATH}, then print getWebhookInfo.",
    )
    parser.add_argument("--public-url", help="overrides BURRO_PUBLIC_URL (https://host[:port])")
    parser.add_argument(
        "--max-connections",
        type=int,
        default=None,
        help="overrides BURRO_WEBHOOK_MAX_CONNECTIONS (1-100)",
    )
    parser.add_argument(
        "--drop-pending-updates", action="store_true", help="discard updates not delivered yet"
    )
    parser.add_argument("--delete", action="store_true", help="remove the webhook instead")
    parser.set_defaults(run=run)


def webhook_url(public_url: str) -> str:
    """The webhook address for a public base URL (a URL already ending in the webhook
    path is taken as it is)."""
    base = public_url.rstrip("/")
    return base if base.endswith(WEBHOOK_PATH) else base + WEBHOOK_PATH


def run(args: argparse.Namespace) -> int:
    from service.platforms.telegram.botapi import ApiError, BotApi, NetworkError
    from service.settings import Settings

    settings = Settings()
    token = settings.telegram_token.get_secret_value() if settings.telegram_token else ""
    secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else ""
    public_url = args.public_url or settings.public_url
    missing = [name for name, value in (("BURRO_TELEGRAM_TOKEN", token),) if not value]
    if not args.delete:
        missing += [
            name
            for name, value in (("BURRO_WEBHOOK_SECRET", secret), ("BURRO_PUBLIC_URL", public_url))
            if not value
        ]
    if missing:
        print(f"burro set-webhook: set {' and '.join(missing)}", file=sys.stderr)
        return 2
    connections = args.max_connections or settings.webhook_max_connections
    if not 1 <= connections <= 100:
        print("burro set-webhook: max connections must be between 1 and 100", file=sys.stderr)
        return 2
    api = BotApi(token, settings.telegram_api_url)
    try:
        if args.delete:
            api.call("deleteWebhook", drop_pending_updates=args.drop_pending_updates)
        else:
            assert public_url is not None
            api.call(
                "setWebhook",
                url=webhook_url(public_url),
                secret_token=secret,
                allowed_updates=list(ALLOWED_UPDATES),
                max_connections=connections,
                drop_pending_updates=args.drop_pending_updates,
            )
        info = api.call("getWebhookInfo")
    except ApiError as error:
        print(f"burro set-webhook: Telegram refused: {error}", file=sys.stderr)
        return 1
    except NetworkError as error:
        said = str(error).replace(token, "<token>")  # never print the token
        print(f"burro set-webhook: no answer from {settings.telegram_api_url}: {said}",
              file=sys.stderr)  # fmt: skip
        return 1
    finally:
        api.close()
    print(json.dumps(info, indent=1, sort_keys=True))
    return 0
