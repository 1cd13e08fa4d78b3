"""Nothing grows without bound: a lobby nobody presses and a game nobody moves in are
ended after their idle time (with a word to the chat), every key expires, and a chat or
a person may have only so many open rooms."""

from __future__ import annotations

import time
from collections.abc import Iterator

import fakeredis
import pytest
from pydantic import SecretStr

from bench.keys import NullApi
from service.infra import indexes
from service.infra.keys import IDLE_KEY, INDEXES, bucket_key
from service.infra.store import Store, chat_key, room_key
from service.platforms.telegram import callbacks, limits
from service.services import Services
from service.settings import Settings
from service.table import caps, lobby
from service.table.buckets import every_bucket
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room
from tests.service.inproc import ANA, BEN, CARLA, GROUP, Hook, command, press, running_hook
from workers import expiry, jobs, outbox
from workers.runtime import Runtime

DAY = 24 * 3600
GLOBAL_KEYS = {
    *(bucket_key(index, bucket) for index in INDEXES for bucket in every_bucket()),
    "bot:username",
    "bot:inline",
    "bot:ephemeral",
    "bot:widgets",
}


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_hook(tmp_path_factory.mktemp("lifetimes"), rooms_per_user=1) as running:
        for user in (ANA, BEN, CARLA):
            running.emu.start(user["first_name"])
            assert running.send(command("/start", user)).status_code == 200
        yield running


def later(days: float) -> float:
    return time.time() + days * DAY


def said(hook: Hook, chat: str | int, words: str) -> int:
    return sum(1 for m in hook.emu.messages_in(chat) if words in m.text)


def test_an_abandoned_lobby_ends_after_two_days_and_the_chat_is_told(hook: Hook) -> None:
    assert hook.send(command("/burro spanish", BEN, GROUP)).status_code == 200
    room = hook.room(GROUP)
    assert not expiry.expire_idle(hook.runtime(), later(1.9))
    assert hook.room(GROUP).status == "lobby"
    rt = hook.runtime(clock=lambda: later(2.01))
    assert expiry.expire_idle(rt, rt.svc.now()) == [room.id]
    ended = hook.store().load(room.id)
    assert ended is not None and ended.status == "cancelled"
    assert hook.store().room_in_chat(GROUP, None) is None
    assert 0 < hook.redis.ttl(room_key(room.id)) <= hook.settings.retention
    assert indexes.score(hook.redis, IDLE_KEY, room.id) is None
    before = said(hook, "Family", "This table closed")
    hook.fresh_budget()
    assert hook.run_jobs(rt, ("notice",)) == 1
    assert said(hook, "Family", "This table closed") == before + 1
    assert not expiry.expire_idle(rt, rt.svc.now())  # once


def test_a_game_nobody_moves_in_ends_after_two_weeks(hook: Hook) -> None:
    assert hook.send(command("/play spanish", CARLA)).status_code == 200
    room = hook.room(CARLA["id"])
    start = action_button_data(room, "S")
    assert hook.send(press(CARLA, start)).status_code == 200
    assert hook.room(CARLA["id"]).status == "playing"
    assert not expiry.expire_idle(hook.runtime(), later(3))  # a lobby's time is not a game's
    assert not expiry.expire_idle(hook.runtime(), later(13.9))
    rt = hook.runtime(clock=lambda: later(14.01))
    assert expiry.expire_idle(rt, rt.svc.now()) == [room.id]
    assert hook.redis.get(chat_key(CARLA["id"], None)) is None
    before = said(hook, "Carla", "This game ended: nobody moved for 14 days")
    hook.fresh_budget()  # Carla's chat had its replies a moment ago
    assert hook.run_jobs(rt, ("notice",)) == 1
    assert said(hook, "Carla", "This game ended: nobody moved for 14 days") == before + 1


def test_a_move_puts_the_end_off(hook: Hook) -> None:
    assert hook.send(command("/burro spanish", ANA, GROUP)).status_code == 200
    room = hook.room(GROUP)
    first = indexes.score(hook.redis, IDLE_KEY, room.id)
    assert first is not None
    assert hook.send(press(BEN, action_button_data(room, "J"), GROUP)).status_code == 200
    second = indexes.score(hook.redis, IDLE_KEY, room.id)
    assert second is not None and second > first
    hook.store().update(room.id, cancel)


