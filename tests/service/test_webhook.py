"""The webhook under bad input, duplicates, races, restarts and a Redis outage."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from cli.stack import SECRET, Stack, wait_http
from emulator.server import RunningEmulator
from engine.follow_suit.game import legal_actions, to_move
from service.infra.redis_server import connect, free_port
from service.infra.store import Store
from service.platforms.telegram import callbacks
from service.table.room import Room
from tests.service.conftest import make_stack
from tests.service.play import (
    action_button,
    follow_suit_game,
    game_buttons,
    presses_applied,
    room_in,
)

_ids = itertools.count(900_000_000)
CARLA = {"id": 100003, "is_bot": False, "first_name": "Carla", "language_code": "en"}
DAN = {"id": 100004, "is_bot": False, "first_name": "Dan", "language_code": "id"}


def post(
    stack: Stack,
    body: Any,
    secret: str | None = SECRET,
    url: str | None = None,
    raw: bytes | None = None,
) -> httpx.Response:
    headers = {"content-type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    data = raw if raw is not None else json.dumps(body).encode()
    return httpx.post(
        f"{url or stack.serve_url}/telegram/webhook", content=data, headers=headers, timeout=30
    )


def press(
    room: Room, user: dict[str, Any], data: str, update_id: int | None = None
) -> dict[str, Any]:
    """A callback_query update, as Telegram sends it for a tap on the room's message."""
    chat = {"id": room.chat_id, "type": "private", "first_name": user["first_name"]}
    return {
        "update_id": update_id or next(_ids),
        "callback_query": {
            "id": str(next(_ids)),
            "from": user,
            "chat_instance": "1",
            "data": data,
            "message": {
                "message_id": 1,
                "date": 0,
                "chat": chat,
                "text": "…",
                "from": {"id": 100000001, "is_bot": True, "first_name": "Burro"},
            },
        },
    }


def command(text: str, user: dict[str, Any] = CARLA, chat_id: int | None = None) -> dict[str, Any]:
    chat = {"id": chat_id or user["id"], "type": "private" if chat_id is None else "supergroup"}
    return {
        "update_id": next(_ids),
        "message": {
            "message_id": next(_ids) % 100000,
            "date": 0,
            "chat": chat,
            "from": user,
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}],
        },
    }


