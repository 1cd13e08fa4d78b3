"""A small synchronous Bot API client for the workers: one HTTPS call per method, with
Telegram's errors as exceptions the outbox can act on."""

from __future__ import annotations

import json
from typing import Any

from service.infra import metrics, tls
from service.infra.json_client import JsonClient, NetworkError

__all__ = ["ApiError", "BotApi", "NetworkError", "chat_not_found"]


class ApiError(Exception):
    """Telegram answered ok=false."""

    def __init__(
        self,
        code: int,
        description: str,
        retry_after: int | None = None,
        migrate_to: int | None = None,
    ) -> None:
        super().__init__(f"{code}: {description}")
        self.code = code
        self.description = description
        self.retry_after = retry_after
        self.migrate_to = migrate_to  # the group became this supergroup

    @property
    def topic_gone(self) -> bool:
        """The forum topic was closed or deleted."""
        return self.code == 400 and (
            "TOPIC_CLOSED" in self.description or "message thread not found" in self.description
        )

    @property
    def not_modified(self) -> bool:
        return self.code == 400 and "not modified" in self.description

    @property
    def message_gone(self) -> bool:
        return self.code == 400 and (
            "message to edit not found" in self.description
            or "message can't be edited" in self.description
        )

    @property
    def chat_gone(self) -> bool:
        """The chat does not exist (never did, or was deleted): nothing to send there."""
        return self.code == 400 and chat_not_found(self.description)

    @property
    def blocked(self) -> bool:
        return self.code == 403


class BotApi:
    def __init__(self, token: str, base_url: str, timeout: float = 10.0) -> None:
        self.path = f"/bot{token}/"
        self.http = JsonClient(base_url, timeout, tls.context())
        self.calls = 0  # calls made by this client (benchmarks count them)

    def call(self, method: str, **params: Any) -> Any:
        """Call `method`; counted in `burro_bot_api_calls` by its outcome."""
        try:
            result = self._call(method, **params)
        except ApiError as error:
            metrics.bot_api_call(method, error.code)
            raise
        except NetworkError:
            metrics.bot_api_call(method, network=True)
            raise
        metrics.bot_api_call(method)
        return result

    def _call(self, method: str, **params: Any) -> Any:
        self.calls += 1
        sent = json.dumps(params, ensure_ascii=False, separators=(",", ":")).encode()
        status, data = self.http.post(self.path + method, sent)
        try:
            body = json.loads(data)
        except ValueError:
            raise ApiError(status, data[:200].decode(errors="replace")) from None
        if not isinstance(body, dict):
            raise ApiError(status, f"not a Bot API answer: {data[:200].decode(errors='replace')}")
        if not body.get("ok"):
            parameters = body.get("parameters")
            parameters = parameters if isinstance(parameters, dict) else {}
            raise ApiError(
                body.get("error_code", status),
                body.get("description", ""),
                parameters.get("retry_after"),
                _integer(parameters.get("migrate_to_chat_id")),
            )
        return body["result"]

    def close(self) -> None:
        self.http.close()


def chat_not_found(description: str) -> bool:
    """Telegram's words for a chat that does not exist (never did, or was deleted), as
    a Bot API error or PTB's BadRequest says them: "Bad Request: chat not found"."""
    return "chat not found" in description.lower()


def _integer(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
