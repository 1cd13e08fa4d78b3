"""Telegram's webhook fed updates written by others (tests/service/telegram_payloads/,
each cited in its README): every one is answered 200, logs no error and leaves the
group's game as it was, sent as it is and moved into the group. Then the inbound fixes
an audit with real payloads found, each with the real shape it came from:

- an authentic update python-telegram-bot cannot read (Telegram's own webhook examples:
  a `from` without `is_bot`) is answered 200 and logged `outcome=unparsed`, never 400;
- a press delivered again is answered again, with the first answer's text;
- an edited message never runs a command;
- a reply Telegram refuses because the chat does not exist is a warning, not an error.

Through `serve` in this process (inproc.running_hook): real Redis, the emulator as the
Bot API; jobs are not run.
"""

from __future__ import annotations

import copy
import itertools
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rq import Queue

from engine.follow_suit.game import GameState, legal_actions, to_move
from service.infra import metrics
from service.infra.queue import QUEUE
from service.platforms.telegram import botfather, callbacks
from service.table.outcome import Outcome
from service.table.room import Room
from tests.service.inproc import ANA, BEN, BOT, CARLA, GROUP, Hook, command, running_hook

# Real payloads carry fields PTB 22.8 deprecates (a poll's `correct_option_id`).
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
PAYLOADS = Path(__file__).parent / "telegram_payloads"
GROUP_CHAT = {"id": GROUP, "type": "supergroup", "title": "Family"}
# Updates that change a group's game by design (an upgrade moves it, a closed topic or
# the bot removed ends it): not moved into the group.
GAME_CHANGES = ("migrate_to_chat_id", "migrate_from_chat_id", "forum_topic_closed")
_ids = itertools.count(7_000_000_000)


def entries(name: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads((PAYLOADS / name).read_text())
    return found


def every_entry() -> list[Any]:
    return list(each_entry())


def each_entry() -> Iterator[Any]:
    for path in sorted(PAYLOADS.glob("*.json")):
        for index, entry in enumerate(entries(path.name)):
            yield pytest.param(entry, id=f"{path.stem}-{index}")


def one(name: str, source: str) -> dict[str, Any]:
    """A copy of the update of a file whose `_source` ends with `source`."""
    (found,) = [e["update"] for e in entries(name) if e["_source"].endswith(source)]
    return copy.deepcopy(found)


def fresh(update: dict[str, Any]) -> dict[str, Any]:
    """The update with an id never posted before (each post is a new update)."""
    return {**update, "update_id": next(_ids)}


def in_group(update: dict[str, Any]) -> dict[str, Any] | None:
    """The update moved into the game's group (its chat, wherever it appears, becomes
    the group); None when it has no chat or changes a game by design."""
    kind = next(key for key in update if key != "update_id")
    body = update[kind]
    chat = body.get("chat") if isinstance(body, dict) else None
    if not isinstance(chat, dict) or kind == "my_chat_member":
        return None
    if any(key in body for key in GAME_CHANGES):
        return None
    return fresh(replace_chat(update, chat.get("id")))


def replace_chat(value: Any, chat_id: Any) -> Any:
    if isinstance(value, list):
        return [replace_chat(item, chat_id) for item in value]
    if not isinstance(value, dict):
        return value
    moved = {key: replace_chat(item, chat_id) for key, item in value.items()}
    chat = value.get("chat")
    if isinstance(chat, dict) and chat.get("id") == chat_id:
        moved["chat"] = dict(GROUP_CHAT)
    return moved


def cancel(room: Room) -> Outcome:
    room.status = "cancelled"
    return Outcome(changed=True)


def open_room(hook: Hook) -> Room:
    """A new lobby in the group, opened by Ana (any room there before cancelled)."""
    old = hook.store().room_in_chat(GROUP, None)
    if old is not None and old.status in ("lobby", "playing"):
        hook.store().update(old.id, cancel)
    assert hook.send(command("/burro", ANA, GROUP)).status_code == 200
    return hook.room(GROUP)


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Lines logged at ERROR or with a traceback."""
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def calls(hook: Hook) -> int:
    return len(hook.emu.calls())


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_hook(tmp_path_factory.mktemp("payloads"), rate_limits=False) as running:
        for user in (ANA, BEN):
            running.emu.start(user["first_name"])
            assert running.send(command("/start", user)).status_code == 200
        yield running


@pytest.fixture(scope="module")
def room(hook: Hook) -> Room:
    """The group's lobby, opened before any payload is posted."""
    return open_room(hook)


@pytest.mark.parametrize("entry", every_entry())
def test_every_update_is_answered_and_leaves_the_game_alone(
    hook: Hook, room: Room, entry: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    before = hook.room(GROUP)
    assert before.id == room.id
    posts = [fresh(entry["update"]), in_group(entry["update"])]
    with caplog.at_level(logging.INFO):
        for update in (u for u in posts if u is not None):
            answer = hook.send(update)
            assert answer.status_code == 200, (answer.text, update)
    assert not errors(caplog)
    after = hook.room(GROUP)
    assert (after.id, after.version, after.status) == (before.id, before.version, before.status)


def unparsed_count() -> float:
    value: float = metrics.UPDATES.labels("unparsed", "unparsed")._value.get()
    return value


def test_telegrams_own_examples_are_answered_200_and_logged_unparsed(
    hook: Hook, caplog: pytest.LogCaptureFixture
) -> None:
    """The Bot API's webhook examples (a `from` without `is_bot`: PTB cannot read them)
    got 400, which Telegram redelivers while holding the chat's later updates back."""
    examples = entries("telegram_webhooks_page.json")
    before, sent = unparsed_count(), calls(hook)
    with caplog.at_level(logging.INFO):
        answers = [hook.send(fresh(e["update"])) for e in examples]
    assert [(a.status_code, a.text) for a in answers] == [(200, "ok")] * len(examples)
    assert unparsed_count() - before == len(examples)
    unread = [r for r in caplog.records if "not readable" in r.getMessage()]
    assert len(unread) == len(examples)
    assert {r.levelno for r in unread} == {logging.WARNING}
    assert not errors(caplog)
    assert calls(hook) == sent  # nothing answered to an update nobody could read


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("message", "date"), "2017-10-22"),
        (("message", "from"), "FirstName"),
        (("message", "entities"), {"type": "bot_command"}),
        (("message", "chat", "id"), "12345678"),
        (("message", "text"), True),
    ],
)
def test_a_field_of_another_type_in_a_real_update_is_answered_200(
    hook: Hook, caplog: pytest.LogCaptureFixture, path: tuple[str, ...], value: object
) -> None:
    """Illemius/telegram_types' captured message with one field of a type Telegram does
    not send: 200 (read or not), no error, nothing said."""
    update = one("illemius_telegram_types.json", "res/message.json")
    *parents, last = path
    field = update
    for key in parents:
        field = field[key]
    field[last] = value
    sent = calls(hook)
    with caplog.at_level(logging.INFO):
        answer = hook.send(fresh(update))
    assert (answer.status_code, errors(caplog)) == (200, [])
    assert calls(hook) == sent


