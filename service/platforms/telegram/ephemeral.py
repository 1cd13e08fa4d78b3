"""Ephemeral messages (Bot API 10.2, reshaped in 10.3 and 10.4), typed on our side:
python-telegram-bot 22.8 speaks Bot API 10.0, so these calls go by method name (the
workers' `BotApi.call`, serve's `Bot.do_api_request`) with parameters built here.

An ephemeral message is shown in a group to one member only. We send one only in answer
to that member's own press (`callback_query_id`) or ephemeral command (a reply to its
`ephemeral_message_id`, within 15 seconds): the references do not say that a bot may
send one unasked. It is changed with `editEphemeralMessageText` and removed with
`deleteEphemeralMessage`, each naming the chat, the receiver and its own id (its
`message_id` is 0). Delivery is not guaranteed: nothing may depend on it.

What a send answers travels as one short text, `Answering.text` (kept in Redis until
the outbox sends): `q<callback_query_id>` or `e<ephemeral_message_id>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, TypedDict

from service.platforms.base import Chat, Rendered

PRESS, COMMAND = "q", "e"


class EphemeralMessageParameters(TypedDict, total=False):
    """Bot API 10.3's `EphemeralMessageParameters` (10.4: all optional with a
    callback_query_id, the chat and receiver then taken from the press)."""

    receiver_user_id: int
    callback_query_id: str
    replace_callback_query_message: bool


class EphemeralReply(TypedDict):
    """`ReplyParameters` as a reply to a member's ephemeral message."""

    ephemeral_message_id: int


class Caller(Protocol):
    """A Bot API client that calls a method by name (`botapi.BotApi`)."""

    def call(self, method: str, **params: Any) -> Any: ...


@dataclass(frozen=True)
class Answering:
    """What an ephemeral send answers: a press (its callback query id) or a member's
    ephemeral command (its ephemeral message id)."""

    kind: str  # PRESS or COMMAND
    ref: str

    @property
    def text(self) -> str:
        return self.kind + self.ref

    @classmethod
    def parse(cls, text: str) -> Answering | None:
        kind, ref = text[:1], text[1:]
        if kind == PRESS and ref:
            return cls(kind, ref)
        if kind == COMMAND and ref.isdigit():
            return cls(kind, ref)
        return None

    @classmethod
    def press(cls, query_id: str) -> Answering:
        return cls(PRESS, query_id)

    @classmethod
    def command(cls, ephemeral_message_id: int) -> Answering:
        return cls(COMMAND, str(ephemeral_message_id))


def send_params(
    chat: Chat, user: int, answering: Answering, replace: bool = False
) -> dict[str, Any]:
    """sendMessage's parameters that make it an ephemeral answer to `answering`, for
    `user` in `chat` (`replace`: shown to them in place of the pressed message)."""
    topic = {"message_thread_id": chat.thread} if chat.thread else {}
    if answering.kind == PRESS:
        parameters: EphemeralMessageParameters = {"callback_query_id": answering.ref}
        if replace:
            parameters["replace_callback_query_message"] = True
        return {"chat_id": chat.id, **topic, "ephemeral_message_parameters": parameters}
    reply: EphemeralReply = {"ephemeral_message_id": int(answering.ref)}
    parameters = {"receiver_user_id": user}
    return {
        "chat_id": chat.id,
        **topic,
        "ephemeral_message_parameters": parameters,
        "reply_parameters": reply,
    }


def send(
    api: Caller, chat: Chat, user: int, message: Rendered, answering: Answering, replace: bool
) -> int:
    """Show `message` to `user` alone in `chat`; its ephemeral message id. ApiError."""
    result = api.call("sendMessage", **message, **send_params(chat, user, answering, replace))
    return int(result["ephemeral_message_id"])


def names(chat: Chat, user: int, ephemeral_id: int) -> dict[str, Any]:
    """The parameters that name an ephemeral message to change it."""
    return {"chat_id": chat.id, "receiver_user_id": user, "ephemeral_message_id": ephemeral_id}


def edit(api: Caller, chat: Chat, user: int, ephemeral_id: int, message: Rendered) -> None:
    """Show `message` in place of the ephemeral message. ApiError."""
    api.call("editEphemeralMessageText", **names(chat, user, ephemeral_id), **message)


def delete(api: Caller, chat: Chat, user: int, ephemeral_id: int) -> None:
    """Remove the ephemeral message. ApiError."""
    api.call("deleteEphemeralMessage", **names(chat, user, ephemeral_id))


# A harmless probe: deleting an ephemeral message that cannot exist. A Bot API that
# knows the method refuses it as a bad request; one that does not answers 404.
PROBE_METHOD = "deleteEphemeralMessage"


def probe_params(chat_id: int) -> dict[str, Any]:
    return {"chat_id": chat_id, "receiver_user_id": 1, "ephemeral_message_id": 1}