def test_one_person_may_open_only_so_many_rooms(hook: Hook) -> None:
    assert hook.send(command("/burro spanish", ANA, GROUP)).status_code == 200
    group_room = hook.room(GROUP)
    before = said(hook, "Ana", "the most open games one may have (1)")
    assert hook.send(command("/play spanish", ANA)).status_code == 200
    assert said(hook, "Ana", "the most open games one may have (1)") == before + 1
    assert hook.store().room_in_chat(ANA["id"], None) is None
    hook.store().update(group_room.id, cancel)
    assert hook.send(command("/play spanish", ANA)).status_code == 200
    assert hook.room(ANA["id"]).status == "lobby"


def test_every_key_expires(hook: Hook) -> None:
    """After the tests above: rooms open and ended, people, marks, notices, limits."""
    forever = [
        key.decode()
        for key in hook.redis.scan_iter()
        if key.decode() not in GLOBAL_KEYS
        and not key.startswith(b"rq:")
        and hook.redis.ttl(key) == -1
    ]
    assert forever == []
    kinds = {key.decode().split(":")[0] for key in hook.redis.scan_iter()}
    assert {"game", "chat", "user", "update", "stats", "open", "limit"} <= kinds | {"stats"}


def test_a_chat_may_have_only_so_many_open_rooms() -> None:
    store = Store(fakeredis.FakeRedis(), 3600, 3600)
    svc = Services(Settings(rooms_per_chat=2, rooms_per_user=5), store)
    for topic, user in ((1, 1), (2, 2)):
        actor = Actor(user, f"P{user}", "en")
        room = lobby.create_room(-5, topic, actor, time.time())
        assert store.create(room, lobby.changed(room), None)
    popup = caps.refusal(svc.store, svc.settings, -5, 3)
    assert popup is not None and "This chat has" in popup.message
    assert dict(popup.values) == {"n": 2}
    assert caps.refusal(svc.store, svc.settings, -6, 3) is None  # another chat
    assert store.update(room.id, cancel) is not None
    assert caps.refusal(svc.store, svc.settings, -5, 3) is None  # one ended: room again
    assert store.redis.scard("open:chat:-5") == 1  # the ended one was dropped


def cancel(room: Room) -> Outcome:
    room.status = "cancelled"
    return Outcome(changed=True)


def action_button_data(room: Room, token: str) -> str:
    return callbacks.encode(room.id, room.version, token)


def test_the_outbox_keeps_a_rooms_messages_as_long_as_the_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A table idle for a week still edits its message (it is not posted anew)."""
    monkeypatch.setattr(limits, "ENABLED", False)
    client = fakeredis.FakeRedis()
    settings = Settings(telegram_token=SecretStr("t"), rate_limits=False)
    store = Store.of(client, settings)
    rt = Runtime(Services(settings, store), client, {"telegram": NullApi()})
    room = lobby.create_room(-5, None, Actor(1, "Ana", "en"), time.time())
    assert store.create(room, lobby.changed(room), None)
    outbox.sync(rt, room.id, "table")
    msgs = f"game:{{{room.id}}}:msgs"
    assert client.ttl(msgs) == client.ttl(room_key(room.id)) == store.live_ttl
    assert store.update(room.id, cancel) is not None
    outbox.sync(rt, room.id, "table")
    assert client.ttl(msgs) == store.retention


def test_the_periodic_sweep_ends_idle_rooms(hook: Hook, monkeypatch: pytest.MonkeyPatch) -> None:
    assert hook.send(command("/burro spanish", BEN, GROUP)).status_code == 200
    room = hook.room(GROUP)
    rt = hook.runtime(clock=lambda: later(2.01))
    monkeypatch.setattr(jobs, "runtime", lambda: rt)
    jobs.sweep("0")
    ended = hook.store().load(room.id)
    assert ended is not None and ended.status == "cancelled"
