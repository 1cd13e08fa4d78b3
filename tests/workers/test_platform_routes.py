"""Workers reach the platforms only through the registry: a platform's own job (the
notice), its process settings (send limits), its links and its lobby line; the bot's
@name is read where it can change; a chat that does not exist is a warning."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import fakeredis
import pytest
from pydantic import SecretStr
from telegram.error import BadRequest

from service.infra import indexes
from service.infra.keys import BOT_USERNAME, PENDING_SYNC
from service.infra.store import Store
from service.platforms import registry
from service.platforms.telegram import limits, notices
from service.platforms.telegram.botapi import ApiError, chat_not_found
from service.platforms.telegram.botfather import INLINE_KEY
from service.services import Services
from service.settings import Settings
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings
from workers import jobs, outbox
from workers.runtime import Runtime

ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")
GROUP = -100
WHATSAPP = {
    "whatsapp_token": SecretStr("wa"),
    "whatsapp_phone_id": "123",
    "whatsapp_app_secret": SecretStr("secret"),
    "whatsapp_verify_token": SecretStr("verify"),
    "whatsapp_number": "+351 900 000 000",
}


class Api:
    """A Bot API that records its calls and refuses the methods in `refuse`."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.refuse: dict[str, ApiError] = {}

    def call(self, method: str, **params: Any) -> Any:
        self.calls.append((method, params))
        if method in self.refuse:
            raise self.refuse[method]
        return {"message_id": len(self.calls)}

    def texts(self) -> str:
        return "\n".join(repr(params) for method, params in self.calls if method == "sendMessage")


@pytest.fixture
def api() -> Api:
    return Api()


def runtime_with(api: Api, **settings: Any) -> Runtime:
    client = fakeredis.FakeRedis()
    svc = Services(Settings(telegram_token=SecretStr("t"), **settings), Store(client, 3600, 3600))
    return Runtime(svc, client, {"telegram": api})


@pytest.fixture
def rt(api: Api, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runtime]:
    monkeypatch.setattr(limits, "ENABLED", False)
    runtime = runtime_with(api)
    monkeypatch.setattr(jobs, "runtime", lambda: runtime)
    yield runtime


def open_room(rt: Runtime, start: bool = True) -> Room:
    room = lobby.create_room(GROUP, None, ANA, time.time(), settings=RoomSettings(preset="spanish"))
    lobby.join(room, BEN)
    outcome = lobby.start(room, ANA, time.time(), 0.0) if start else Outcome(changed=True)
    assert rt.svc.store.create(room, outcome, None)
    indexes.clear(rt.redis, PENDING_SYNC)
    return room


def repost(rt: Runtime, room: Room) -> None:
    """A change that asks for the table posted anew (as a reminder does)."""

    def change(fresh: Room) -> Outcome:
        fresh.reminded = True
        return Outcome(changed=True, sync={"table:new"})

    assert rt.svc.store.update(room.id, change) is not None
    outbox.sync(rt, room.id, "table:new")


# ----- a platform's own job, its settings ---------------------------------------------


def test_the_notice_job_is_the_telegram_platforms(rt: Runtime, api: Api) -> None:
    notice = notices.queue(rt.redis, {"chat_id": 7, "text": "hola"}, 0.0)
    assert notice is not None
    jobs.notice(notice, "")
    assert api.calls == [("sendMessage", {"chat_id": 7, "text": "hola"})]
    assert notices.load(rt.redis, notice) is None


def test_a_job_no_platform_has_is_an_error(rt: Runtime) -> None:
    with pytest.raises(LookupError):
        registry.run_job(rt, "nothing", "")


def test_the_worker_sets_the_send_limits_through_the_registry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "ENABLED", True)
    registry.configure(Settings(rate_limits=False))
    assert limits.ENABLED is False


# ----- links and the lobby's invitation ------------------------------------------------


def test_each_platform_has_its_join_link(api: Api) -> None:
    svc = runtime_with(api, **WHATSAPP).svc
    svc.bot_username = "burro_bot"
    assert registry.join_link(svc, "telegram", "abcd1234", "es") == (
        "https://t.me/burro_bot?start=jabcd1234"
    )
    assert registry.join_link(svc, "whatsapp", "abcd1234", "es") == (
        "https://wa.me/351900000000?text=unirme%20abcd1234"
    )
    assert registry.join_link(runtime_with(api).svc, "whatsapp", "abcd1234", "es") is None


def test_a_telegram_lobby_invites_family_on_whatsapp(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "ENABLED", False)
    rt = runtime_with(api, **WHATSAPP)
    room = open_room(rt, start=False)
    outbox.sync(rt, room.id, "table")
    assert f"wa.me/351900000000?text=join%20{room.id}" in api.texts()


def test_no_invitation_where_whatsapp_is_off(rt: Runtime, api: Api) -> None:
    room = open_room(rt, start=False)
    assert registry.invites(rt.svc, room, "en") == []
    outbox.sync(rt, room.id, "table")
    assert "wa.me" not in api.texts()


# ----- the bot's @name ----------------------------------------------------------------


def test_a_renamed_bots_links_are_right_without_a_restart(rt: Runtime, api: Api) -> None:
    rt.redis.set(INLINE_KEY, "0")  # "🃏 My cards" is then a link to the bot's chat
    rt.redis.set(BOT_USERNAME, "first_bot")
    room = open_room(rt)
    outbox.sync(rt, room.id, "table")
    assert "t.me/first_bot?start=" in api.texts()
    rt.redis.set(BOT_USERNAME, "second_bot")  # serve started again, as a renamed bot
    api.calls.clear()
    repost(rt, room)
    assert "t.me/second_bot?start=" in api.texts() and "first_bot" not in api.texts()


# ----- a chat that does not exist -------------------------------------------------------

CHAT_NOT_FOUND = ApiError(400, "Bad Request: chat not found")


def only_warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The records of the test, each checked to be a one-line warning at most."""
    for record in caplog.records:
        assert record.levelno < logging.ERROR and record.exc_info is None, record
        assert "\n" not in record.getMessage()
    return [r for r in caplog.records if r.levelno == logging.WARNING]


def test_a_table_for_a_chat_not_found_is_a_warning(
    rt: Runtime, api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    room = open_room(rt)
    api.refuse["sendMessage"] = CHAT_NOT_FOUND
    with caplog.at_level(logging.INFO):
        outbox.sync_all(rt, room.id, ["table", "hand:1"])
    warnings = only_warnings(caplog)
    assert len(warnings) == 2 and all("chat not found" in r.getMessage() for r in warnings)
    assert indexes.count(rt.redis, PENDING_SYNC) == 0  # not tried again


def test_a_notice_for_a_chat_not_found_is_a_warning(
    rt: Runtime, api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    notice = notices.queue(rt.redis, {"chat_id": 7, "text": "hola"}, 0.0)
    assert notice is not None
    api.refuse["sendMessage"] = CHAT_NOT_FOUND
    with caplog.at_level(logging.INFO):
        jobs.notice(notice, "")
    warnings = only_warnings(caplog)
    assert len(warnings) == 1 and "chat not found" in warnings[0].getMessage()
    assert notices.load(rt.redis, notice) is None  # dropped, not retried


def test_telegrams_words_for_a_chat_not_found() -> None:
    """As the Bot API says them, and as PTB's BadRequest does (serve's replies)."""
    assert chat_not_found(CHAT_NOT_FOUND.description)
    assert chat_not_found(str(BadRequest("Bad Request: chat not found")))
    assert not chat_not_found("Bad Request: message is not modified")
