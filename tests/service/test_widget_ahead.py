"""What a chat's widget messages show, read ahead of an edit with the outbox's own read
of the target (issue #40: one trip, not a GET before each edit), and kept small: a
chat's newest widget messages alone are remembered."""

from __future__ import annotations

from collections.abc import Iterator

import fakeredis
import pytest

from service.infra.keys import widgets_key
from service.platforms.telegram import botfather, widgets
from service.platforms.telegram.delivery import TelegramDelivery
from service.platforms.telegram.render import WIDGET, drawn_params
from tests.service.test_widget_delivery import HTML, PRIVATE, ScriptedApi, delivery, screen


@pytest.fixture(autouse=True)
def html(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(widgets, "document", lambda: HTML)


@pytest.fixture
def client() -> Iterator[fakeredis.FakeRedis]:
    client = fakeredis.FakeRedis()
    botfather.record_widgets(client, True)
    yield client


def read_ahead(platform: TelegramDelivery, client: fakeredis.FakeRedis) -> None:
    """What the outbox does: the platform's read in the target's one pipeline."""
    with client.pipeline(transaction=False) as pipe:
        pipe.get("something the outbox reads")
        keep = platform.read_ahead(pipe, PRIVATE)
        assert keep is not None
        keep(pipe.execute()[-1])


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
    """A second edit with the same platform reads what the first one left."""
    api = ScriptedApi()
    platform = delivery(api, client)
    first = platform.deliver(PRIVATE, platform.render(screen(), "en"))
    read_ahead(platform, client)
    moved = platform.render(screen("Ben is playing", version=8), "en")
    platform.update(PRIVATE, first, moved)
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


def test_a_chat_with_no_widgets_reads_nothing_ahead(client: fakeredis.FakeRedis) -> None:
    with client.pipeline(transaction=False) as pipe:
        assert delivery(ScriptedApi(), client, on=False).read_ahead(pipe, PRIVATE) is None
        assert not pipe.command_stack
