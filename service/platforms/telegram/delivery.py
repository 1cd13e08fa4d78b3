"""Telegram as a `service.platforms.base.Platform`: the Bot API calls of the outbox.

Telegram's ways, kept here: a group is a chat with a negative id, and a room in a
forum topic posts there (`message_thread_id`); an edit that changes nothing is fine; a
message too old to edit is sent anew; a replaced message is deleted, or loses its
buttons when too old to delete; the flood budget is shared in Redis (`limits`); a 429
says how long to wait, a 403 that the person blocked the bot (or never started it), a
migrated group where it lives now. "🃏 My cards" shows the hand to its player alone in
the group (an ephemeral message, where the Bot API takes them: `botfather.ephemeral`),
else lists it through inline mode where BotFather set it (`botfather.inline_mode`).

A hand with a picture is a widget message in a private chat (where the Bot API takes
widgets, `botfather.widgets`; in groups too with BURRO_TELEGRAM_WIDGETS_IN_GROUPS), else
its text: changes edit the widget's data, and its caption and buttons when they changed;
a text that should now be a widget, or the reverse, comes as a new message (quietly)
and the old one goes (`widgets`). A widget Telegram refuses for a chat goes as text.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import redis

from service.i18n import Translator, _
from service.platforms.base import Capabilities, Chat, DeliveryFailed, Failure, Rendered
from service.platforms.telegram import blocked, callbacks, ephemeral, limits, notices, widgets
from service.platforms.telegram.botapi import ApiError, BotApi
from service.platforms.telegram.botfather import ephemeral as ephemeral_on
from service.platforms.telegram.botfather import inline_mode
from service.platforms.telegram.botfather import widgets as widgets_on
from service.platforms.telegram.render import WIDGET, Wire, drawn_params, text_form
from service.platforms.telegram.view_buttons import MiniApp, mini_app
from service.platforms.telegram.widgets import Shown, WidgetForm
from service.services import Services
from service.settings import Settings
from service.table.room import Room
from service.ui.screens import MAX_ROW_BUTTONS, Screen

log = logging.getLogger("burro.outbox")


def classify(error: ApiError) -> Failure:
    """How to take a refused Bot API call."""
    detail = str(error)
    if error.retry_after:
        return Failure("retry", detail, wait=float(error.retry_after))
    if error.blocked:
        return Failure("blocked", detail)
    if error.migrate_to is not None and error.migrate_to < 0:
        return Failure("gone", detail, moved_to=error.migrate_to)
    if error.topic_gone:
        return Failure("gone", detail, topic=True, closed="TOPIC_CLOSED" in error.description)
    if error.message_gone or error.chat_gone:
        return Failure("gone", detail)
    return Failure("fatal", detail)


NAME = "telegram"


@dataclass(frozen=True)
class Drawing:
    """Where hands may be widgets, as the settings say (BURRO_TELEGRAM_WIDGETS, …_IN_GROUPS;
    the Bot API's own word aside): in private chats, and in groups too (the test
    server's)."""

    on: bool = True
    in_groups: bool = False


class TelegramDelivery:
    name = NAME

    def __init__(
        self,
        api: Any,
        client: redis.Redis,
        bot_username: str,
        mini_app: MiniApp | None = None,
        drawing: Drawing = Drawing(),
        budget: redis.Redis | None = None,
    ) -> None:
        self.api, self.redis, self.bot_username = api, client, bot_username
        # the send budget and the notices waiting for it: with RQ's queue (its own Redis
        # when the state is on a cluster), where every sender shares them
        self.sending = budget if budget is not None else client
        self.mini_app = mini_app  # the view's "🖼 Table" buttons (view_buttons)
        self.drawing = drawing  # where hands may be widgets
        # What a chat's widget messages show, read ahead of the next `update` there (by
        # chat id; taken once: `read_ahead`)
        self.ahead: dict[int, dict[int, Shown]] = {}
        # What an edit's success leaves to remember, for the outbox to write with its own
        # marks (`write_behind`); None: remembered at once (no outbox read ahead).
        self.behind: list[tuple[int, int, Shown]] | None = None

    def capabilities(self) -> Capabilities:
        return Capabilities(
            edit=True,
            delete=True,
            max_buttons=100,
            max_row_buttons=MAX_ROW_BUTTONS,
            max_label=64,
            inline=inline_mode(self.redis),
            threads=True,
            personal=ephemeral_on(self.redis),
            pictures=self.draws(),
            group_pictures=self.drawing.in_groups and self.draws(),
        )

    def draws(self) -> bool:
        """Whether hands may be widgets: chosen so, and the Bot API takes them."""
        return self.drawing.on and widgets_on(self.redis)

    def wire(self) -> Wire:
        inline, personal = inline_mode(self.redis), ephemeral_on(self.redis)
        return Wire(inline, personal, self.bot_username, self.mini_app, self.draws())

    def render(self, screen: Screen, lang: str) -> Rendered:
        return drawn_params(screen, self.wire())

    def open_until(self, chat: Chat) -> float | None:
        return None  # a chat that started the bot takes messages for good

    def budget(self, chat: Chat) -> float:
        return limits.reserve(self.sending, chat.id, group=is_group(chat))

    def call(self, method: str, **params: Any) -> Any:
        try:
            return self.api.call(method, **params)
        except ApiError as error:
            raise DeliveryFailed(classify(error)) from error

    def deliver(self, chat: Chat, message: Rendered, notify: bool = True) -> int:
        form = self.widget_form(chat, message)
        sent = None if form is None else self.send_widget(chat, message, form, notify)
        if sent is not None:
            return sent
        quiet = {} if notify else {"disable_notification": True}
        text = text_form(message)
        result = self.call("sendMessage", chat_id=chat.id, **topic(chat), **text, **quiet)
        return int(result["message_id"])

    def widget_form(self, chat: Chat, message: Rendered) -> WidgetForm | None:
        """The message's widget form, if it has one and the chat takes widgets."""
        form: WidgetForm | None = message.get(WIDGET)
        return None if is_group(chat) and not self.drawing.in_groups else form

    def send_widget(
        self, chat: Chat, message: Rendered, form: WidgetForm, notify: bool
    ) -> int | None:
        """The message as a widget; None when Telegram refuses it for this chat (a bad
        request: the text goes instead, never a broken message). DeliveryFailed."""
        markup = message.get("reply_markup")
        where = {"chat_id": chat.id, **topic(chat)}
        try:
            message_id = widgets.send(self.api, where, form, markup, notify)
        except ApiError as error:
            failure = classify(error)
            if failure.kind != "fatal":
                raise DeliveryFailed(failure) from error
            log.warning("chat %s: a widget refused, sent as text: %s", chat.id, error)
            return None
        widgets.remember(self.redis, chat.id, message_id, Shown.of(form, markup))
        return message_id

    def read_ahead(self, pipe: Any, chat: Chat) -> Callable[[Any], None]:
        """Read, in `pipe` (the outbox's read of what a target needs, in one trip), what
        the chat's widget messages show, for the next `update` there to take instead of a
        trip of its own; the callable keeps the pipe's answer. Read where widgets are
        off too: a text's edit tells it from a widget of ours sent before (`update`)."""
        widgets.read_all(pipe, chat.id)
        self.behind = []  # the outbox that reads ahead writes behind (`write_behind`)

        def keep(found: Any) -> None:
            self.ahead[chat.id] = widgets.all_shown(found)

        return keep

    def write_behind(self, pipe: Any) -> None:
        """Write, in `pipe` (the outbox's write of a target's marks, after its send),
        what the widget edits that succeeded leave to remember (`update_widget`)."""
        for chat_id, message_id, shown in self.behind or []:
            widgets.remember_in(pipe, chat_id, message_id, shown)
        self.behind = None

    def shown_in(self, chat: Chat, message_id: int) -> Shown | None:
        """What our widget message shows (None: no widget of ours): as read ahead, once,
        else read now."""
        ahead = self.ahead.pop(chat.id, None)
        if ahead is not None:
            return ahead.get(message_id)
        return widgets.shown_in(self.redis, chat.id, message_id)

    def update(self, chat: Chat, message_id: int, message: Rendered) -> int:
        form = self.widget_form(chat, message)
        shown = self.shown_in(chat, message_id)  # None: no widget of ours
        if form is not None and shown is not None:
            return self.update_widget(chat, message_id, message, form, shown)
        if form is None and shown is None:
            return self.update_text(chat, message_id, message)
        # A text cannot become a widget, nor the reverse: a new message, the old one gone.
        new = self.deliver(chat, message, notify=False)
        self.retire(chat, message_id)
        return new

    def update_text(self, chat: Chat, message_id: int, message: Rendered) -> int:
        text = text_form(message)
        try:
            self.api.call("editMessageText", chat_id=chat.id, message_id=message_id, **text)
            return message_id
        except ApiError as error:
            if error.not_modified:
                return message_id
            if not error.message_gone:
                raise DeliveryFailed(classify(error)) from error
        return self.deliver(chat, message)

    def update_widget(
        self, chat: Chat, message_id: int, message: Rendered, form: WidgetForm, was: Shown
    ) -> int:
        """The widget draws the new picture, and its caption and buttons change, each
        only when it differs from what the message shows (`was`). Two edits take two
        send slots: without a second one now, the caption's edit waits (a "retry"
        failure; the picture, shown already, is not edited again). What it shows then is
        remembered once, after its edits, however they ended: with the outbox's own
        marks after a success where it reads ahead (`write_behind`), else at once."""
        markup = message.get("reply_markup")
        now = Shown.of(form, markup)
        shows, gone, edited = was, False, False
        try:
            if now.data != was.data:
                unchanged_ok(lambda: widgets.edit_data(self.api, chat.id, message_id, form))
                shows = Shown(was.face, now.data)
            if now.face != was.face:
                if now.data != was.data:
                    self.second_slot(chat)
                edit = partial(widgets.edit_caption, self.api, chat.id, message_id, form, markup)
                unchanged_ok(edit)
                shows = now
            edited = True
            return message_id
        except ApiError as error:
            gone = error.message_gone
            if not gone:
                raise DeliveryFailed(classify(error)) from error
        finally:
            if shows != was and not gone and edited and self.behind is not None:
                self.behind.append((chat.id, message_id, shows))
            elif shows != was and not gone:
                widgets.remember(self.redis, chat.id, message_id, shows)
        widgets.forget(self.redis, chat.id, message_id)
        return self.deliver(chat, message)

    def second_slot(self, chat: Chat) -> None:
        """A second send slot for the chat now, else a "retry" failure."""
        wait = limits.reserve(self.sending, chat.id, group=is_group(chat))
        if wait > 0:
            why = "a widget's caption waits for the send budget"
            raise DeliveryFailed(Failure("retry", why, wait=wait))

    def retire(self, chat: Chat, message_id: int) -> None:
        widgets.forget(self.redis, chat.id, message_id)
        try:
            self.api.call("deleteMessage", chat_id=chat.id, message_id=message_id)
            return
        except ApiError as error:
            if error.message_gone:
                return
        try:
            self.api.call("editMessageReplyMarkup", chat_id=chat.id, message_id=message_id)
        except ApiError as error:
            log.info("chat %s: old message %s stays as it is: %s", chat.id, message_id, error)

    def show_to(self, chat: Chat, user: int, message: Rendered, answering: str) -> int:
        answer = ephemeral.Answering.parse(answering)
        if answer is None:
            raise DeliveryFailed(Failure("fatal", f"nothing to answer: {answering!r}"))
        try:
            replace = answer.kind == ephemeral.PRESS  # the table, for them: their hand
            text = text_form(message)  # a widget cannot be ephemeral
            return ephemeral.send(self.api, chat, user, text, answer, replace)
        except ApiError as error:
            raise DeliveryFailed(classify(error)) from error

    def update_for(self, chat: Chat, user: int, message_id: int, message: Rendered) -> None:
        try:
            ephemeral.edit(self.api, chat, user, message_id, text_form(message))
        except ApiError as error:
            if not error.not_modified:
                raise DeliveryFailed(classify(error)) from error

    def withdraw(self, chat: Chat, user: int, message_id: int) -> None:
        try:
            ephemeral.delete(self.api, chat, user, message_id)
        except ApiError as error:
            log.info("chat %s: %s's own message %s stays: %s", chat.id, user, message_id, error)

    def post(self, chat: Chat, text: str) -> None:
        notices.queue(self.sending, {"chat_id": chat.id, "text": text, **topic(chat)}, 0.0)

    def say(self, chat: Chat, text: str) -> None:
        self.call("sendMessage", chat_id=chat.id, **topic(chat), text=text)

    def tell_unreachable(
        self, room: Room, user_id: int, name: str, lang: str, keep: int
    ) -> int | None:
        """The word "… open a private chat with @bot and press Start", with a button
        there; it goes once they do (telegram.blocked, on their /start)."""
        tr = Translator(lang)
        text = tr.gettext(
            _(
                "{name}, I cannot send you your cards: open a private chat with @{bot} and "
                "press Start, then tap “🃏 My cards” here."
            )
            if not ephemeral_on(self.redis)
            else _(
                "{name}, your cards are here: tap “🃏 My cards” on the table (only you see "
                "them). To have them in a private chat with @{bot}, press Start there."
            ),
            name=name,
            bot=self.bot_username,
        )
        link = callbacks.deep_link(self.bot_username, room.id)
        button = {"text": tr.gettext(_("💬 Open my cards")), "url": link}
        try:
            result = self.api.call(
                "sendMessage",
                chat_id=room.chat_id,
                text=text,
                reply_markup={"inline_keyboard": [[button]]},
                **topic(Chat(room.chat_id, room.thread_id)),
            )
            message_id = int(result["message_id"])
            blocked.remember(self.redis, room.id, user_id, room.chat_id, message_id, keep)
        except ApiError as error:
            log.warning("room %s: could not tell the group about %s: %s", room.id, user_id, error)
            return None
        return message_id


def unchanged_ok(edit: Callable[[], None]) -> None:
    """An edit; Telegram's "not modified" (it shows that already) is fine."""
    try:
        edit()
    except ApiError as error:
        if not error.not_modified:
            raise


def is_group(chat: Chat) -> bool:
    """Telegram's groups have negative ids."""
    return chat.id < 0


def topic(chat: Chat) -> dict[str, int]:
    """The parameter that sends a group message into the room's forum topic."""
    return {"message_thread_id": chat.thread} if chat.thread and is_group(chat) else {}


def for_runtime(runtime: Any) -> TelegramDelivery:
    """The platform for a worker's runtime (workers.runtime.Runtime): its Bot API client
    is the runtime's own if it brings one (tests), else the process's."""
    api = runtime.clients.get(NAME) or api_of(runtime.svc.settings)
    settings = runtime.svc.settings
    drawing = Drawing(settings.telegram_widgets, settings.telegram_widgets_in_groups)
    name = runtime.svc.bot_username
    return TelegramDelivery(api, runtime.redis, name, mini_app(settings), drawing, runtime.jobs)


@lru_cache(maxsize=4)
def bot_api(token: str, url: str) -> BotApi:
    """One Bot API client per process (its connections are kept)."""
    return BotApi(token, url)


def api_of(settings: Settings) -> BotApi:
    if settings.telegram_token is None:
        raise DeliveryFailed(Failure("fatal", "Telegram is not configured (BURRO_TELEGRAM_TOKEN)"))
    return bot_api(settings.telegram_token.get_secret_value(), settings.telegram_api_url)


def configure(settings: Settings) -> None:
    """A worker process's share of Telegram's send limits (off for fast local tests)."""
    limits.ENABLED = settings.rate_limits


def send_notice(runtime: Any, notice_id: str) -> None:
    """The `notice` job: a message kept for the send budget goes out (`notices`)."""
    notices.send(runtime.jobs, for_runtime(runtime).api, notice_id)


def join_link(svc: Services, room_id: str, lang: str) -> str:
    """The deep link that opens the bot's chat and seats the person at the table."""
    return callbacks.deep_link(svc.bot_username, room_id, join=True)