def test_an_update_of_a_kind_ptb_does_not_know_is_answered_200(hook: Hook) -> None:
    """teloxide's `new_update_kind` and Bot API 10.x's `subscription` (aiogram's shape),
    unknown to PTB 22.8: 200, nothing said."""
    sent = calls(hook)
    for update in (
        one("teloxide.json", "(new_update_kind_error)"),
        one("aiogram.json", "test_listen_update[subscription]"),
    ):
        assert hook.send(fresh(update)).status_code == 200
    assert calls(hook) == sent


def test_only_a_body_that_is_no_update_gets_400(hook: Hook) -> None:
    """Acceptance is not coupled to PTB's idea of required fields: only a body that is
    no JSON object with an integer update_id is refused."""
    update = one("telegram_webhooks_page.json", "Callback query")
    assert hook.send(fresh(update)).status_code == 200
    assert hook.send({**update, "update_id": "10000"}).status_code == 400
    headers = {"X-Telegram-Bot-Api-Secret-Token": "wrong"}
    refused = hook.http.post(f"{hook.url}/telegram/webhook", json=update, headers=headers)
    assert refused.status_code == 403


def lobby_press(room: Room, user: dict[str, Any], token: str) -> dict[str, Any]:
    """aiogram's callback query with a message, as a press of the group's lobby button
    `token` by `user`."""
    update = one("aiogram.json", "test_listen_update[callback_query], with a message")
    query = update["callback_query"]
    query.update(data=callbacks.encode(room.id, room.version, token), **{"from": user})
    query["message"].update(chat=dict(GROUP_CHAT), **{"from": BOT})
    return fresh(update)


def test_a_press_delivered_again_is_answered_again_with_the_same_text(hook: Hook) -> None:
    """A redelivered press was answered "duplicate" without answerCallbackQuery: the
    spinner ran exactly when the first answer had been lost."""
    room = open_room(hook)
    update = lobby_press(room, BEN, "S")  # Ben may not start Ana's table
    first, second = hook.send(update), hook.send(update)
    assert first.status_code == second.status_code == 200
    assert first.json()["method"] == "answerCallbackQuery"
    assert first.json().get("text")
    assert second.json() == first.json()
    assert hook.room(GROUP).version == room.version


