"""Meta's errors, in the shapes the Graph API and the webhooks carry them, and the one
table of the codes the emulator answers with.

Synchronous (an HTTP answer to a Graph call):

    {"error": {"message": "(#131009) Parameter value is not valid", "type": "OAuthException",
               "code": 131009, "error_data": {"messaging_product": "whatsapp",
               "details": "..."}, "fbtrace_id": "..."}}

Asynchronous (a `failed` status in a messages webhook):

    {"code": 131047, "title": "Re-engagement message", "message": "Re-engagement message",
     "error_data": {"details": "..."}, "href": "..."}

Codes and titles: developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes
(Graph's own, 100/190/2500: developers.facebook.com/docs/graph-api/guides/error-handling).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

JSON = dict[str, Any]
ERROR_CODES_URL = "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/"


@dataclass(frozen=True)
class Code:
    code: int
    title: str
    http_status: int = 400
    # Whether the message starts "(#<code>) " as Meta writes it for these codes.
    numbered: bool = True


# The one table: every code the emulator answers with.
INVALID_PARAMETER = Code(100, "Invalid parameter")
ACCESS_TOKEN = Code(190, "Invalid OAuth access token - Cannot parse access token", 401, False)
UNKNOWN_PATH = Code(2500, "Unknown path components", 400, False)
GENERIC = Code(131000, "Something went wrong", 500)
REQUIRED_MISSING = Code(131008, "Required parameter is missing")
VALUE_INVALID = Code(131009, "Parameter value is not valid")
UNDELIVERABLE = Code(131026, "Message undeliverable")
RE_ENGAGEMENT = Code(131047, "Re-engagement message")
# Meta's Cloud API pages name no code of its own for a message whose time-to-live ran
# out (the On-Premises API had 410 "Message expired"); the emulator reports such a
# message with 131049, the code Meta gives a message it chose not to deliver.
TTL_EXPIRED = Code(131049, "Message not delivered within its time-to-live")
UNSUPPORTED_TYPE = Code(131051, "Unsupported message type")
MEDIA_UPLOAD = Code(131053, "Media upload error")
PAIR_RATE = Code(131056, "(Business Account, Consumer Account) pair rate limit hit")
THROUGHPUT = Code(130429, "Rate limit hit")
TEMPLATE_PARAMS = Code(132000, "Number of parameters does not match the expected number of params")
TEMPLATE_MISSING = Code(132001, "Template name does not exist in the translation")
TEMPLATE_TOO_LONG = Code(132005, "Translated text too long")
TEMPLATE_FORMAT = Code(132012, "Parameter format does not match format in the created template")
TEMPLATE_PAUSED = Code(132015, "Template is Paused")
TEMPLATE_DISABLED = Code(132016, "Template is Disabled")
TEMPLATE_PARAM_TEXT = Code(132018, "There was an issue with the parameters in your template.")

CODES: tuple[Code, ...] = (
    INVALID_PARAMETER,
    ACCESS_TOKEN,
    UNKNOWN_PATH,
    GENERIC,
    REQUIRED_MISSING,
    VALUE_INVALID,
    UNDELIVERABLE,
    RE_ENGAGEMENT,
    TTL_EXPIRED,
    UNSUPPORTED_TYPE,
    MEDIA_UPLOAD,
    PAIR_RATE,
    THROUGHPUT,
    TEMPLATE_PARAMS,
    TEMPLATE_MISSING,
    TEMPLATE_TOO_LONG,
    TEMPLATE_FORMAT,
    TEMPLATE_PAUSED,
    TEMPLATE_DISABLED,
    TEMPLATE_PARAM_TEXT,
)
BY_NUMBER: dict[int, Code] = {code.code: code for code in CODES}

# Graph subcodes: an unknown object; a template already in that language
# (developers.facebook.com/docs/whatsapp/business-management-api/message-templates).
SUBCODE_OBJECT_MISSING = 33
SUBCODE_TEMPLATE_EXISTS = 2388024


def fbtrace_id() -> str:
    return "A" + secrets.token_urlsafe(16)[:22]


class GraphError(Exception):
    """A refused Graph call: becomes Meta's `{"error": {...}}` with its HTTP status."""

    def __init__(
        self,
        code: Code,
        details: str | None = None,
        *,
        message: str | None = None,
        subcode: int | None = None,
        type_: str = "OAuthException",
        user_title: str | None = None,
        user_msg: str | None = None,
    ) -> None:
        text = message or code.title
        if code.numbered and message is None:
            text = f"(#{code.code}) {text}"
        super().__init__(text if details is None else f"{text}: {details}")
        self.code = code
        self.message = text
        self.details = details
        self.subcode = subcode
        self.type = type_
        self.user_title = user_title
        self.user_msg = user_msg

    @property
    def http_status(self) -> int:
        return self.code.http_status

    def to_json(self) -> JSON:
        error: JSON = {"message": self.message, "type": self.type, "code": self.code.code}
        if self.subcode is not None:
            error["error_subcode"] = self.subcode
        if self.user_title is not None:
            error["is_transient"] = False
            error["error_user_title"] = self.user_title
        if self.user_msg is not None:
            error["error_user_msg"] = self.user_msg
        if self.details is not None:
            error["error_data"] = {"messaging_product": "whatsapp", "details": self.details}
        error["fbtrace_id"] = fbtrace_id()
        return {"error": error}


def invalid(details: str) -> GraphError:
    """A malformed request: a wrong type, an unknown key, an unknown value (100)."""
    return GraphError(INVALID_PARAMETER, details)


def missing(details: str) -> GraphError:
    """A required field of the message is absent (131008)."""
    return GraphError(REQUIRED_MISSING, details)


def out_of_range(details: str) -> GraphError:
    """A value past Meta's limits: too long, too many, not unique (131009)."""
    return GraphError(VALUE_INVALID, details)


def unauthorized() -> GraphError:
    return GraphError(ACCESS_TOKEN)


def no_such_object(node: str, method: str = "post") -> GraphError:
    """Graph's answer for an id it does not know (code 100, subcode 33)."""
    return GraphError(
        INVALID_PARAMETER,
        message=(
            f"Unsupported {method} request. Object with ID '{node}' does not exist, cannot be "
            "loaded due to missing permissions, or does not support this operation. Please "
            "read the Graph API documentation at https://developers.facebook.com/docs/graph-api"
        ),
        subcode=SUBCODE_OBJECT_MISSING,
        type_="GraphMethodException",
    )


def no_such_field(field: str) -> GraphError:
    """An edge the node does not have (messages on a WABA, templates on a phone number)."""
    return GraphError(
        INVALID_PARAMETER, message=f"(#100) Tried accessing nonexisting field ({field})"
    )


def unknown_path(path: str) -> GraphError:
    return GraphError(UNKNOWN_PATH, message=f"Unknown path components: {path}")


def async_error(code: Code, details: str) -> JSON:
    """The `errors[]` entry of a failed status webhook."""
    return {
        "code": code.code,
        "title": code.title,
        "message": code.title,
        "error_data": {"details": details},
        "href": ERROR_CODES_URL,
    }