@pytest.fixture(scope="module")
def stack(emu: RunningEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Bots here think for an hour, so nothing moves but what a test sends."""
    with make_stack(emu, tmp_path_factory.mktemp("webhook"), bot_delay=3600) as running:
        yield running


@pytest.fixture()
def game(emu: RunningEmulator, stack: Stack) -> int:
    """A new one-to-one game: Carla (seat 0) leads against a bot; its chat id."""
    old = Store(connect(stack.redis.url), 60, 60).room_in_chat(100003, None)
    if old is not None and old.status in ("lobby", "playing"):
        post(stack, press(old, CARLA, callbacks.encode(old.id, old.version, "K")))
    emu.send_message("Carla", "Carla", "/play spanish")
    lobby = emu.wait_for_message(
        "Carla",
        lambda m: (
            "▶️ Start" in m.button_texts and (old is None or f"{old.id}." not in str(m.buttons))
        ),
    )
    emu.tap("Carla", lobby, "▶️ Start")

    def carla_leads() -> bool | None:
        return to_move(follow_suit_game(room_in(stack, lobby.chat_id))) == 0 or None

    emu.wait_for(carla_leads, what="Carla to lead")
    return lobby.chat_id


def move(
    stack: Stack,
    room: Room,
    index: int = 0,
    user: dict[str, Any] = CARLA,
    version: int | None = None,
) -> dict[str, Any]:
    token = callbacks.game_token(legal_actions(follow_suit_game(room), 0)[index])
    return press(
        room, user, callbacks.encode(room.id, room.version if version is None else version, token)
    )


def carla_actions(room: Room) -> list[int]:
    return [a for s, a in follow_suit_game(room).hand.actions if s == 0]


def test_secret_header_is_required(stack: Stack) -> None:
    assert post(stack, command("/help"), secret=None).status_code == 403
    assert post(stack, command("/help"), secret="wrong").status_code == 403


def test_bad_bodies(stack: Stack) -> None:
    assert post(stack, None, raw=b"x" * (2 << 20)).status_code == 413
    assert post(stack, None, raw=b"{not json").status_code == 400
    assert post(stack, [1, 2]).status_code == 400
    assert post(stack, {"update_id": "7"}).status_code == 400
    # authentic (the secret, an integer update_id) but unreadable: 200, or Telegram would
    # send it again and hold the chat's later updates back
    unread = post(stack, {"update_id": 7, "message": {"chat": "nope"}})
    assert (unread.status_code, unread.text) == (200, "ok")
    assert httpx.get(f"{stack.serve_url}/healthz").json() == {"ok": True}


def test_junk_arguments_and_unknown_buttons_leave_games_intact(stack: Stack, game: int) -> None:
    before = room_in(stack, game)
    for text in (
        "/burro ☃☃☃",
        "/rules nonsense",
        "/export x",
        "/language klingon",
        "/stats " + "z" * 3000,
        "/play 999",
        "/cancel now please",
        "/start jzzzzzzzz",
    ):
        assert post(stack, command(text)).status_code == 200
        # (a /start reposts the live game: the room notes the update that did)
        assert unchanged(room_in(stack, game), before), text
    for data in (
        "",
        "x" * 64,
        "abcdefgh.1.p5H",
        f"{before.id}.0.zz",
        f"{before.id}.{before.version}.pZZ",
        f"{before.id}.{before.version}.o:nothing",
        f"{before.id}.99999999.d",
    ):
        assert post(stack, press(before, CARLA, data)).status_code == 200
        assert unchanged(room_in(stack, game), before), data


def unchanged(room: Room, before: Room) -> bool:
    """The same room, but for the updates it notes (a refused press may repost a screen:
    a write of the room, which notes its update: Room.handled)."""
    return room.model_dump(exclude={"handled"}) == before.model_dump(exclude={"handled"})


def test_duplicate_delivery_applies_once(stack: Stack, emu: RunningEmulator, game: int) -> None:
    room = room_in(stack, game)
    update = move(stack, room)
    assert post(stack, update).status_code == 200
    presses_applied(emu, stack)
    once = room_in(stack, game)
    assert once.version > room.version and len(carla_actions(once)) == 1
    assert post(stack, update).status_code == 200
    presses_applied(emu, stack)
    assert room_in(stack, game) == once


def test_lobby_press_delivered_twice_adds_one_bot(stack: Stack, emu: RunningEmulator) -> None:
    emu.send_message("Dan", "Dan", "/play")
    lobby = emu.wait_for_message("Dan", lambda m: action_button(m, "S") is not None)
    room = room_in(stack, lobby.chat_id)
    update = press(room, DAN, callbacks.encode(room.id, room.version, "B"))
    assert post(stack, update).status_code == 200
    assert post(stack, update).status_code == 200
    assert len(room_in(stack, lobby.chat_id).seats) == len(room.seats) + 1


def test_two_presses_at_once_apply_exactly_one_move(
    stack: Stack, emu: RunningEmulator, game: int
) -> None:
    room = room_in(stack, game)
    updates = [move(stack, room, index % 2) for index in range(6)]
    answers: list[int] = []
    threads = [
        threading.Thread(target=lambda u=u: answers.append(post(stack, u).status_code))
        for u in updates
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [200] * 6
    presses_applied(emu, stack)
    assert len(carla_actions(room_in(stack, game))) == 1


def test_stale_and_foreign_presses_change_nothing(stack: Stack, game: int) -> None:
    room = room_in(stack, game)
    assert post(stack, move(stack, room, version=room.version - 1)).status_code == 200
    assert post(stack, move(stack, room, user=DAN)).status_code == 200
    assert room_in(stack, game) == room


def test_a_press_is_answered_in_the_webhooks_answer(
    stack: Stack, emu: RunningEmulator, game: int
) -> None:
    """answerCallbackQuery rides on the 200 (Telegram runs it): no request of its own."""
    room = room_in(stack, game)
    stale = move(stack, room, version=room.version - 1)
    answer = post(stack, stale)
    assert answer.status_code == 200
    assert answer.json() == {
        "method": "answerCallbackQuery",
        "callback_query_id": stale["callback_query"]["id"],
        "text": "This button is out of date: use the newest message.",
    }
    legal = move(stack, room)
    answer = post(stack, legal)
    assert answer.json() == {
        "method": "answerCallbackQuery",
        "callback_query_id": legal["callback_query"]["id"],
    }
    ids = {stale["callback_query"]["id"], legal["callback_query"]["id"]}
    assert not [c for c in emu.calls() if c["params"].get("callback_query_id") in ids]


def test_serve_killed_and_restarted_loses_nothing(
    stack: Stack, emu: RunningEmulator, game: int
) -> None:
    room = room_in(stack, game)
    stack.kill("serve")
    stack.start_serve()
    assert room_in(stack, game) == room
    keyboard = emu.wait_for(
        lambda: (
            [
                b
                for b in game_buttons(emu.last_message("Carla"))
                if f".{room.version}." in str(b.value)
            ]
            or None
        )
    )
    message = emu.last_message("Carla")
    assert message is not None
    emu.tap("Carla", message, keyboard[0].value)
    presses_applied(emu, stack)
    assert len(carla_actions(room_in(stack, game))) == 1


def test_two_serve_processes_agree(stack: Stack, emu: RunningEmulator, game: int) -> None:
    other = free_port()
    stack.spawn("serve2", "serve", "--port", str(other))
    second = f"http://127.0.0.1:{other}"
    try:
        wait_http(f"{second}/healthz")
        room = room_in(stack, game)
        update = move(stack, room)
        assert post(stack, update, url=second).status_code == 200
        assert post(stack, update, url=stack.serve_url).status_code == 200  # the duplicate
        presses_applied(emu, stack)
        after = room_in(stack, game)
        assert len(carla_actions(after)) == 1
        stale = move(stack, room, 1)  # the other card, from the now stale keyboard
        assert post(stack, stale, url=stack.serve_url).status_code == 200
        assert post(stack, stale, url=second).status_code == 200
        assert room_in(stack, game) == after
    finally:
        stack.kill("serve2")


def test_redis_down_answers_503_then_recovers(stack: Stack) -> None:
    stack.redis.stop(kill=True)
    try:
        assert post(stack, command("/help")).status_code == 503
        assert httpx.get(f"{stack.serve_url}/healthz").status_code == 503
    finally:
        stack.redis.start()
    assert httpx.get(f"{stack.serve_url}/healthz").status_code == 200
    assert post(stack, command("/help")).status_code == 200
