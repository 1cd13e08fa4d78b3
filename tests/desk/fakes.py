"""Fakes for the desk's contract: a desk that answers from a script, and each
platform's far side recording what it was asked to show (a PTB Bot's sends, the Graph
API's messages)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from service.desk.asks import Ask, Mark, Reply, Request
from service.desk.desk import Handled
from service.platforms.whatsapp.graph import Address


@dataclass
class FakeDesk:
    """Records the requests it is handed and answers each with `answer(ask)`; a mark
    seen before is a duplicate, answered again with its first reply (as the desk does
    from its dedupe mark)."""

    answer: Callable[[Ask], Reply]
    requests: list[Request] = field(default_factory=list)
    answered: dict[Mark, Reply] = field(default_factory=dict)

    async def handle(self, request: Request) -> Handled:
        self.requests.append(request)
        if request.mark in self.answered:
            return Handled("duplicate", self.answered[request.mark])
        reply = self.answered[request.mark] = self.answer(request.ask)
        return Handled("ok", reply)

    async def handle_own(self, mark: Mark, work: Callable[[], Awaitable[None]]) -> Handled:
        await work()
        return Handled("ok")


@dataclass
class FakeBot:
    """The Bot API methods a reply is drawn with, recorded (method, parameters)."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def send_message(self, chat_id: int, text: str, **params: Any) -> None:
        self.calls.append(("sendMessage", {"chat_id": chat_id, "text": text, **params}))

    async def edit_message_text(self, text: str, chat_id: int, message_id: int) -> None:
        self.calls.append(("editMessageText", {"chat_id": chat_id, "text": text}))

    async def delete_message(self, chat_id: int, message_id: int) -> None:
        self.calls.append(("deleteMessage", {"chat_id": chat_id, "message_id": message_id}))

    async def send_document(self, chat_id: int, document: Any, **params: Any) -> None:
        self.calls.append(("sendDocument", {"chat_id": chat_id, **params}))

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        raise AssertionError("a family's table asks no Telegram admin")


@dataclass
class FakeGraph:
    """The Graph API's messages, recorded (to whom, what)."""

    sent: list[tuple[Address, dict[str, Any]]] = field(default_factory=list)

    def send(self, address: Address, content: dict[str, Any]) -> str:
        self.sent.append((address, content))
        return f"wamid.out{len(self.sent)}"
