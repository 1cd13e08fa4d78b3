"""/privacy says what is kept and for how long; /forget (in private, confirmed) deletes a
person's settings and statistics, takes them out of every room kept, gives their seat in
a running game to a bot, and leaves nothing of them anywhere in Redis."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import fakeredis
import pytest
import redis
from rq.exceptions import NoSuchJobError
from rq.job import Job as RqJob

from engine.follow_suit.game import GameState, to_move
from service.infra import forget
from service.infra.store import Store, text
from service.platforms.telegram import callbacks
from service.table import lobby, privacy
from service.table.lobby import Actor
from service.table.outcome import JobKind, Outcome
from service.table.room import Room, RoomSettings
from tests.service.inproc import ANA, CARLA, GROUP, Hook, command, press, running_hook

CARLA_ID = CARLA["id"]
TRACES = re.compile(rf"(?<![0-9]){CARLA_ID}(?![0-9])|carla", re.IGNORECASE)


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_hook(tmp_path_factory.mktemp("privacy")) as running:
        for user in (ANA, CARLA):
            running.emu.start(user["first_name"])
            assert running.send(command("/start", user)).status_code == 200
        yield running


def said(hook: Hook, chat: str | int, words: str) -> int:
    return sum(1 for m in hook.emu.messages_in(chat) if words in m.text)


def tap(hook: Hook, user: dict[str, Any], room: Room, token: str, chat: int) -> None:
    data = callbacks.encode(room.id, room.version, token)
    assert hook.send(press(user, data, chat)).status_code == 200


def test_privacy_says_what_is_kept_and_how_long(hook: Hook) -> None:
    hook.fresh_budget()
    assert hook.send(command("/privacy", CARLA)).status_code == 200
    message = hook.emu.last_message("Carla")
    assert message is not None
    text = message.text
    assert "What I keep about you" in text
    assert "365 days" in text and "7 days" in text and "14 days" in text and "2 days" in text
    assert "Your name as Telegram shows it" in text and "Send /forget" in text
    assert "Never your phone number" in text and "WhatsApp" not in text


def test_forget_is_only_in_private(hook: Hook) -> None:
    hook.fresh_budget()
    assert hook.send(command("/forget", CARLA, GROUP)).status_code == 200
    assert said(hook, "Family", "Send /forget to me in a private chat.") == 1


def test_forget_leaves_nothing_of_the_person(hook: Hook) -> None:
    store = hook.store()
    hook.fresh_budget()
    # Carla's settings, a finished game with her statistics, a running group game in which
    # it is her turn, and a one-to-one game of her own.
    assert hook.send(command("/language es", CARLA)).status_code == 200
    finished = finished_game(store)
    assert store.stats(f"stats:user:{CARLA_ID}")["games"] == 1
    assert hook.send(command("/burro spanish", CARLA, GROUP)).status_code == 200
    tap(hook, ANA, hook.room(GROUP), "J", GROUP)
    tap(hook, CARLA, hook.room(GROUP), "S", GROUP)
    group = hook.room(GROUP)
    assert group.status == "playing" and isinstance(group.game, GameState)
    carla_seat = group.seat_of(CARLA_ID)
    assert to_move(group.game) == carla_seat  # she opened the table: she leads
    assert hook.send(command("/play spanish", CARLA)).status_code == 200
    assert hook.room(CARLA_ID).status == "lobby"
    live = f"game:{{{group.id}}}:live"  # as the outbox keeps it: when she last acted
    hook.redis.hset(live, str(CARLA_ID), time.time())
    hook.redis.hset(live, f"{CARLA_ID}:turn", group.version)
    hook.redis.set(f"limit:chat:{CARLA_ID}", "9999999999")  # her chat's budget is spent:
    assert hook.send(command("/stats", CARLA)).status_code == 200  # a reply waits for it
    assert hook.redis.zcard(f"notices:{CARLA_ID}") == 1
    assert traces(hook.redis)  # she is all over Redis now

    hook.fresh_budget()
    assert hook.send(command("/forget", CARLA)).status_code == 200
    confirm = hook.emu.last_message("Carla")
    assert confirm is not None and [str(b.value) for b in confirm.buttons[0]] == [
        "cmd:forget_yes",
        "cmd:forget_no",
    ]
    no = hook.send(press(CARLA, "cmd:forget_no")).json()
    assert no["method"] == "answerCallbackQuery" and "nada" in no["text"]  # in her language
    assert store.user(CARLA_ID)  # nothing went
    yes = hook.send(press(CARLA, "forget:yes")).json()
    assert yes["method"] == "answerCallbackQuery" and yes["show_alert"] is True

    assert traces(hook.redis) == []
    after = hook.room(GROUP)
    assert after.status == "playing" and after.seat_of(CARLA_ID) is None
    assert carla_seat is not None and after.is_bot_seat(carla_seat)
    assert hook.run_jobs(hook.runtime(), ("bot_turn",)) >= 1  # the bot plays her turn
    assert hook.room(GROUP).version > after.version
    assert store.room_in_chat(CARLA_ID, None) is None
    kept = store.load(finished.id)
    assert kept is not None and kept.humans() == [ANA["id"]]
    assert store.stats(f"stats:user:{ANA['id']}")["games"] == 1  # others keep theirs


def finished_game(store: Store) -> Room:
    """A game of Carla and Ana in a forum topic of the group, played to its end (the
    end is written as the last move would write it: counted in the statistics)."""
    carla, ana = Actor(CARLA_ID, "Carla", "es"), Actor(ANA["id"], "Ana", "en")
    room = lobby.create_room(GROUP, 7, carla, time.time())
    lobby.join(room, ana)
    assert store.create(room, lobby.start(room, carla, time.time()), None)

    def end(fresh: Room) -> Outcome:
        fresh.status = "over"
        return Outcome(changed=True, finished=True)

    assert store.update(room.id, end) is not None
    store.redis.hincrby(f"stats:chat:{GROUP}", f"burro:{CARLA_ID}", 1)  # she lost a hand
    return room


def traces(client: redis.Redis, pattern: re.Pattern[str] = TRACES) -> list[str]:
    """Every key whose name or value names Carla (by id, name or username; or what
    `pattern` finds); RQ's jobs are read through RQ (their data is compressed)."""
    found = []
    for key in client.scan_iter():
        name = key.decode()
        for value in [name, *values(client, name)]:
            if pattern.search(value):
                found.append(f"{name}: {value[:120]}")
                break
    return found


