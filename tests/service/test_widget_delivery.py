"""Telegram's delivery of a hand with a picture, call by call (fakeredis and a scripted
Bot API): a widget where the chat takes one (private; groups only with the test
server's switch), its data edited and its caption and buttons only when they changed, a
text that must become a widget (or the reverse) sent anew with the old one retired, a
widget Telegram refuses sent as text, never a widget for an ephemeral hand."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import fakeredis
import pytest

from service.platforms.base import Chat, DeliveryFailed
from service.platforms.telegram import botfather, limits, widgets
from service.platforms.telegram.botapi import ApiError
from service.platforms.telegram.delivery import Drawing, TelegramDelivery
from service.platforms.telegram.render import WIDGET, drawn_params, text_form, widget_form
from service.ui.intents import Move, Press
from service.ui.picture import HandCard, Picture, SeatPicture
from service.ui.screens import Button, Screen

HTML = "<!doctype html><html><body></body></html>"
PRIVATE, GROUP = Chat(100003), Chat(-1001000000001)


class ScriptedApi:
    """Records calls; every send gets the next id; a method may be set to refuse."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.refuse: dict[str, ApiError] = {}

    def call(self, method: str, **params: Any) -> Any:
        self.calls.append((method, params))
        if method in self.refuse:
            raise self.refuse[method]
        sent = 100 + len(self.calls)
        return {"message_id": sent, "ephemeral_message_id": sent} if "send" in method else True

    def methods(self) -> list[str]:
        return [method for method, _params in self.calls]


