"""Whether the deployed Bot API takes ephemeral messages (Bot API 10.2+) and widgets
(10.4): asked once by `burro serve` at start (`ephemeral`, `widgets`, through PTB) and by
`burro doctor` (`ask`, `ask_widgets`, through the workers' client), each with a call
that changes nothing: deleting an ephemeral message that cannot exist
(`ephemeral.PROBE_METHOD`), changing the data of a widget message that cannot exist
(`widgets.PROBE_METHOD`). A Bot API that knows the method refuses it as a bad request
(400); one that does not answers 404 "Not Found", as to any unknown method. Anything
else (no answer, a flood wait, a token refused) cannot tell.

Telegram's own servers are always the newest: an older answer comes from a self-hosted
telegram-bot-api server (BURRO_TELEGRAM_API_URL) not yet updated.
"""

from __future__ import annotations

from telegram import Bot
from telegram.error import (
    BadRequest,
    ChatMigrated,
    EndPointNotFound,
    Forbidden,
    TelegramError,
)

from service.infra import logs
from service.platforms.telegram import widgets as widget_calls
from service.platforms.telegram.botapi import ApiError, NetworkError
from service.platforms.telegram.ephemeral import PROBE_METHOD, Caller, probe_params

ADVICE = (
    "The Bot API server at BURRO_TELEGRAM_API_URL does not know ephemeral messages "
    "(Bot API 10.2+): update it (telegram-bot-api 10.4, or Telegram's own "
    "https://api.telegram.org), then restart burro serve (it probes when it starts)."
)
WIDGETS_ADVICE = (
    "The Bot API server at BURRO_TELEGRAM_API_URL does not know widgets (Bot API 10.4): "
    "hands are sent as text. Update it (telegram-bot-api 10.4, or Telegram's own "
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
    return await knows(bot, PROBE_METHOD, probe_params(bot.id), "ephemeral")


async def widgets(bot: Bot) -> bool | None:
    """Whether the Bot API behind an initialized `bot` knows widgets; None when it
    could not tell."""
    params = widget_calls.probe_params(bot.id)
    return await knows(bot, widget_calls.PROBE_METHOD, params, "widget")


async def knows(bot: Bot, method: str, params: dict[str, object], what: str) -> bool | None:
    """Whether the Bot API knows `method`, called with `params` that change nothing."""
    try:
        await bot.do_api_request(method, api_kwargs=params)
    except (BadRequest, Forbidden, ChatMigrated):  # read and refused: known
        return True
    except EndPointNotFound as error:  # PTB's word for a 404 (or 401) once initialized
        if "Unauthorized" in str(error.__cause__):  # the token revoked meanwhile
            log.warning(f"{what} probe: the token was refused")
            return None
        return False
    except TelegramError as error:  # TimedOut, NetworkError, RetryAfter, InvalidToken
        log.warning(f"{what} probe: no answer", error=logs.redact(str(error)))
        return None
    return True  # it changed something: it knows the method all the more


def ask(api: Caller, bot_id: int) -> bool | None:
    """The same question through the workers' client (`botapi.BotApi`), for `doctor`."""
    return asked(api, PROBE_METHOD, probe_params(bot_id))


def ask_widgets(api: Caller, bot_id: int) -> bool | None:
    """Whether the Bot API knows widgets, through the workers' client, for `doctor`."""
    return asked(api, widget_calls.PROBE_METHOD, widget_calls.probe_params(bot_id))


def asked(api: Caller, method: str, params: dict[str, object]) -> bool | None:
    try:
        api.call(method, **params)
    except ApiError as error:
        return verdict(error.code)
    except NetworkError:
        return None
    return True


def told(found: bool | None) -> str:
    """The probe's finding in a log's or report's words."""
    return {True: "on", False: "off", None: "unknown"}[found]