def values(client: redis.Redis, key: str) -> list[str]:
    kind = text(client.type(key))
    raw: list[object]
    if kind == "string":
        raw = [client.get(key)]
    elif kind == "hash":
        raw = [item for pair in client.hgetall(key).items() for item in pair]
    elif kind == "set":
        raw = list(client.smembers(key))
    elif kind == "zset":
        raw = list(client.zrange(key, 0, -1))
    elif kind == "list":
        raw = list(client.lrange(key, 0, -1))
    else:
        raw = [str(client.xrange(key)) if kind == "stream" else kind]
    found = [v.decode(errors="replace") if isinstance(v, bytes) else str(v) for v in raw]
    if key.startswith("rq:job:") and kind == "hash":
        try:
            job = RqJob.fetch(key.removeprefix("rq:job:"), connection=client)
        except NoSuchJobError:  # it finished since the scan found it: nothing left of it
            return found
        found.append(f"{job.func_name} {job.args} {job.kwargs}")
    return found


def test_forgetting_someone_in_a_lobby_takes_their_seat_away() -> None:
    carla, ana = Actor(CARLA_ID, "Carla", "es"), Actor(ANA["id"], "Ana", "en")
    room = lobby.create_room(GROUP, None, carla, time.time())
    lobby.join(room, ana)
    outcome = privacy.without(room, CARLA_ID, time.time())
    assert outcome.changed and room.status == "lobby"
    assert room.humans() == [ANA["id"]] and room.creator == ANA["id"]  # Ana runs it now


def test_a_finished_game_keeps_the_seat_under_a_neutral_name() -> None:
    carla, ana = Actor(CARLA_ID, "Carla", "es"), Actor(ANA["id"], "Ana", "en")
    room = lobby.create_room(GROUP, None, carla, time.time())
    lobby.join(room, ana)
    room.status = "over"
    assert privacy.without(room, CARLA_ID, time.time()).changed
    assert [(s.user_id, s.name, s.bot) for s in room.seats] == [
        (None, "#1", None),
        (ANA["id"], "Ana", None),
    ]
    assert room.creator == 0


def test_in_a_passing_game_the_bot_makes_the_forgotten_persons_choice() -> None:
    people = [Actor(CARLA_ID, "Carla", "es"), Actor(ANA["id"], "Ana", "en"), Actor(7, "Dan", "en")]
    room = lobby.create_room(
        GROUP, None, people[0], time.time(), settings=RoomSettings(preset="cuartetos")
    )
    for actor in people[1:]:
        lobby.join(room, actor)
    lobby.start(room, people[0], time.time())
    assert room.status == "playing" and room.settings.preset == "cuartetos"
    outcome = privacy.without(room, CARLA_ID, time.time())
    assert room.is_bot_seat(0) and room.seats[0].user_id is None
    assert [(j.kind, j.arg) for j in outcome.jobs] == [
        (JobKind.BOT_TURN, f"{room.phase_version}:0")
    ]


def test_a_room_created_playing_is_indexed_for_forgetting() -> None:
    """A one-to-one rematch starts at once, with no lobby write to index its person."""
    store = Store(fakeredis.FakeRedis(), 3600, 3600)
    carla = Actor(CARLA_ID, "Carla", "es")
    room = lobby.create_room(CARLA_ID, None, carla, time.time(), private=True)
    lobby.add_bot(room, carla)
    outcome = lobby.start(room, carla, time.time())
    assert room.status == "playing"
    assert store.create(room, outcome, None)
    assert store.redis.smembers(f"user:{CARLA_ID}:rooms") == {room.id.encode()}


def test_every_sync_job_naming_the_persons_hand_is_found_whatever_its_tag() -> None:
    store = Store(fakeredis.FakeRedis(), 3600, 3600)
    ids = {
        "sync-abcd1234-hand_7": True,
        "sync-abcd1234-hand_7-later": True,
        "sync-abcd1234-hand_7_new-later17960": True,
        "sync-abcd1234-table-mine_7-v12": True,
        "sync-abcd1234-hand_70-later": False,  # another person
        "sync-abcd1234-table-v12": False,
        "sync-zzzz9999-hand_7": False,  # another room
    }
    for ident in ids:
        store.jobs.hset(f"rq:job:{ident}", "status", "scheduled")
    found = set(forget.syncs_naming(store, "abcd1234", 7))
    assert found == {ident for ident, hers in ids.items() if hers}