@pytest.fixture(autouse=True)
def html(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(widgets, "document", lambda: HTML)


@pytest.fixture
def api() -> ScriptedApi:
    return ScriptedApi()


@pytest.fixture
def client() -> Iterator[fakeredis.FakeRedis]:
    client = fakeredis.FakeRedis()
    botfather.record_widgets(client, True)
    yield client


def delivery(api: ScriptedApi, client: fakeredis.FakeRedis, **drawing: bool) -> TelegramDelivery:
    return TelegramDelivery(api, client, "burro_bot", None, Drawing(**drawing))


def picture(status: str = "Your turn", cards: tuple[str, ...] = ("7H", "2S")) -> Picture:
    hand = tuple(HandCard(code, f"abcd1234.7.p{code}") for code in cards)
    seats = (SeatPicture("Carla", len(cards), "0", 3), SeatPicture("Bot", 5, "0", 8))
    return Picture("french", "Burro", seats, hand=hand, status=status)


def screen(status: str = "Your turn", version: int = 7) -> Screen:
    button = Button("7♥", Press("abcd1234", version, Move("play:7H")))
    return Screen(f"Burro\n{status}", ((button,),), picture(status))


def test_a_screen_with_a_picture_carries_its_widget_form_beside_its_text(
    api: ScriptedApi, client: fakeredis.FakeRedis
) -> None:
    rendered = delivery(api, client).render(screen(), "en")
    form = rendered[WIDGET]
    assert form["caption"] == "Burro\nYour turn"
    assert json.loads(form["chat_data"])["h"] == [["7H", "p7H"], ["2S", "p2S"]]
    assert text_form(rendered) == {k: v for k, v in rendered.items() if k != WIDGET}
    assert rendered["text"] == "Burro\nYour turn" and "reply_markup" in rendered
    botfather.record_widgets(client, False)
    botfather._seen.clear()
    assert WIDGET not in delivery(api, client).render(screen(), "en")  # a 10.1 Bot API
    assert WIDGET not in delivery(api, client, on=False).render(screen(), "en")


def test_a_caption_is_cut_to_telegrams_length() -> None:
    form = widget_form(picture(status="x" * 2000))
    assert form is not None and len(form["caption"]) == 1024


def test_the_first_hand_is_sent_as_a_widget_with_its_buttons(
    api: ScriptedApi, client: fakeredis.FakeRedis
) -> None:
    platform = delivery(api, client)
    sent = platform.deliver(PRIVATE, platform.render(screen(), "en"), notify=False)
    ((method, params),) = api.calls
    assert method == "sendWidget" and sent == 101
    assert params["html"] == HTML and params["allow_queries"] is True
    assert params["disable_notification"] is True and "reply_markup" in params
    assert "text" not in params and WIDGET not in params


def test_a_change_edits_the_data_and_the_caption_only_when_it_changed(
    api: ScriptedApi, client: fakeredis.FakeRedis
) -> None:
    platform = delivery(api, client)
    first = platform.deliver(PRIVATE, platform.render(screen(), "en"))
    changed = drawn_params(screen(), platform.wire())
    changed[WIDGET] = {**changed[WIDGET], "chat_data": '{"v":1}'}  # the picture alone
    assert platform.update(PRIVATE, first, changed) == first
    assert api.methods() == ["sendWidget", "editMessageWidgetData"]
    moved = platform.render(screen("Ben is playing", version=8), "en")
    assert platform.update(PRIVATE, first, moved) == first
    assert api.methods()[2:] == ["editMessageWidgetData", "editMessageCaption"]
    assert api.calls[-1][1]["caption"] == "Burro\nBen is playing"


def test_two_edits_take_two_send_slots(
    api: ScriptedApi, client: fakeredis.FakeRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outbox took one slot for the change; the caption's edit needs a second one,
    else it waits, and the picture, shown already, is not edited again."""
    platform = delivery(api, client)
    first = platform.deliver(PRIVATE, platform.render(screen(), "en"))
    monkeypatch.setattr(limits, "ENABLED", True)
    assert platform.budget(PRIVATE) == 0  # the outbox's slot for this change
    moved = platform.render(screen("Ben is playing", version=8), "en")
    with pytest.raises(DeliveryFailed) as waiting:
        platform.update(PRIVATE, first, moved)
    assert waiting.value.failure.kind == "retry" and waiting.value.failure.wait > 0
    assert api.methods() == ["sendWidget", "editMessageWidgetData"]
    monkeypatch.setattr(limits, "ENABLED", False)  # its slot, a second later
    assert platform.update(PRIVATE, first, moved) == first
    assert api.methods()[2:] == ["editMessageCaption"]


def test_a_text_becomes_a_widget_as_a_new_message_and_the_reverse(
    api: ScriptedApi, client: fakeredis.FakeRedis
) -> None:
    platform = delivery(api, client)
    written = text_form(platform.render(screen(), "en"))
    text_id = platform.deliver(PRIVATE, written)
    drawn_id = platform.update(PRIVATE, text_id, platform.render(screen(), "en"))
    assert drawn_id != text_id
    assert api.methods() == ["sendMessage", "sendWidget", "deleteMessage"]
    again = platform.update(PRIVATE, drawn_id, written)
    assert again not in (text_id, drawn_id)
    assert api.methods()[3:] == ["sendMessage", "deleteMessage"]
    assert api.calls[-1][1]["message_id"] == drawn_id
    assert widgets.shown_in(client, PRIVATE.id, drawn_id) is None  # forgotten as it went


def test_groups_get_text_unless_the_test_servers_switch(
    api: ScriptedApi, client: fakeredis.FakeRedis
) -> None:
    platform = delivery(api, client)
    assert not platform.capabilities().group_pictures
    platform.deliver(GROUP, platform.render(screen(), "en"))
    test_server = delivery(api, client, in_groups=True)
    assert test_server.capabilities().group_pictures
    test_server.deliver(GROUP, test_server.render(screen(), "en"))
    assert api.methods() == ["sendMessage", "sendWidget"]


def test_a_widget_refused_goes_as_text(api: ScriptedApi, client: fakeredis.FakeRedis) -> None:
    api.refuse["sendWidget"] = ApiError(400, "Bad Request: WIDGET_HTML_TOO_BIG")
    platform = delivery(api, client)
    platform.deliver(PRIVATE, platform.render(screen(), "en"))
    assert api.methods() == ["sendWidget", "sendMessage"]


def test_an_ephemeral_hand_is_never_a_widget(api: ScriptedApi, client: fakeredis.FakeRedis) -> None:
    platform = delivery(api, client)
    platform.show_to(GROUP, 100003, platform.render(screen(), "en"), "qquery1")
    ((method, params),) = api.calls
    assert method == "sendMessage" and WIDGET not in params and "text" in params


def test_an_answer_is_cut_to_1024_bytes_on_a_character() -> None:
    answer = widgets.answer("q1", "ñ" * 600)
    assert answer["method"] == "answerWidgetQuery" and answer["widget_query_id"] == "q1"
    assert len(answer["data"].encode()) == 1024 and set(answer["data"]) == {"ñ"}
