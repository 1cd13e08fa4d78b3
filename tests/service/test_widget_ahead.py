"""What a chat's widget messages show, read ahead of an edit with the outbox's own read
of the target (issue #40: one trip, not a GET before each edit), and written behind it
with the outbox's marks; kept small: a chat's newest widget messages alone."""

from __future__ import annotations

from collections.abc import Iterator

import fakeredis
import pytest

from service.infra.keys import widgets_key
from service.platforms.base import Chat, DeliveryFailed
from service.platforms.telegram import botfather, limits, widgets
from service.platforms.telegram.delivery import TelegramDelivery
from service.platforms.telegram.render import WIDGET, drawn_params
from tests.service.test_widget_delivery import GROUP, HTML, PRIVATE, ScriptedApi, delivery, screen


@pytest.fixture(autouse=True)
def html(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(widgets, "document", lambda: HTML)
    monkeypatch.setattr(limits, "ENABLED", False)  # a test that needs them says so


@pytest.fixture
def client() -> Iterator[fakeredis.FakeRedis]:
    client = fakeredis.FakeRedis()
    client.flushall()  # fakeredis's clients share one server: no send budget left over
    botfather.record_widgets(client, True)
    yield client


def read_ahead(
    platform: TelegramDelivery, client: fakeredis.FakeRedis, chat: Chat = PRIVATE
) -> None:
    """What the outbox does: the platform's read in the target's one pipeline."""
    with client.pipeline(transaction=False) as pipe:
        pipe.get("something the outbox reads")
        keep = platform.read_ahead(pipe, chat)
        keep(pipe.execute()[-1])


def write_behind(platform: TelegramDelivery, client: fakeredis.FakeRedis) -> None:
    """What the outbox does after a send: its marks, and the platform's writes."""
    with client.pipeline(transaction=False) as pipe:
        pipe.set("something the outbox writes", 1)
        platform.write_behind(pipe)
        pipe.execute()


def test_an_edit_read_ahead_reads_nothing_more_and_edits_what_changed(
    client: fakeredis.FakeRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = ScriptedApi()
    first = delivery(api, client).deliver(PRIVATE, delivery(api, client).render(screen(), "en"))
    platform = delivery(api, client)  # the outbox's, for the next target
    read_ahead(platform, client)
    monkeypatch.setattr(widgets, "shown_in", lambda *_args: pytest.fail("read again"))
    changed = drawn_params(screen(), platform.wire())
    changed[WIDGET] = {**changed[WIDGET], "chat_data": '{"v":1}'}  # the picture alone
    assert platform.update(PRIVATE, first, changed) == first
    assert api.methods() == ["sendWidget", "editMessageWidgetData"]


def test_what_was_read_ahead_is_taken_once(client: fakeredis.FakeRedis) -> None:
    """A second edit with the same platform reads what the first one left (written
    with the outbox's marks)."""
    api = ScriptedApi()
    platform = delivery(api, client)
    first = platform.deliver(PRIVATE, platform.render(screen(), "en"))
    read_ahead(platform, client)
    moved = platform.render(screen("Ben is playing", version=8), "en")
    platform.update(PRIVATE, first, moved)
    write_behind(platform, client)
    edited = api.methods()
    assert "editMessageCaption" in edited
    platform.update(PRIVATE, first, moved)  # shows this already: nothing to edit
    assert api.methods() == edited


def test_a_chat_remembers_its_newest_widget_messages_alone(client: fakeredis.FakeRedis) -> None:
    shown = widgets.Shown("face", "data")
    for message_id in range(1, widgets.KEPT_MESSAGES + 6):
        widgets.remember(client, PRIVATE.id, message_id, shown)
    kept = widgets.all_shown(client.hgetall(widgets_key(PRIVATE.id)))
    assert sorted(kept) == list(range(6, widgets.KEPT_MESSAGES + 6))
    assert widgets.shown_in(client, PRIVATE.id, 5) is None
    assert widgets.shown_in(client, PRIVATE.id, widgets.KEPT_MESSAGES + 5) == shown


def test_a_text_edit_where_widgets_are_off_reads_nothing_more(
    client: fakeredis.FakeRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A group's table (text, widgets off there): its edit needs to know that the
    message is no widget of ours, read ahead too."""
    api = ScriptedApi()
    platform = delivery(api, client)
    first = platform.deliver(GROUP, platform.render(screen(), "en"))
    read_ahead(platform, client, GROUP)
    monkeypatch.setattr(widgets, "shown_in", lambda *_args: pytest.fail("read again"))
    platform.update(GROUP, first, platform.render(screen("Ben is playing", version=8), "en"))
    assert api.methods() == ["sendMessage", "editMessageText"]


def test_an_edit_read_ahead_is_remembered_with_the_outboxs_marks(
    client: fakeredis.FakeRedis,
) -> None:
    api = ScriptedApi()
    platform = delivery(api, client)
    first = platform.deliver(PRIVATE, platform.render(screen(), "en"))
    was = widgets.shown_in(client, PRIVATE.id, first)
    read_ahead(platform, client)
    moved = platform.render(screen("Ben is playing", version=8), "en")
    platform.update(PRIVATE, first, moved)
    assert widgets.shown_in(client, PRIVATE.id, first) == was  # not yet
    write_behind(platform, client)
    assert widgets.shown_in(client, PRIVATE.id, first) == widgets.Shown.of(
        moved[WIDGET], moved.get("reply_markup")
    )


def test_an_edit_that_must_wait_is_remembered_at_once(
    client: fakeredis.FakeRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A caption's edit put off for the send budget: the outbox writes no marks, so
    the picture's edit, shown already, is remembered at once (not edited again)."""
    api = ScriptedApi()
    platform = delivery(api, client)
    first = platform.deliver(PRIVATE, platform.render(screen(), "en"))
    read_ahead(platform, client)
    monkeypatch.setattr(limits, "ENABLED", True)
    assert platform.budget(PRIVATE) == 0  # the outbox's slot for this change
    moved = platform.render(screen("Ben is playing", version=8), "en")
    with pytest.raises(DeliveryFailed):
        platform.update(PRIVATE, first, moved)
    shown = widgets.shown_in(client, PRIVATE.id, first)
    assert shown is not None and shown.data == widgets.Shown.of(moved[WIDGET], None).data
