"""What `serve` says itself: every update is answered once (a redelivered /help or
/start too), within the flood budget the outbox keeps in Redis; a spent budget or a 429
holds a reply back as a notice, never loses it; the Rules button posts to a chat at most
once per cooldown."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator.telegram.driver import ChatMessage
from service.infra.store import update_key
from service.infra.store.claims import BUSY
from service.platforms.telegram import callbacks, notices
from tests.service.inproc import ANA, CARLA, GROUP, Hook, command, press, running_hook

HELP = "Burro commands"
RULES = "Card order"


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_hook(tmp_path_factory.mktemp("replies"), rules_cooldown=3600) as running:
        for name in ("Ana", "Carla"):
            running.emu.start(name)
        yield running


@pytest.fixture(autouse=True)
def each_with_budget(hook: Hook) -> None:
    hook.fresh_budget()


def said(hook: Hook, chat: str | int, words: str) -> list[ChatMessage]:
    return [m for m in hook.emu.messages_in(chat) if words in m.text]


def test_a_redelivered_help_is_answered_once(hook: Hook) -> None:
    before = len(said(hook, "Carla", HELP))
    update = command("/help", CARLA)
    assert hook.send(update).status_code == 200
    assert hook.send(update).text == "duplicate"
    assert len(said(hook, "Carla", HELP)) == before + 1
    assert hook.redis.ttl(update_key(update["update_id"])) > 0  # the mark expires
    assert hook.store().claim(update["update_id"]) == "duplicate"


def test_a_redelivered_start_is_answered_once(hook: Hook) -> None:
    before = len(said(hook, "Carla", "Hi!"))
    update = command("/start", CARLA)
    for _ in range(3):
        assert hook.send(update).status_code == 200
    assert len(said(hook, "Carla", "Hi!")) == before + 1


def test_an_update_being_handled_is_asked_again_later(hook: Hook) -> None:
    update = command("/help", CARLA)
    before = len(said(hook, "Carla", HELP))
    assert hook.store().claim(update["update_id"]) == "claimed"  # another request has it
    assert hook.send(update).status_code == 503
    assert len(said(hook, "Carla", HELP)) == before
    hook.store().release(update["update_id"])  # that request failed: Telegram retries
    assert hook.send(update).status_code == 200
    assert len(said(hook, "Carla", HELP)) == before + 1


def test_a_reply_over_the_budget_waits_for_it_and_goes_out_once(hook: Hook) -> None:
    before = len(said(hook, "Carla", HELP))
    hook.redis.set(f"limit:chat:{CARLA['id']}", "9999999999")  # the chat's budget is spent
    assert hook.send(command("/help", CARLA)).status_code == 200
    assert len(said(hook, "Carla", HELP)) == before
    rt = hook.runtime()
    assert hook.run_jobs(rt, ("notice",)) == 1  # still spent: it waits again
    assert len(said(hook, "Carla", HELP)) == before
    hook.redis.delete(f"limit:chat:{CARLA['id']}")
    assert hook.run_jobs(rt, ("notice",)) == 1
    assert len(said(hook, "Carla", HELP)) == before + 1
    assert hook.run_jobs(rt, ("notice",)) == 0
    assert not list(hook.redis.scan_iter("notice:*"))


def test_a_reply_refused_with_429_is_sent_later(hook: Hook) -> None:
    before = len(said(hook, "Carla", HELP))
    hook.emu.inject_error("sendMessage", 429, retry_after=1)
    assert hook.send(command("/help", CARLA)).status_code == 200
    assert len(said(hook, "Carla", HELP)) == before
    hook.fresh_budget()  # the refused call took the chat's slot: the next is in a second
    assert hook.run_jobs(hook.runtime(), ("notice",)) == 1
    assert len(said(hook, "Carla", HELP)) == before + 1


def test_the_rules_button_posts_once_per_cooldown(hook: Hook) -> None:
    assert hook.send(command("/burro spanish", ANA, GROUP)).status_code == 200
    room = hook.room(GROUP)
    rules = callbacks.encode(room.id, room.version, "R")
    before = len(said(hook, "Family", RULES))
    hook.fresh_budget()  # opening the table may have said something to the group
    first = hook.send(press(ANA, rules, GROUP))
    assert first.status_code == 200
    assert len(said(hook, "Family", RULES)) == before + 1
    for _ in range(3):
        again = hook.send(press(ANA, rules, GROUP)).json()
        assert again["method"] == "answerCallbackQuery" and again["show_alert"] is True
        assert "rules" in again["text"]
    assert len(said(hook, "Family", RULES)) == before + 1
    assert 0 < hook.redis.ttl(f"cooldown:rules:{GROUP}:0") <= 3600


def test_a_chat_flooding_commands_cannot_grow_the_queue(
    hook: Hook, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notices, "MAX_WAITING", 2)
    before = len(said(hook, "Carla", HELP))
    hook.redis.set(f"limit:chat:{CARLA['id']}", "9999999999")  # the chat's budget is spent
    for _ in range(4):
        assert hook.send(command("/help", CARLA)).status_code == 200
    assert hook.redis.zcard(notices.waiting_key(CARLA["id"])) == 2  # two more were dropped
    rt = hook.runtime()
    for _ in range(2):  # one a second, as the budget allows
        hook.fresh_budget()
        hook.run_jobs(rt, ("notice",))
    assert len(said(hook, "Carla", HELP)) == before + 2
    assert hook.redis.zcard(notices.waiting_key(CARLA["id"])) == 0


def test_a_move_commits_its_dedupe_mark_with_itself(hook: Hook) -> None:
    """The mark is written, and the claim ended, in the move's own MULTI."""
    assert hook.send(command("/burro spanish", ANA, GROUP)).status_code == 200
    room = hook.room(GROUP)
    update = press(ANA, callbacks.encode(room.id, room.version, "B"), GROUP)  # add a bot
    first = hook.send(update)
    assert first.status_code == 200
    assert len(hook.room(GROUP).seats) == len(room.seats) + 1
    mark = update_key(update["update_id"])
    assert hook.redis.get(mark) not in (None, BUSY.encode())  # handled, no longer busy
    # Delivered again (Telegram did not get our answer): nothing is done twice, and the
    # press is answered again, with the same words, so its spinner stops
    again = hook.send(update).json()
    assert again["method"] == "answerCallbackQuery"
    assert again.get("text") == first.json().get("text") and again.get("text")
    assert len(hook.room(GROUP).seats) == len(room.seats) + 1
