"""Bot API errors, in the shapes Telegram answers with."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A refused Bot API call: becomes `{"ok": false, "error_code": ..., "description": ...}`."""

    def __init__(
        self,
        error_code: int,
        description: str,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
    ) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.retry_after = retry_after
        self.migrate_to_chat_id = migrate_to_chat_id

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        parameters: dict[str, int] = {}
        if self.retry_after is not None:
            parameters["retry_after"] = self.retry_after
        if self.migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = self.migrate_to_chat_id
        if parameters:
            body["parameters"] = parameters
        return body


def bad_request(detail: str) -> ApiError:
    return ApiError(400, f"Bad Request: {detail}")


def forbidden(detail: str) -> ApiError:
    return ApiError(403, f"Forbidden: {detail}")


def unauthorized() -> ApiError:
    return ApiError(401, "Unauthorized")


def not_found() -> ApiError:
    return ApiError(404, "Not Found")


def not_implemented(method: str) -> ApiError:
    """A Bot API method Telegram has and the emulator does not (never Telegram's answer)."""
    return ApiError(501, f"Not Implemented: the emulator has no {method}")


def conflict(detail: str) -> ApiError:
    return ApiError(409, f"Conflict: {detail}")


def too_many_requests(retry_after: int) -> ApiError:
    return ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)


def internal_error() -> ApiError:
    return ApiError(500, "Internal Server Error")


QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
