"""`burro whatsapp templates`: the utility templates Burro sends outside a person's 24-hour
window (service.platforms.whatsapp.templates), one per language, as Meta's template API
takes them. Printed as JSON; with `--submit`, created in the WhatsApp Business Account
(BURRO_WHATSAPP_TOKEN, BURRO_WHATSAPP_WABA_ID, BURRO_WHATSAPP_API_URL). Meta reviews a new
template before it can be sent; one already there is left as it is.

    burro whatsapp templates            # print them
    burro whatsapp templates --submit   # and create those not in the account yet
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from service.platforms.whatsapp import templates
from service.platforms.whatsapp.graph import Graph, GraphError
from service.settings import Settings


def warn(line: str) -> None:
    print(line, file=sys.stderr)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "whatsapp",
        help="WhatsApp set-up: the message templates",
        description="WhatsApp set-up (see README, 'WhatsApp').",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "templates",
        help="print the utility templates (and submit them to Meta)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    listing.add_argument(
        "--submit", action="store_true", help="create those not in the account yet"
    )
    listing.add_argument("--waba-id", help="the WhatsApp Business Account id (else from env)")
    listing.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    definitions = templates.definitions()
    print(json.dumps(definitions, ensure_ascii=False, indent=2))
    if not args.submit:
        return 0
    settings = Settings()
    waba = args.waba_id or settings.whatsapp_waba_id
    if settings.whatsapp_token is None or not waba:
        print(
            "burro whatsapp: --submit needs BURRO_WHATSAPP_TOKEN and BURRO_WHATSAPP_WABA_ID "
            "(or --waba-id)",
            file=sys.stderr,
        )
        return 2
    api = Graph(
        settings.whatsapp_api_url,
        settings.whatsapp_api_version,
        settings.whatsapp_phone_id or "",
        settings.whatsapp_token.get_secret_value(),
    )
    return submit(api, waba, definitions)


def submit(
    api: Graph, waba: str, definitions: list[dict[str, Any]], say: Callable[[str], None] = warn
) -> int:
    """Create each template the account does not have yet; 1 if Meta refused one."""
    try:
        have = {(t.get("name"), t.get("language")) for t in api.templates(waba)}
    except GraphError as error:
        say(f"burro whatsapp: cannot list the account's templates: {error}")
        return 1
    status = 0
    for definition in definitions:
        key = (definition["name"], definition["language"])
        if key in have:
            say(f"{key[0]} ({key[1]}): already there")
            continue
        try:
            answer = api.create_template(waba, definition)
        except GraphError as error:
            say(f"{key[0]} ({key[1]}): refused: {error}")
            status = 1
            continue
        say(f"{key[0]} ({key[1]}): {answer.get('status', 'submitted')}")
    return status
