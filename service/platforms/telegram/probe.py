"""Whether the deployed Bot API takes ephemeral messages (Bot API 10.2+): asked once by
`burro serve` at start (`ephemeral`, through PTB) and by `burro doctor` (`ask`, through
the workers' client), with a call that changes nothing: deleting an ephemeral message
that cannot exist (`ephemeral.PROBE_METHOD`). A Bot API that knows the method refuses it
as a bad request (400); one that does not answers 404 "Not Found", as to any unknown
method. Anything else (no answer, a flood wait, a token refused) cannot tell.

Telegram's own servers are always the newest: an older answer comes from a self-hosted
telegram-bot-api server (BURRO_TELEGRAM_API_URL) not yet updated.
"""

from __future__ import annotations

import httpx
from telegram import Bot
from telegram.error import (
    BadRequest,
    ChatMigrated,
    EndPointNotFound,
    Forbidden,
    TelegramError,
)

from service.infra import logs
from service.platforms.telegram.botapi import ApiError
from service.platforms.telegram.ephemeral import PROBE_METHOD, Caller, probe_params

ADVICE = (
    "The Bot API server at BURRO_TELEGRAM_API_URL does not know ephemeral messages "
    "(Bot API 10.2+): update it (telegram-bot-api 10.4, or Telegram's own "
    "https://api.telegram.org), then restart burro serve (it probes when it starts)."
)
log = logs.get("burro.serve")


def verdict(status: int) -> bool | None:
    """What an HTTP status of the probe says: the method known (400, 403: it was read
    and refused), unknown (404), or cannot tell (anything else)."""
    if status in (400, 403):
        return True
    if status == 404:
        return False
    return None


async def ephemeral(bot: Bot) -> bool | None:
    """Whether the Bot API behind an initialized `bot` knows ephemeral messages; None
    when it could not tell (the network, a flood wait, a refused token)."""
    try:
        await bot.do_api_request(PROBE_METHOD, api_kwargs=probe_params(bot.id))
    except (BadRequest, Forbidden, ChatMigrated):  # read and refused: known
        return True
    except EndPointNotFound as error:  # PTB's word for a 404 (or 401) once initialized
        if "Unauthorized" in str(error.__cause__):  # the token revoked meanwhile
            log.warning("ephemeral probe: the token was refused")
            return None
        return False
    except TelegramError as error:  # TimedOut, NetworkError, RetryAfter, InvalidToken
        log.warning("ephemeral probe: no answer", error=logs.redact(str(error)))
        return None
    return True  # it deleted something: it knows the method all the more


def ask(api: Caller, bot_id: int) -> bool | None:
    """The same question through the workers' client (`botapi.BotApi`), for `doctor`."""
    try:
        api.call(PROBE_METHOD, **probe_params(bot_id))
    except ApiError as error:
        return verdict(error.code)
    except httpx.HTTPError:
        return None
    return True


def told(found: bool | None) -> str:
    """The probe's finding in a log's or report's words."""
    return {True: "on", False: "off", None: "unknown"}[found]
