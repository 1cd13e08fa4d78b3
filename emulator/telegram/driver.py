"""The test-facing client of the emulator: act as users, read what they were shown, and
wait for conditions. Talks to the control API over HTTP, so it drives an emulator in
this process (`running_emulator`) or in another one (`EmulatorDriver(url)`) alike.

Users are named by first name ("Ana"), username or id; chats by group title
("Family"), id, or a user's name for that user's private chat with the bot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx

from emulator.common import tls
from emulator.common.control_client import ControlClient
from emulator.whatsapp.driver import WhatsAppDriver

T = TypeVar("T")
Ref = int | str

DEFAULT_TIMEOUT = 5.0


class EmulatorError(Exception):
    """The emulator refused an action (the description says why)."""


@dataclass(frozen=True)
class Button:
    text: str
    kind: str  # callback_data, url, switch_inline_query_current_chat, ...
    value: Any
    row: int
    column: int


@dataclass(frozen=True)
class ChatMessage:
    chat_id: int
    scope: int
    message_id: int
    sender_id: int
    sender_name: str
    text: str  # the text, or a document's caption ("" when neither)
    buttons: tuple[tuple[Button, ...], ...]
    edited: bool
    deleted: bool
    via_bot: str | None
    document: dict[str, Any] | None
    inline_message_id: str | None
    raw: dict[str, Any] = field(repr=False, compare=False)
    notified: tuple[int, ...] = ()  # the users the message notified when it was sent
    # an ephemeral message: its own id (message_id is 0) and the one user who sees it
    ephemeral_message_id: int | None = None
    receiver_id: int | None = None
    # the text as the viewing user's app shows it (date_time entities in their zone);
    # only in a chat read as a user (messages_in(..., user=))
    text_view: str | None = None

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> ChatMessage:
        extra = view.get("_emulator", {})
        rows = (view.get("reply_markup") or {}).get("inline_keyboard", [])
        buttons = tuple(
            tuple(
                Button(b["text"], kind, b[kind], r, c)
                for c, b in enumerate(row)
                for kind in [next(k for k in b if k != "text")]
            )
            for r, row in enumerate(rows)
        )
        return cls(
            chat_id=view["chat"]["id"],
            scope=extra.get("scope", 0),
            message_id=view["message_id"],
            sender_id=view["from"]["id"],
            sender_name=extra.get("sender_name", view["from"].get("first_name", "")),
            text=view.get("text") or view.get("caption") or "",
            buttons=buttons,
            edited="edit_date" in view,
            deleted=bool(extra.get("deleted")),
            via_bot=(view.get("via_bot") or {}).get("username"),
            document=view.get("document"),
            inline_message_id=extra.get("inline_message_id"),
            raw=view,
            notified=tuple(extra.get("notified", ())),
            ephemeral_message_id=view.get("ephemeral_message_id"),
            receiver_id=extra.get("receiver_id"),
            text_view=extra.get("text_view"),
        )

    @property
    def button_texts(self) -> list[str]:
        return [b.text for row in self.buttons for b in row]

    def button(self, label: str) -> Button:
        for row in self.buttons:
            for b in row:
                if label in (b.text, b.value):
                    return b
        raise KeyError(f"no button {label!r} in {self.button_texts}")

    @property
    def edits(self) -> list[dict[str, Any]]:
        """Earlier versions of this message, oldest first."""
        history: list[dict[str, Any]] = self.raw.get("_emulator", {}).get("history", [])
        return history


@dataclass(frozen=True)
class CallbackAnswer:
    text: str | None
    show_alert: bool
    url: str | None


@dataclass(frozen=True)
class InlineResult:
    id: str
    type: str
    title: str
    description: str
    message_text: str
    raw: dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class InlineAnswer:
    query_id: str
    query: str
    results: tuple[InlineResult, ...]
    is_personal: bool
    cache_time: int
    next_offset: str
    button: dict[str, Any] | None

    def result(self, id_or_title: str) -> InlineResult:
        for result in self.results:
            if id_or_title in (result.id, result.title):
                return result
        raise KeyError(f"no result {id_or_title!r} in {[r.title for r in self.results]}")


@dataclass(frozen=True)
class TapResult:
    """What a tap did: `kind` is callback, inline_query, url, choose_chat, copy_text..."""

    kind: str
    query_id: str | None
    answer: CallbackAnswer | None  # the bot's answerCallbackQuery, when waited for
    inline_answer: InlineAnswer | None
    raw: dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class WidgetAnswer:
    """How the bot answered a widget's request (answerWidgetQuery's data)."""

    query_id: str
    data: str


def _inline_answer(state: dict[str, Any]) -> InlineAnswer:
    answer = state["answer"]
    results = tuple(
        InlineResult(
            id=r["id"],
            type=r.get("type", ""),
            title=r.get("title", ""),
            description=r.get("description", ""),
            message_text=(r.get("input_message_content") or {}).get("message_text", ""),
            raw=r,
        )
        for r in answer["results"]
    )
    return InlineAnswer(
        query_id=state["query_id"],
        query=state["query"],
        results=results,
        is_personal=answer["is_personal"],
        cache_time=answer["cache_time"],
        next_offset=answer["next_offset"],
        button=answer["button"],
    )


class EmulatorDriver(ControlClient):
    error = EmulatorError

    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self._http = httpx.Client(
            base_url=f"{self.url}/_emulator", timeout=30.0, trust_env=False, verify=tls.context()
        )
        self._whatsapp: WhatsAppDriver | None = None

    @property
    def whatsapp(self) -> WhatsAppDriver:
        """The same emulator's local WhatsApp (emulator/whatsapp/driver.py)."""
        if self._whatsapp is None:
            self._whatsapp = WhatsAppDriver(self.url, timeout=self.timeout)
        return self._whatsapp

    def close(self) -> None:
        self._http.close()
        if self._whatsapp is not None:
            self._whatsapp.close()

    def __enter__(self) -> EmulatorDriver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----- plumbing ----------------------------------------------------------

    # ----- acting as users ---------------------------------------------------

    def send_message(
        self,
        user: Ref,
        chat: Ref,
        text: str,
        *,
        bot: Ref | None = None,
        reply_to: int | None = None,
        thread_id: int | None = None,
        send_as: str | None = None,
    ) -> ChatMessage:
        """`thread_id`: a forum topic; `send_as`: "anonymous" (an admin as the group) or
        "channel" (as the user's channel)."""
        view = self._post(
            "/send_message",
            user=user,
            chat=chat,
            text=text,
            bot=bot,
            reply_to=reply_to,
            thread_id=thread_id,
            send_as=send_as,
        )
        return ChatMessage.from_view(view)

    def start(
        self, user: Ref, payload: str | None = None, *, bot: Ref | None = None
    ) -> ChatMessage:
        """Press START in the user's private chat with the bot (with a deep-link payload)."""
        text = f"/start {payload}" if payload else "/start"
        return self.send_message(user, user, text, bot=bot)

    def tap(
        self,
        user: Ref,
        message: ChatMessage,
        button: str | int | tuple[int, int],
        *,
        wait: bool = True,
        timeout: float | None = None,
        target_chat: Ref | None = None,
    ) -> TapResult:
        """Tap a button (by text, callback_data, index, or (row, column)). With `wait`,
        wait for the bot's answer to a callback button or to the inline query that a
        switch-inline button opens."""
        raw = self._post(
            "/tap",
            user=user,
            chat_id=message.chat_id,
            scope=message.scope,
            message_id=message.message_id,
            ephemeral_message_id=message.ephemeral_message_id,
            button=list(button) if isinstance(button, tuple) else button,
            target_chat=target_chat,
        )
        kind = raw["kind"]
        query_id = raw.get("query_id")
        answer: CallbackAnswer | None = None
        inline: InlineAnswer | None = None
        if wait and kind == "callback":
            answer = self.callback_answer(query_id, timeout=timeout)
        elif wait and kind == "inline_query":
            inline = self.inline_answer(query_id, timeout=timeout)
        return TapResult(kind, query_id, answer, inline, raw)

    def widget_query(
        self, user: Ref, message: ChatMessage, data: str, *, timeout: float | None = None
    ) -> WidgetAnswer:
        """The user's widget in `message` sends the bot a request (`widget_query`), and
        waits for the bot's answer, like a tap on a callback button."""
        return self.widget_answer(self.widget_request(user, message, data), timeout=timeout)

    def widget_request(self, user: Ref, message: ChatMessage, data: str) -> str:
        """The same request, not waiting: its query id."""
        raw = self._post(
            "/widget_query",
            user=user,
            chat_id=message.chat_id,
            scope=message.scope,
            message_id=message.message_id,
            data=data,
        )
        return str(raw["query_id"])

    def widget_answer(self, query_id: str, *, timeout: float | None = None) -> WidgetAnswer:
        """Wait for the bot to answer a widget's request."""
        state = self.wait_for(
            lambda: (s := self._get(f"/widget_queries/{query_id}"))["answered"] and s,
            timeout=timeout,
            what=f"an answer to widget query {query_id}",
        )
        return WidgetAnswer(query_id, state["answer"])

    @staticmethod
    def widget(message: ChatMessage) -> dict[str, Any] | None:
        """The message's widget (html, width, height, public_data, chat_data), if any."""
        found: dict[str, Any] | None = message.raw.get("widget")
        return found

    def answer_so_far(self, query_id: str) -> CallbackAnswer | None:
        """How the bot answered a callback query, if it has (no waiting)."""
        answer = self._get(f"/callback_queries/{query_id}")["answer"]
        if not answer:
            return None
        return CallbackAnswer(answer["text"], answer["show_alert"], answer["url"])

    def callback_answer(self, query_id: str, *, timeout: float | None = None) -> CallbackAnswer:
        """Wait for the bot to answer a callback query."""
        return self.wait_for(
            lambda: self.answer_so_far(query_id),
            timeout=timeout,
            what=f"an answer to callback query {query_id}",
        )

    def inline_query(
        self,
        user: Ref,
        chat: Ref | None,
        query: str,
        *,
        bot: Ref | None = None,
        offset: str = "",
        timeout: float | None = None,
    ) -> InlineAnswer:
        """Type `@bot <query>` in a chat and wait for the bot's results."""
        raw = self._post("/inline_query", user=user, chat=chat, query=query, bot=bot, offset=offset)
        return self.inline_answer(raw["query_id"], timeout=timeout)

    def inline_answer(self, query_id: str, *, timeout: float | None = None) -> InlineAnswer:
        state = self.wait_for(
            lambda: (s := self._get(f"/inline_queries/{query_id}"))["answer"] and s,
            timeout=timeout,
            what=f"an answer to inline query {query_id}",
        )
        return _inline_answer(state)

    def choose_inline_result(
        self, user: Ref, answer: InlineAnswer | str, result: str
    ) -> ChatMessage:
        """Pick a result (by id or title) from the inline results; it is sent to the chat."""
        if isinstance(answer, InlineAnswer):
            query_id = answer.query_id
            result = answer.result(result).id
        else:
            query_id = answer
        view = self._post("/choose_inline_result", user=user, query_id=query_id, result_id=result)
        return ChatMessage.from_view(view)

    def open_link(self, user: Ref, url: str) -> dict[str, Any]:
        """Follow a link, e.g. a `t.me/<bot>?start=<payload>` deep link."""
        result: dict[str, Any] = self._post("/open_link", user=user, url=url)
        return result

    def open_mini_app(
        self,
        user: Ref,
        *,
        chat: Ref | None = None,
        start_param: str | None = None,
        app_url: str | None = None,
        bot: Ref | None = None,
    ) -> dict[str, Any]:
        """The user opens the bot's Mini App, by a direct link in `chat` or else from a
        button in their private chat: `init_data` (signed for the bot's token as
        Telegram signs it), its `fields`, and with `app_url` the `url` Telegram opens
        (emulator/telegram/webapp.py)."""
        result: dict[str, Any] = self._post(
            "/mini_app", user=user, chat=chat, start_param=start_param, app_url=app_url, bot=bot
        )
        return result

    def set_mini_app(self, url: str, *, name: str = "", bot: Ref | None = None) -> None:
        """BotFather's /newapp: the bot's Mini App `name` opens `url` (`name` "": its
        main Mini App), for direct links `t.me/<bot>/<name>?startapp=`."""
        self._post("/mini_apps", url=url, name=name, bot=bot)

    def block_bot(self, user: Ref, *, bot: Ref | None = None) -> None:
        self._post("/block", user=user, bot=bot)

    def unblock_bot(self, user: Ref, *, bot: Ref | None = None) -> None:
        self._post("/unblock", user=user, bot=bot)

    def add_bot_to_group(self, user: Ref, chat: Ref, *, bot: Ref | None = None) -> None:
        self._post("/add_bot", user=user, chat=chat, bot=bot)

    def remove_bot_from_group(
        self, user: Ref, chat: Ref, *, bot: Ref | None = None, kick: bool = False
    ) -> None:
        self._post("/remove_bot", user=user, chat=chat, bot=bot, kick=kick)

    # ----- groups that change ------------------------------------------------

    def migrate_group(self, user: Ref, chat: Ref) -> int:
        """Upgrade a basic group to a supergroup; the new chat id."""
        result: dict[str, Any] = self._post("/migrate", user=user, chat=chat)
        return int(result["id"])

    def set_forum(self, user: Ref, chat: Ref, enabled: bool = True) -> None:
        self._post("/set_forum", user=user, chat=chat, enabled=enabled)

    def create_topic(self, user: Ref, chat: Ref, name: str) -> int:
        """Open a forum topic; its message_thread_id."""
        result: dict[str, Any] = self._post("/create_topic", user=user, chat=chat, name=name)
        return int(result["message_thread_id"])

    def close_topic(self, user: Ref, chat: Ref, thread_id: int) -> None:
        self._post("/close_topic", user=user, chat=chat, thread_id=thread_id)

    def reopen_topic(self, user: Ref, chat: Ref, thread_id: int) -> None:
        self._post("/reopen_topic", user=user, chat=chat, thread_id=thread_id)

    def delete_topic(self, user: Ref, chat: Ref, thread_id: int) -> None:
        self._post("/delete_topic", user=user, chat=chat, thread_id=thread_id)

    def delete_message(
        self, user: Ref, chat: Ref, message_id: int, *, bot: Ref | None = None
    ) -> None:
        self._post("/delete_message", user=user, chat=chat, message_id=message_id, bot=bot)

    # ----- reading -----------------------------------------------------------

    def state(self) -> dict[str, Any]:
        result: dict[str, Any] = self._get("/state")
        return result

    def chats_of(self, user: Ref) -> list[dict[str, Any]]:
        """The chats a user sees: {"chat_id", "scope", "title", "type", ...}."""
        state = self.state()
        wanted = str(user)
        for found in state["users"]:
            if wanted in (str(found["id"]), found["first_name"], found.get("username")):
                chats: list[dict[str, Any]] = state["conversations"][str(found["id"])]
                return chats
        raise EmulatorError(f"no user {user!r}")

    def messages_in(
        self,
        chat: Ref,
        *,
        bot: Ref | None = None,
        include_deleted: bool = False,
        user: Ref | None = None,
    ) -> list[ChatMessage]:
        """What the chat shows now (edits applied), oldest first: to everyone, or as
        `user`'s app shows it (their ephemeral messages too, one shown in place of the
        message it replaces; `text_view` in their time zone)."""
        views = self._get(
            "/messages",
            chat=chat,
            bot=bot,
            include_deleted="1" if include_deleted else None,
            user=user,
        )
        return [ChatMessage.from_view(v) for v in views]

    def ephemeral_messages(self, user: Ref, chat: Ref) -> list[ChatMessage]:
        """The ephemeral messages the user's app shows in a group, oldest first."""
        shown = self.messages_in(chat, user=user)
        return [m for m in shown if m.ephemeral_message_id is not None]

    def wait_for_ephemeral(
        self,
        user: Ref,
        chat: Ref,
        match: str | Callable[[ChatMessage], bool],
        *,
        timeout: float | None = None,
    ) -> ChatMessage:
        """Wait until the user sees an ephemeral message in the group matching `match`."""

        def check() -> ChatMessage | None:
            for found in reversed(self.ephemeral_messages(user, chat)):
                if match(found) if callable(match) else match in found.text:
                    return found
            return None

        what = f"an ephemeral message {match!r} to {user!r} in {chat!r}"
        return self.wait_for(check, timeout=timeout, what=what)

    def set_online(self, user: Ref, online: bool = True) -> None:
        """Mark the user's app online or offline (offline: ephemeral messages sent to
        them meanwhile never arrive)."""
        self._post("/set_online", user=user, online=online)

    def restart_app(self, user: Ref) -> int:
        """Restart the user's app: the ephemeral messages it showed are gone (how many)."""
        gone: int = self._post("/restart_app", user=user)
        return gone

    def set_time_zone(self, user: Ref, zone: str) -> None:
        """The time zone (IANA name) the user's app shows date_time entities in."""
        self._post("/time_zone", user=user, zone=zone)

    def last_message(self, chat: Ref, *, bot: Ref | None = None) -> ChatMessage | None:
        found = self.messages_in(chat, bot=bot)
        return found[-1] if found else None

    def message(self, chat: Ref, message_id: int, *, bot: Ref | None = None) -> ChatMessage:
        for found in self.messages_in(chat, bot=bot, include_deleted=True):
            if found.message_id == message_id:
                return found
        raise KeyError(f"no message {message_id} in {chat!r}")

    def log(
        self, kind: str | None = None, *, since: int = 0, **filters: Any
    ) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._get("/log", kind=kind, since=since, **filters)
        return result

    def notifications(
        self, user: Ref | None = None, *, chat: Ref | None = None, since: int = 0
    ) -> list[dict[str, Any]]:
        """The notifications that new messages gave (a new message notifies everyone in its
        chat but its sender, unless sent with `disable_notification`; an edit nobody):
        entries {"seq", "user_id", "chat_id", "scope", "message_id", "text"}, oldest first,
        of one user and in one chat if given (a private chat by the user's name)."""
        result: list[dict[str, Any]] = self._get(
            "/notifications", user=user, chat=chat, since=since
        )
        return result

    def calls(
        self, method: str | None = None, *, bot: Ref | None = None, since: int = 0
    ) -> list[dict[str, Any]]:
        """Bot API calls, oldest first: {"method", "params", "ok", "result" or
        "error_code" and "description", "time", "seq", "bot_id"}."""
        return self.log("call", method=method, bot=bot, since=since)

    def updates(self, *, bot: Ref | None = None, since: int = 0) -> list[dict[str, Any]]:
        """Updates queued for the bots (Update JSON), oldest first."""
        return [e["update"] for e in self.log("update", bot=bot, since=since)]

    def deliveries(self, *, bot: Ref | None = None, since: int = 0) -> list[dict[str, Any]]:
        """Each delivery attempt: {"update_id", "attempt", "status", "error"}."""
        return self.log("delivery", bot=bot, since=since)

    def unknown_parameters(self) -> list[dict[str, Any]]:
        """What the bots sent that Telegram would silently ignore or misread, oldest
        first: {"bot_id", "method", "via", "parameter", "problem"}; "problem" is "unknown"
        for a parameter (or a field of a JSON object: "reply_markup.inline_keyboard.x")
        Telegram does not know, or says how Telegram misreads a value."""
        result: list[dict[str, Any]] = self._get("/unknown_parameters")
        return result

    def callback_answers(self, user: Ref | None = None) -> list[CallbackAnswer]:
        states = self._get("/callback_answers", user=user)
        return [
            CallbackAnswer(s["answer"]["text"], s["answer"]["show_alert"], s["answer"]["url"])
            for s in states
        ]

    def inline_answers(self, user: Ref | None = None) -> list[InlineAnswer]:
        return [_inline_answer(s) for s in self._get("/inline_answers", user=user)]

    def webhook_info(self, *, bot: Ref | None = None) -> dict[str, Any]:
        result: dict[str, Any] = self._get("/webhook", bot=bot)
        return result

    # ----- waiting -----------------------------------------------------------

    def wait_for_message(
        self,
        chat: Ref,
        match: str | Callable[[ChatMessage], bool],
        *,
        bot: Ref | None = None,
        timeout: float | None = None,
    ) -> ChatMessage:
        """Wait until the chat shows a message containing `match` (or matching it)."""

        def check() -> ChatMessage | None:
            for found in reversed(self.messages_in(chat, bot=bot)):
                if match(found) if callable(match) else match in found.text:
                    return found
            return None

        return self.wait_for(check, timeout=timeout, what=f"a message {match!r} in {chat!r}")

    def wait_for_call(
        self,
        method: str,
        match: Callable[[dict[str, Any]], bool] | None = None,
        *,
        since: int = 0,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        def check() -> dict[str, Any] | None:
            for call in self.calls(method, since=since):
                if match is None or match(call):
                    return call
            return None

        return self.wait_for(check, timeout=timeout, what=f"a {method} call")

    def last_seq(self) -> int:
        """The log's current position, to pass as `since` later."""
        entries = self.log(limit=1)
        return int(entries[-1]["seq"]) if entries else 0

    # ----- control -----------------------------------------------------------

    def set_flood_limits(self, enabled: bool) -> None:
        self._post("/settings", flood_limits=enabled)

    def bot_settings(
        self, *, bot: Ref | None = None, **changes: bool | int | str
    ) -> dict[str, Any]:
        """BotFather's settings of a bot, after changing those given: `privacy_mode`,
        `inline_mode`, `inline_placeholder`, `inline_feedback` (a percentage)."""
        wanted = {"bot": bot} if bot is not None else {}
        result: dict[str, Any] = self._post("/bot_settings", **wanted, **changes)
        return result

    def inject_error(
        self,
        method: str,
        error_code: int = 500,
        *,
        retry_after: int | None = None,
        description: str | None = None,
        times: int = 1,
    ) -> None:
        """Make the next `times` calls of `method` fail (e.g. 429 with retry_after)."""
        self._post(
            "/inject_error",
            method=method,
            error_code=error_code,
            retry_after=retry_after,
            description=description,
            times=times,
        )

    def inject_delay(self, method: str, seconds: float, *, times: int = 1) -> None:
        """Hold the next `times` calls of `method` for `seconds` (a slow Telegram)."""
        self._post("/inject_delay", method=method, seconds=seconds, times=times)

    def held(self, method: str) -> int:
        """How many calls of `method` are being held now (`inject_delay`): a call the
        product is waiting on, so whatever makes it is known to be mid-call."""
        result: int = self._get("/held", method=method)
        return result
