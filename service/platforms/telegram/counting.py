"""python-telegram-bot's HTTP client, counting each Bot API call in the metrics (the
webhook's own calls: answers to presses, replies), as the workers' `BotApi` does."""

from __future__ import annotations

from typing import Any

from telegram.error import NetworkError
from telegram.request import HTTPXRequest

from service.infra import metrics


class CountingRequest(HTTPXRequest):
    async def do_request(
        self, url: str, method: str, *args: Any, **kwargs: Any
    ) -> tuple[int, bytes]:
        name = url.rsplit("/", 1)[-1]
        try:
            code, payload = await super().do_request(url, method, *args, **kwargs)
        except NetworkError:
            metrics.bot_api_call(name, network=True)
            raise
        metrics.bot_api_call(name, None if code == 200 else code)
        return code, payload