def test_a_press_answered_with_a_link_delivered_again_gets_the_link_again(hook: Hook) -> None:
    """Carla, who never opened the private chat, taps Join on a Bot API without
    ephemeral messages: the answer is a link to it. Delivered again, the answer must be
    the same link, or she is left where she was. (With them, she is seated from the
    group: the same popup again.)"""
    for ephemeral in (False, True):
        botfather.record_ephemeral(hook.redis, ephemeral)
        room = open_room(hook)
        update = lobby_press(room, CARLA, "J")
        first, second = hook.send(update), hook.send(update)
        assert ("url" in first.json()) is not ephemeral
        assert second.json() == first.json()


def test_a_move_delivered_again_is_answered_again(hook: Hook) -> None:
    """A card tap (read from its JSON alone, queued for a worker) delivered again: the
    first answer again, so the spinner stops, and the move queued once."""
    room = open_room(hook)
    assert hook.send(lobby_press(room, BEN, "J")).status_code == 200
    assert hook.send(lobby_press(hook.room(GROUP), ANA, "S")).status_code == 200
    playing = hook.room(GROUP)
    assert isinstance(playing.game, GameState)
    seat = to_move(playing.game)
    assert seat is not None
    mover = ANA if playing.seats[seat].user_id == ANA["id"] else BEN
    token = callbacks.game_token(legal_actions(playing.game, seat)[0])
    update = lobby_press(playing, mover, token)
    queued = len(Queue(QUEUE, connection=hook.redis))
    first, second = hook.send(update), hook.send(update)
    expected = {"method": "answerCallbackQuery", "callback_query_id": "query id"}
    assert first.json() == second.json() == expected
    assert len(Queue(QUEUE, connection=hook.redis)) == queued + 1


def edited_command(text: str, user: dict[str, Any]) -> dict[str, Any]:
    """The edited message captured in Illemius/telegram_types, now `text` by `user` in
    the group."""
    update = one("illemius_telegram_types.json", "res/edited_message.json")
    edited = update["edited_message"]
    edited.update(chat=dict(GROUP_CHAT), text=text, **{"from": user})
    edited["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
    return fresh(update)


@pytest.mark.parametrize("text", ["/cancel", "/burro"])
def test_an_edited_message_never_runs_a_command(hook: Hook, text: str) -> None:
    room = open_room(hook)
    sent = calls(hook)
    answer = hook.send(edited_command(text, ANA))
    assert answer.status_code == 200
    after = hook.room(GROUP)
    assert (after.id, after.version, after.status) == (room.id, room.version, room.status)
    assert calls(hook) == sent  # nothing said


def test_the_same_words_in_a_new_message_are_answered(hook: Hook) -> None:
    """The control: the edited shape as a new message is a command, answered (so the
    test above tells an edit apart, not a message we could not read)."""
    open_room(hook)
    sent = calls(hook)
    update = edited_command("/cancel", ANA)
    update["message"] = update.pop("edited_message")
    del update["message"]["edit_date"]
    assert hook.send(update).status_code == 200
    assert calls(hook) > sent


def test_a_reply_to_a_chat_that_does_not_exist_is_a_warning(
    hook: Hook, caplog: pytest.LogCaptureFixture
) -> None:
    """Illemius/telegram_types' captured private message, asking /help: its chat is not
    one the local Telegram knows, so the reply is refused ("Bad Request: chat not
    found"): one warning line, no error with a traceback."""
    update = one("illemius_telegram_types.json", "res/message.json")
    update["message"]["text"] = "/help"
    update["message"]["entities"] = [{"type": "bot_command", "offset": 0, "length": 5}]
    with caplog.at_level(logging.INFO):
        assert hook.send(fresh(update)).status_code == 200
    ours = [r for r in caplog.records if r.name in ("burro.serve", "burro.desk")]
    refused = [r for r in ours if "chat not found" in r.getMessage().lower()]
    assert [r.levelno for r in refused] == [logging.WARNING]
    assert not errors(caplog)


@pytest.mark.parametrize("title", [True, 7, None, ["Family"]])
def test_a_group_title_of_another_type_is_answered_200(
    hook: Hook, caplog: pytest.LogCaptureFixture, title: object
) -> None:
    """A group's title that is no text (the fuzzer's `"title": true`): the table keeps
    its name, the update is answered, nothing is logged as an error."""
    open_room(hook)
    update = command("/help", ANA, GROUP)
    update["message"]["chat"]["title"] = title
    with caplog.at_level(logging.INFO):
        answer = hook.send(update)
    assert (answer.status_code, errors(caplog)) == (200, [])
