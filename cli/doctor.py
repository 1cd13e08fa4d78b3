"""`burro doctor`: what Telegram says about the bot's settings that Burro depends on,
and what to change in @BotFather (or which command to run) when one is wrong.

It reads getMe (inline mode, privacy mode, joining groups) and getWebhookInfo (the
URL, the update kinds, pending updates, Telegram's last delivery error), and asks the
Bot API whether it takes ephemeral messages and widgets, as `burro serve` does at start
(service.platforms.telegram.probe). Inline feedback cannot be read through the Bot API:
it is listed as a reminder. Exit status 0
when nothing needs fixing, 1 when something does or Telegram cannot be asked, 2 when
the configuration is incomplete.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

OK, FIX, NOTE = "ok", "fix", "note"


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # OK, FIX or NOTE
    found: str
    advice: str = ""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check the bot's Telegram settings (BotFather, webhook)",
        description="Ask Telegram (getMe, getWebhookInfo) about the bot of "
        "BURRO_TELEGRAM_TOKEN and say what to change in @BotFather.",
    )
    parser.add_argument("--public-url", help="overrides BURRO_PUBLIC_URL (the expected webhook)")
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")
    parser.set_defaults(run=run)


def bot_checks(me: dict[str, Any]) -> list[Check]:
    """What getMe says about BotFather's settings."""
    from service.platforms.telegram.botfather import (
        INLINE_ADVICE,
        JOIN_GROUPS_ADVICE,
        PRIVACY_ADVICE,
    )

    inline = bool(me.get("supports_inline_queries"))
    privacy = not me.get("can_read_all_group_messages")
    groups = bool(me.get("can_join_groups"))
    feedback = (
        "@BotFather: /setinlinefeedback, the bot, 100%: a card chosen from 🃏 My cards is "
        "played at once (without it the player taps ✅ Confirm)."
    )
    return [
        Check("inline mode", *((OK, "on", "") if inline else (FIX, "off", INLINE_ADVICE))),
        Check("inline feedback", NOTE, "not visible to the Bot API", feedback),
        Check("privacy mode", *((OK, "on", "") if privacy else (NOTE, "off", PRIVACY_ADVICE))),
        Check(
            "joining groups",
            *((OK, "allowed", "") if groups else (FIX, "refused", JOIN_GROUPS_ADVICE)),
        ),
    ]


def ephemeral_check(found: bool | None) -> Check:
    """What the probe found: whether a group member's hand can be shown to them alone in
    the group (ephemeral messages); off, it stays in the private chat (a note: nothing
    is broken)."""
    from service.platforms.telegram.probe import ADVICE

    on = "on: 🃏 My cards and /hand show each their hand in the group"
    off = "off: hands stay in the private chat (and inline mode)"
    return probe_check("ephemeral messages", found, on, off, ADVICE)


def widgets_check(found: bool | None) -> Check:
    """What the widget probe found: whether hands are drawn in the private chat
    (widgets); off, they are text (a note: nothing is broken)."""
    from service.platforms.telegram.probe import WIDGETS_ADVICE

    on = "on: hands are drawn in the private chat (/look: text)"
    return probe_check("widgets", found, on, "off: hands are text", WIDGETS_ADVICE)


def probe_check(name: str, found: bool | None, on: str, off: str, advice: str) -> Check:
    """A Bot API probe's finding (`serve` probes at each start): on, off, or unknown."""
    if found:
        return Check(name, OK, on)
    if found is None:
        again = "Run burro doctor again; burro serve probes at each start."
        return Check(name, NOTE, "unknown: the Bot API gave no answer to the probe", again)
    return Check(name, NOTE, off, advice)


def webhook_checks(info: dict[str, Any], expected: str | None) -> list[Check]:
    """What getWebhookInfo says about delivery to `burro serve`."""
    from cli.set_webhook import ALLOWED_UPDATES

    url = str(info.get("url") or "")
    run_set_webhook = "Run burro set-webhook (with BURRO_PUBLIC_URL set)."
    if not url:
        found, status, advice = "none", FIX, run_set_webhook
    elif expected is not None and url != expected:
        found, status, advice = f"{url} (expected {expected})", FIX, run_set_webhook
    else:
        found, status, advice = url, OK, ""
    checks = [Check("webhook", status, found, advice)]
    allowed = info.get("allowed_updates")
    missing = [kind for kind in ALLOWED_UPDATES if allowed and kind not in allowed]
    if url and missing:
        checks.append(Check("update kinds", FIX, "missing " + ", ".join(missing), run_set_webhook))
    pending = int(info.get("pending_update_count") or 0)
    if pending >= 100:
        held = "Telegram is holding updates back: is serve up?"
        checks.append(Check("pending updates", NOTE, str(pending), held))
    else:
        checks.append(Check("pending updates", OK, str(pending)))
    error = info.get("last_error_message")
    if error:
        when = datetime.fromtimestamp(int(info.get("last_error_date") or 0), UTC)
        advice = (
            "Check that serve answers at the webhook URL and that BURRO_WEBHOOK_SECRET is "
            "the secret set-webhook registered (run it again after changing it)."
        )
        found = f"{error} ({when:%Y-%m-%d %H:%M:%S} UTC)"
        checks.append(Check("last delivery error", FIX, found, advice))
    return checks


def run(args: argparse.Namespace) -> int:
    from cli.set_webhook import webhook_url
    from service.infra import logs
    from service.platforms.telegram import probe
    from service.platforms.telegram.botapi import ApiError, BotApi, NetworkError
    from service.settings import Settings

    settings = Settings()
    if settings.telegram_token is None or not settings.telegram_token.get_secret_value():
        print("burro doctor: set BURRO_TELEGRAM_TOKEN", file=sys.stderr)
        return 2
    public_url = args.public_url or settings.public_url
    api = BotApi(settings.telegram_token.get_secret_value(), settings.telegram_api_url)
    try:
        me, info = api.call("getMe"), api.call("getWebhookInfo")
        ephemeral = probe.ask(api, int(me["id"]))
        drawn = probe.ask_widgets(api, int(me["id"]))
    except ApiError as error:
        print(f"burro doctor: Telegram refused the token or the call: {error}", file=sys.stderr)
        return 1
    except NetworkError as error:
        said = logs.redact(str(error))
        print(f"burro doctor: no answer from {settings.telegram_api_url}: {said}", file=sys.stderr)
        return 1
    finally:
        api.close()
    expected = webhook_url(public_url) if public_url else None
    probes = [ephemeral_check(ephemeral), widgets_check(drawn)]
    checks = [*bot_checks(me), *probes, *webhook_checks(info, expected)]
    report(me, checks, args.json)
    return 1 if any(check.status == FIX for check in checks) else 0


def report(me: dict[str, Any], checks: list[Check], as_json: bool) -> None:
    if as_json:
        bot = {"username": me.get("username"), "id": me.get("id")}
        print(json.dumps({"bot": bot, "checks": [asdict(c) for c in checks]}, indent=1))
        return
    print(f"burro doctor: @{me.get('username')} (id {me.get('id')})")
    for check in checks:
        print(f"  [{check.status:>4}] {check.name}: {check.found}")
        if check.advice:
            print(f"         {check.advice}")
    fixes = sum(1 for check in checks if check.status == FIX)
    print("Nothing to fix." if not fixes else f"{fixes} setting(s) to fix, as said above.")
