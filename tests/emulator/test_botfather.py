"""BotFather's per-bot settings, with Telegram's defaults: inline mode off, inline
feedback off, privacy mode on; each changed through the control API."""

from __future__ import annotations

import json

import httpx
import pytest

from emulator import RunningEmulator
from emulator.telegram.driver import EmulatorError
from tests.emulator.conftest import TOKEN, BotApiClient

FAMILY = -1001000000001
SWITCH = {"inline_keyboard": [[{"text": "Cards", "switch_inline_query_current_chat": "g"}]]}
ARTICLE = {
    "type": "article",
    "id": "a1",
    "title": "Ace",
    "input_message_content": {"message_text": "a card"},
}


def test_a_new_bot_has_telegrams_defaults(emu: RunningEmulator, api: BotApiClient) -> None:
    me = api.ok("getMe")
    assert me["supports_inline_queries"] is False
    assert me["can_read_all_group_messages"] is False
    assert emu.bot_settings() == {
        "privacy_mode": True,
        "inline_mode": False,
        "inline_placeholder": "",
        "inline_feedback": 0,
    }
    (bot,) = emu.state()["bots"]  # what the web chat reads
    assert (bot["inline_mode"], bot["inline_feedback"], bot["privacy_mode"]) == (False, 0, True)


def test_without_inline_mode_no_query_reaches_the_bot_and_no_button_opens_it(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    with pytest.raises(EmulatorError, match="can't be used in inline mode"):
        emu.inline_query("Ana", "Family", "hand", timeout=1)
    assert not [u for u in emu.updates() if "inline_query" in u]
    refused = api.error("sendMessage", chat_id=FAMILY, text="x", reply_markup=SWITCH)
    assert refused == (400, "Bad Request: BUTTON_TYPE_INVALID")
    sent = api.ok("sendMessage", chat_id=FAMILY, text="x")
    edit = {"chat_id": FAMILY, "message_id": sent["message_id"], "reply_markup": SWITCH}
    assert api.error("editMessageReplyMarkup", **edit)[1] == "Bad Request: BUTTON_TYPE_INVALID"

    emu.bot_settings(inline_mode=True, inline_placeholder="g<room>")
    assert api.ok("getMe")["supports_inline_queries"] is True
    assert api.ok("editMessageReplyMarkup", **edit)["reply_markup"] == SWITCH


def choose(emu: RunningEmulator, api: BotApiClient) -> None:
    raw = httpx.post(
        f"{emu.url}/_emulator/inline_query",
        json={"user": "Dan", "chat": "Family", "query": "hand"},
        trust_env=False,
    ).json()["result"]
    api.ok("answerInlineQuery", inline_query_id=raw["query_id"], results=[ARTICLE])
    emu.choose_inline_result("Dan", raw["query_id"], "a1")


def chosen_updates(emu: RunningEmulator) -> list[dict[str, object]]:
    return [u for u in emu.updates() if "chosen_inline_result" in u]


def test_a_chosen_result_is_reported_only_with_inline_feedback(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    emu.bot_settings(inline_mode=True)
    choose(emu, api)
    assert chosen_updates(emu) == []
    assert emu.messages_in("Family")[-1].text == "a card"  # the message is sent all the same
    emu.bot_settings(inline_feedback=100)
    choose(emu, api)
    assert len(chosen_updates(emu)) == 1
    with pytest.raises(EmulatorError, match="percentage"):
        emu.bot_settings(inline_feedback=101)


def group_texts(emu: RunningEmulator) -> list[str]:
    return [u["message"]["text"] for u in emu.updates() if "message" in u]


def test_privacy_mode_lets_through_commands_mentions_and_replies_only(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    said = api.ok("sendMessage", chat_id=FAMILY, text="I am the bot")
    emu.send_message("Ana", "Family", "just chatting")
    emu.send_message("Ana", "Family", "/burro")
    emu.send_message("Ana", "Family", "/burro@other_bot")
    emu.send_message("Ana", "Family", "hey @burro_bot, deal")
    emu.send_message("Ana", "Family", "hey @someone_else")
    emu.send_message("Ana", "Family", "a reply", reply_to=said["message_id"])
    assert group_texts(emu) == ["/burro", "hey @burro_bot, deal", "a reply"]

    emu.bot_settings(privacy_mode=False)  # BotFather: /setprivacy Disable
    assert api.ok("getMe")["can_read_all_group_messages"] is True
    emu.send_message("Ana", "Family", "now it reads all")
    assert group_texts(emu)[-1] == "now it reads all"


def test_an_admin_bot_reads_every_group_message(emu: RunningEmulator) -> None:
    bot_id = int(TOKEN.partition(":")[0])
    BotApiClient(emu.url).ok("getMe")
    # No control call promotes a bot; the test sets the status as a group admin would.
    emu.emulator.world.chats[FAMILY].members[bot_id] = "administrator"
    emu.send_message("Ana", "Family", "just chatting")
    assert group_texts(emu) == ["just chatting"]


def test_a_change_reaches_the_web_chats_events_stream(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    """The web chat's Server-Sent Events: a setting changed is a `world` event."""
    api.ok("getMe")
    with httpx.stream("GET", f"{emu.url}/_emulator/events", timeout=5) as stream:
        lines = stream.iter_lines()
        assert next(lines).startswith("retry:")
        emu.bot_settings(inline_placeholder="tap 🃏 My cards")
        event = next(json.loads(line[5:]) for line in lines if line.startswith("data:"))
        assert event == {"type": "world"}
