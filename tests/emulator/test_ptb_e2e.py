"""A tiny real python-telegram-bot application, run by webhook through the emulator."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from emulator import EmulatorConfig, FloodLimits, RunningEmulator, running_emulator
from tests.emulator.conftest import TOKEN
from tests.emulator.ptb_bot import BotRecord, running_bot

# PTB 22 warns that RetryAfter.retry_after will become a timedelta; the bot handles both.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.fixture
def bot(emu: RunningEmulator) -> Iterator[BotRecord]:
    with running_bot(emu.api_url, TOKEN) as record:
        emu.wait_for(lambda: emu.webhook_info()["url"], what="the bot's setWebhook")
        emu.bot_settings(inline_mode=True, inline_feedback=100)  # its "Hand" button needs them
        yield record


def test_command_keyboard_callback_answer_and_edit(emu: RunningEmulator, bot: BotRecord) -> None:
    emu.start("Ana", "join-42")
    hello = emu.wait_for_message("Ana", "Hello Ana")
    assert hello.text == "Hello Ana! payload=join-42"
    assert hello.raw["entities"] == [{"type": "bold", "offset": 6, "length": 3}]
    assert hello.button_texts == ["Play 1", "Hand", "Alert"]

    tapped = emu.tap("Ana", hello, "Play 1")
    assert tapped.answer is not None and tapped.answer.text == "Played 1"
    assert not tapped.answer.show_alert
    edited = emu.wait_for_message("Ana", lambda m: m.text == "Played 1")
    assert edited.message_id == hello.message_id and edited.edited
    assert edited.button_texts == ["Play 2", "Hand", "Alert"]
    assert edited.edits[0]["text"] == "Hello Ana! payload=join-42"

    alert = emu.tap("Ana", edited, "alert")  # by callback_data
    assert alert.answer is not None and alert.answer.show_alert and alert.answer.text == "Careful!"
    assert [m.message_id for m in emu.messages_in("Ana")] == [1, 2]


def test_deep_link_starts_the_bot(emu: RunningEmulator, bot: BotRecord) -> None:
    opened = emu.open_link("Ben", "https://t.me/burro_bot?start=game-7")
    assert opened["kind"] == "start"
    assert emu.wait_for_message("Ben", "payload=game-7").sender_name == "Burro"


def test_inline_query_from_switch_button_and_inline_message_edit(
    emu: RunningEmulator, bot: BotRecord
) -> None:
    emu.start("Carla")
    hello = emu.wait_for_message("Carla", "Hello Carla")
    opened = emu.tap("Carla", hello, "Hand")
    assert opened.kind == "inline_query" and opened.inline_answer is not None
    assert [r.title for r in opened.inline_answer.results] == ["Ace of spades", "Seven of hearts"]
    assert opened.inline_answer.is_personal and opened.inline_answer.cache_time == 0

    # In the group: type "@burro_bot hand" and pick a result.
    answer = emu.inline_query("Ben", "Family", "hand")
    assert answer.results[0].description == "query: hand"
    sent = emu.choose_inline_result("Ben", answer, "Seven of hearts")
    assert sent.text == "Ben plays 7♥" and sent.via_bot == "burro_bot"
    assert sent.inline_message_id
    emu.wait_for(lambda: bot.chosen == ["7H"], what="chosen_inline_result")

    taken = emu.tap("Dan", sent, "Take")
    assert taken.answer is not None and taken.answer.text == "Taken"
    after = emu.wait_for_message("Family", lambda m: m.text == "Taken by Dan")
    assert after.message_id == sent.message_id and after.buttons == ()


def test_group_command_and_privacy_mode(emu: RunningEmulator, bot: BotRecord) -> None:
    emu.send_message("Dan", "Family", "just chatting")
    emu.send_message("Dan", "Family", "/start@burro_bot")
    emu.wait_for_message("Family", "Hello Dan")
    texts = [u["message"]["text"] for u in emu.updates() if "message" in u]
    assert texts == ["/start@burro_bot"]  # the plain message never reached the bot


def test_webhook_retry_after_a_500(emu: RunningEmulator, bot: BotRecord) -> None:
    bot.webhook_failures_left = 1
    emu.start("Ana")
    emu.wait_for_message("Ana", "Hello Ana")
    # The bot may answer before its 200 is back and the delivery written down.
    emu.wait_for(lambda: len(emu.deliveries()) >= 2 or None, what="the second delivery")
    attempts = [(d["attempt"], d["status"]) for d in emu.deliveries()]
    assert attempts == [(1, 500), (2, 200)]
    info = emu.webhook_info()
    assert (
        info["last_error_message"] == "Wrong response from the webhook: 500 Internal Server Error"
    )
    assert info["pending_update_count"] == 0


def test_document_upload(emu: RunningEmulator, bot: BotRecord) -> None:
    emu.start("Ana")
    emu.wait_for_message("Ana", "Hello")
    emu.send_message("Ana", "Ana", "/record")
    sent = emu.wait_for_message("Ana", lambda m: m.document is not None)
    assert sent.text == "The record"
    assert sent.document is not None and sent.document["file_name"] == "game.json"
    content = httpx.get(f"{emu.url}/_emulator/files/{sent.document['file_id']}", trust_env=False)
    assert content.content == b'{"format": "burro-record/1"}'


def test_429_is_honoured_by_the_bot() -> None:
    config = EmulatorConfig(
        flood_limits=FloodLimits(),
        webhook_retry_delay=0.05,
        inline_mode=True,  # "Hand" button
    )
    with running_emulator(config) as emu, running_bot(emu.api_url, TOKEN) as record:
        emu.wait_for(lambda: emu.webhook_info()["url"], what="the bot's setWebhook")
        emu.start("Ana")
        emu.wait_for_message("Ana", "Hello Ana")
        emu.send_message("Ana", "Ana", "/burst 4")
        emu.wait_for_message("Ana", lambda m: m.text == "burst 4", timeout=15)
        texts = [m.text for m in emu.messages_in("Ana") if m.text.startswith("burst")]
        assert texts == ["burst 1", "burst 2", "burst 3", "burst 4"]
        refused = [c for c in emu.calls("sendMessage") if not c["ok"]]
        assert refused and all(c["error_code"] == 429 for c in refused)
        assert record.retries and all(r >= 1 for r in record.retries)
        # Each refused message was sent again only after retry_after had passed.
        calls = emu.calls("sendMessage")
        for i, call in enumerate(calls):
            if not call["ok"]:
                retry = next(c for c in calls[i + 1 :] if c["params"] == call["params"])
                assert retry["time"] - call["time"] >= 0.95
        assert emu.unknown_parameters() == []  # python-telegram-bot sends only what Telegram reads
