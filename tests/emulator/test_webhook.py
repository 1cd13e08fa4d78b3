"""Update delivery: webhook POSTs with the secret header, retries, per-chat order,
getUpdates."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import Bot, Update

from emulator import RunningEmulator
from tests.emulator.conftest import TOKEN, BotApiClient, Receiver

ANA, FAMILY = 100001, -1001000000001


@pytest.fixture
def hooked(emu: RunningEmulator, api: BotApiClient, receiver: tuple[Receiver, str]) -> Receiver:
    hook, url = receiver
    api.ok("setWebhook", url=url, secret_token="sekrit")
    return hook


def test_updates_are_posted_with_the_secret_header(emu: RunningEmulator, hooked: Receiver) -> None:
    emu.start("Ana")
    emu.send_message("Ben", "Family", "/new@burro_bot 4")
    emu.wait_for(lambda: len(hooked.received) == 2, what="two deliveries")
    (first, headers), (second, _) = hooked.received
    assert headers["x-telegram-bot-api-secret-token"] == "sekrit"
    assert headers["content-type"] == "application/json"
    parsed = Update.de_json(second, Bot(TOKEN))
    assert parsed.message is not None and parsed.message.chat.type == "supergroup"
    assert parsed.message.text == "/new@burro_bot 4"
    assert parsed.message.entities[0].type == "bot_command"
    assert parsed.message.entities[0].length == len("/new@burro_bot")
    assert (
        parsed.message.from_user is not None and parsed.message.from_user.language_code == "pt-br"
    )
    assert second["update_id"] == first["update_id"] + 1


def test_a_failed_update_is_retried_and_holds_back_its_chat_only(
    emu: RunningEmulator, api: BotApiClient, hooked: Receiver
) -> None:
    hooked.statuses[ANA] = [500, 502]
    emu.start("Ana")
    emu.send_message("Ana", "Ana", "second")
    emu.send_message("Carla", "Family", "/go@burro_bot")
    emu.wait_for(lambda: len(hooked.received) >= 5, what="all deliveries")
    order = [(u.get("message") or {}).get("text") for u in hooked.updates]
    # Ana's first update is tried three times; her second waits behind it; the group's
    # update is not held up by Ana's chat.
    assert order.index("/go@burro_bot") < order.index("second")
    assert [t for t in order if t != "/go@burro_bot"] == ["/start", "/start", "/start", "second"]
    statuses = [(d["attempt"], d["status"]) for d in emu.deliveries()]
    assert (1, 500) in statuses and (2, 502) in statuses and (3, 200) in statuses
    info = api.ok("getWebhookInfo")
    assert info["pending_update_count"] == 0
    assert info["last_error_message"] == "Wrong response from the webhook: 502 Bad Gateway"


def test_an_unreachable_webhook_keeps_updates_pending(
    emu: RunningEmulator, api: BotApiClient, receiver: tuple[Receiver, str]
) -> None:
    api.ok("setWebhook", url="http://127.0.0.1:9/nobody-listens")
    emu.start("Ana")
    emu.wait_for(lambda: api.ok("getWebhookInfo").get("last_error_message"), what="a failure")
    assert api.ok("getWebhookInfo")["pending_update_count"] == 1
    hook, url = receiver
    api.ok("setWebhook", url=url)  # the service comes back: the update is delivered
    emu.wait_for(lambda: hook.updates, what="the delivery")
    assert hook.updates[0]["message"]["text"] == "/start"


def test_drop_pending_updates_and_allowed_updates(
    emu: RunningEmulator, api: BotApiClient, receiver: tuple[Receiver, str]
) -> None:
    emu.start("Ana")
    assert api.ok("getWebhookInfo")["pending_update_count"] == 1
    hook, url = receiver
    api.ok("setWebhook", url=url, drop_pending_updates=True, allowed_updates=["callback_query"])
    assert api.ok("getWebhookInfo")["pending_update_count"] == 0
    emu.send_message("Ana", "Ana", "not wanted")
    message = emu.last_message("Ana")
    assert message is not None
    api.ok(
        "sendMessage",
        chat_id=ANA,
        text="Go",
        reply_markup={"inline_keyboard": [[{"text": "Go", "callback_data": "go"}]]},
    )
    emu.tap("Ana", emu.messages_in("Ana")[-1], "Go", wait=False)
    emu.wait_for(lambda: hook.updates, what="the callback query")
    assert [next(k for k in u if k != "update_id") for u in hook.updates] == ["callback_query"]


def test_get_updates_when_no_webhook(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    emu.send_message("Ana", "Ana", "two")
    updates = api.ok("getUpdates")
    assert [u["message"]["text"] for u in updates] == ["/start", "two"]
    assert api.ok("getUpdates", offset=updates[1]["update_id"])[0]["message"]["text"] == "two"
    assert api.ok("getUpdates", offset=updates[1]["update_id"] + 1) == []
    api.ok("setWebhook", url="http://127.0.0.1:9/x")
    assert api.error("getUpdates") == (
        409,
        "Conflict: can't use getUpdates method while webhook is active; "
        "use deleteWebhook to delete the webhook first",
    )
    api.ok("deleteWebhook")
    assert api.ok("getWebhookInfo")["url"] == ""


def test_a_method_in_the_webhooks_answer_is_run(
    emu: RunningEmulator, api: BotApiClient, hooked: Receiver
) -> None:
    """As on Telegram: a 200 may carry one Bot API call, run as if the bot had made it."""

    def reply(update: dict[str, Any]) -> dict[str, Any] | None:
        query = update.get("callback_query")
        if query is None:
            return None
        return {"method": "answerCallbackQuery", "callback_query_id": query["id"], "text": "Hi"}

    hooked.reply = reply
    keyboard = {"inline_keyboard": [[{"text": "Go", "callback_data": "go"}]]}
    api.ok("sendMessage", chat_id=FAMILY, text="Pick", reply_markup=keyboard)
    tapped = emu.tap("Carla", emu.messages_in("Family")[-1], "Go", wait=False)
    assert tapped.query_id is not None
    answer = emu.callback_answer(tapped.query_id, timeout=5)
    assert answer.text == "Hi"
    call = next(c for c in emu.calls() if c["method"] == "answerCallbackQuery")
    assert call["via"] == "webhook" and call["ok"] is True
