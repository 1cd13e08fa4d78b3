"""`burro emulator`: run the local Telegram (Bot API emulator and web chat)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "emulator",
        help="run a local stand-in for Telegram: a Bot API emulator with a web chat",
        description=(
            "Serve a Bot API emulator and a web chat where a family of users plays with "
            "the bot. Point the service at it with BURRO_TELEGRAM_API_URL=<url>. The same "
            "server is a local WhatsApp Cloud API (BURRO_WHATSAPP_API_URL=<url>)."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8081, help="port (0: any free port)")
    parser.add_argument(
        "--no-flood-limits",
        action="store_true",
        help="do not answer 429 when a bot sends faster than Telegram allows",
    )
    parser.add_argument(
        "--token",
        action="append",
        default=[],
        metavar="TOKEN",
        help="create this bot at start (any <id>:<secret> token also creates one on first use)",
    )
    parser.add_argument(
        "--bot-username", default="burro_bot", help="username of the first bot (default burro_bot)"
    )
    parser.add_argument(
        "--state",
        type=Path,
        default=None,
        metavar="FILE",
        help="keep the users, chats and messages in this file across restarts (burro local)",
    )
    parser.add_argument(
        "--bot-api",
        default="10.4",
        metavar="VERSION",
        help="the Bot API version to play: 10.4 (default), or 10.1, before ephemeral "
        "messages (their methods answer 404, their parameters are ignored)",
    )
    whatsapp = parser.add_argument_group(
        "the local WhatsApp Cloud API served beside it (emulator/whatsapp/README.md)"
    )
    whatsapp.add_argument(
        "--whatsapp-token", default="local-whatsapp-token", help="the Graph access token"
    )
    whatsapp.add_argument(
        "--whatsapp-phone-id", default="100000000000001", help="the business phone number id"
    )
    whatsapp.add_argument(
        "--whatsapp-waba-id", default="200000000000001", help="the WhatsApp Business Account id"
    )
    whatsapp.add_argument(
        "--whatsapp-app-secret",
        default="local-app-secret",
        help="the key of the webhooks' X-Hub-Signature-256",
    )
    whatsapp.add_argument(
        "--whatsapp-approval-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="a new template is approved after this long on the emulator's clock (default 0)",
    )
    whatsapp.add_argument(
        "--no-whatsapp-limits",
        action="store_true",
        help="no pair-rate (131056) and throughput (130429) refusals",
    )
    botfather = parser.add_argument_group(
        "BotFather's settings of new bots (Telegram's defaults unless given)"
    )
    botfather.add_argument(
        "--inline", action="store_true", help="inline mode on (/setinline; default off)"
    )
    botfather.add_argument(
        "--inline-feedback",
        type=int,
        default=0,
        metavar="PERCENT",
        help="chosen inline results reported to the bot (/setinlinefeedback; default 0)",
    )
    botfather.add_argument(
        "--no-privacy",
        action="store_true",
        help="bots read every group message (/setprivacy Disable; default: privacy mode on)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from emulator.config import EmulatorConfig
    from emulator.server import serve
    from emulator.telegram.limits import FloodLimits
    from emulator.telegram.older import lacks
    from emulator.telegram.world import valid_token
    from emulator.whatsapp.config import WhatsAppConfig

    for token in args.token:
        if not valid_token(token):
            print(f"burro emulator: not a bot token (<id>:<secret>): {token!r}", file=sys.stderr)
            return 2

    try:
        lacks(args.bot_api)
    except ValueError as error:
        print(f"burro emulator: --bot-api: {error}", file=sys.stderr)
        return 2
    if not 0 <= args.inline_feedback <= 100:
        print("burro emulator: --inline-feedback is a percentage, 0 to 100", file=sys.stderr)
        return 2
    config = EmulatorConfig(
        flood_limits=FloodLimits(enabled=not args.no_flood_limits),
        tokens=tuple(args.token),
        bot_username=args.bot_username,
        bot_api=args.bot_api,
        privacy_mode=not args.no_privacy,
        inline_mode=args.inline,
        inline_feedback=args.inline_feedback,
        whatsapp=WhatsAppConfig(
            token=args.whatsapp_token,
            phone_number_id=args.whatsapp_phone_id,
            waba_id=args.whatsapp_waba_id,
            app_secret=args.whatsapp_app_secret,
            approval_delay=args.whatsapp_approval_delay,
            limits=not args.no_whatsapp_limits,
        ),
    )

    def ready(url: str) -> None:
        print(f"Burro local Telegram: {url}/", flush=True)
        print(f"  web chat:     {url}/", flush=True)
        print(f"  Bot API base: BURRO_TELEGRAM_API_URL={url}", flush=True)
        print(
            f"  WhatsApp:     BURRO_WHATSAPP_API_URL={url} "
            f"BURRO_WHATSAPP_PHONE_ID={args.whatsapp_phone_id}",
            flush=True,
        )
        print(
            f"  Bot API {args.bot_api}; flood limits: {'off' if args.no_flood_limits else 'on'}; "
            f"WhatsApp limits: "
            f"{'off' if args.no_whatsapp_limits else 'on'}; Ctrl-C stops",
            flush=True,
        )

    try:
        serve(config, args.host, args.port, on_ready=ready, state=args.state)
    except OSError as error:
        print(f"burro emulator: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 1
    return 0
