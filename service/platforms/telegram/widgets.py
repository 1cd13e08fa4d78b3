"""Widgets (Bot API 10.4), typed on our side: a hand drawn inside a message.

python-telegram-bot 22.8 speaks Bot API 10.0, so these calls go by method name (the
workers' `BotApi.call`; serve answers a widget's request in its webhook's HTTP answer)
with parameters built here. The facts: ../shared/telegram-bot-api/bot-api-10.4/widgets.md.

A widget message is fixed HTML (`document`: service.cards.widget.WIDGET_HTML, the same
for every hand) and state only the bot writes: here `chat_data`, the hand's picture
packed (service.ui.picture.pack, at most 1024 bytes). The message has a caption (the
table's name and its status line: an edit notifies nobody, a new message's
notification shows the caption; an app that cannot draw widgets still has it) and the
text hand's buttons. A change edits the data (`edit_data`), and the caption and buttons
only when they changed (`edit_caption`): what a message shows (`Shown`: digests of its
data, and of its caption and buttons) is kept in Redis per chat (`remember`,
`shown_in`), which also tells a widget message of ours from a text one (a text cannot
become a widget, nor the reverse).

A widget sends the bot a request (`widget_query`, service.platforms.telegram.
widget_queries), answered within 15 seconds with `answer` (up to 1024 bytes).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, NamedTuple, NotRequired, TypedDict

import redis

from service.infra.keys import widgets_key
from service.platforms.telegram.ephemeral import Caller

MAX_ANSWER = 1024  # bytes of answerWidgetQuery's data
KEPT = 30 * 24 * 3600  # seconds a chat's widget messages are remembered after a change
# A chat's widget messages remembered at most: its newest (message ids grow), so that
# reading them all ahead of an edit (`all_shown`) stays small. An older one is taken
# for text: changed, it comes as a new message and it goes.
KEPT_MESSAGES = 32
# A harmless probe: changing the data of a widget message that cannot exist (the bot's
# own chat has none). A Bot API that knows the method refuses it as a bad request; one
# that does not answers 404.
PROBE_METHOD = "editMessageWidgetData"


class WidgetForm(TypedDict):
    """What a screen's picture adds to its message (render.widget_form)."""

    chat_data: str
    caption: str
    caption_entities: NotRequired[list[dict[str, Any]]]


def document() -> str:
    """The widget's HTML: one document that draws any packed picture."""
    from service.cards.widget import WIDGET_HTML

    return WIDGET_HTML


def probe_params(chat_id: int) -> dict[str, object]:
    return {"chat_id": chat_id, "message_id": 1, "chat_data": ""}


def send(
    api: Caller,
    chat: dict[str, int],
    form: WidgetForm,
    markup: dict[str, Any] | None,
    notify: bool,
) -> int:
    """sendWidget: the picture in a new message of `chat` (chat_id, and its topic);
    its message id. ApiError."""
    extra: dict[str, Any] = {} if markup is None else {"reply_markup": markup}
    if not notify:
        extra["disable_notification"] = True
    result = api.call("sendWidget", **chat, html=document(), allow_queries=True, **form, **extra)
    return int(result["message_id"])


def edit_data(api: Caller, chat_id: int, message_id: int, form: WidgetForm) -> None:
    """editMessageWidgetData: the widget draws the new picture. ApiError."""
    api.call("editMessageWidgetData", chat_id=chat_id, message_id=message_id, **data_of(form))


def data_of(form: WidgetForm) -> dict[str, str]:
    return {"chat_data": form["chat_data"]}


def edit_caption(
    api: Caller, chat_id: int, message_id: int, form: WidgetForm, markup: dict[str, Any] | None
) -> None:
    """editMessageCaption: the caption and the buttons (none given: none left). ApiError."""
    caption = {key: value for key, value in form.items() if key != "chat_data"}
    extra = {} if markup is None else {"reply_markup": markup}
    api.call("editMessageCaption", chat_id=chat_id, message_id=message_id, **caption, **extra)


class Shown(NamedTuple):
    """What a widget message shows, as short digests: its caption and buttons (`face`),
    and its picture (`data`)."""

    face: str
    data: str

    @classmethod
    def of(cls, form: WidgetForm, markup: dict[str, Any] | None) -> Shown:
        face = [form.get("caption", ""), form.get("caption_entities", []), markup]
        return cls(_digest(face), _digest(form["chat_data"]))


def _digest(value: object) -> str:
    return hashlib.sha1(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


# ----- what we keep of our widget messages --------------------------------------------


def remember(client: redis.Redis, chat_id: int, message_id: int, shown: Shown) -> None:
    """Message `message_id` of the chat is a widget of ours, showing `shown` (the chat's
    `KEPT_MESSAGES` newest remembered: two trips more when a new one passes them)."""
    key = widgets_key(chat_id)
    with client.pipeline(transaction=False) as pipe:
        pipe.hset(key, str(message_id), " ".join(shown))
        pipe.expire(key, KEPT)
        pipe.hlen(key)
        _new, _kept, count = pipe.execute()
    if count > KEPT_MESSAGES:
        ids = sorted(int(field) for field in client.hkeys(key))
        client.hdel(key, *(str(old) for old in ids[:-KEPT_MESSAGES]))


def remember_in(pipe: Any, chat_id: int, message_id: int, shown: Shown) -> None:
    """`remember`, in `pipe`, for a message remembered already (an edit's: no new one
    to count against `KEPT_MESSAGES`)."""
    key = widgets_key(chat_id)
    pipe.hset(key, str(message_id), " ".join(shown))
    pipe.expire(key, KEPT)


def shown_in(client: redis.Redis, chat_id: int, message_id: int) -> Shown | None:
    """What our widget message shows; None: no widget of ours."""
    return parse(client.hget(widgets_key(chat_id), str(message_id)))


def read_all(pipe: Any, chat_id: int) -> None:
    """Read, in `pipe`, what each of the chat's widget messages shows (`all_shown`)."""
    pipe.hgetall(widgets_key(chat_id))


def all_shown(found: dict[Any, Any]) -> dict[int, Shown]:
    """What each of a chat's widget messages shows, from its hash (HGETALL), read
    ahead of an edit with what else the edit needs (telegram.delivery.read_ahead)."""
    shown = {int(message_id): parse(value) for message_id, value in found.items()}
    return {message_id: each for message_id, each in shown.items() if each is not None}


def parse(found: bytes | str | None) -> Shown | None:
    """A remembered widget's `Shown`, as kept (`remember`)."""
    if found is None:
        return None
    face, _sep, data = (found.decode() if isinstance(found, bytes) else str(found)).partition(" ")
    return Shown(face, data)


def forget(client: redis.Redis, chat_id: int, message_id: int) -> None:
    client.hdel(widgets_key(chat_id), str(message_id))


# ----- answering a widget's request ----------------------------------------------------


def answer(query_id: str, text: str) -> dict[str, Any]:
    """answerWidgetQuery, as a webhook's HTTP answer carries a method: the words the
    widget shows (within 1024 bytes), "" for none."""
    data = text.encode()[:MAX_ANSWER].decode(errors="ignore")
    return {"method": "answerWidgetQuery", "widget_query_id": query_id, "data": data}
