"""Ephemeral messages (Bot API 10.4): a group message one member sees, answering their
press or their ephemeral command; its own ids, edits and deletes; shown in place of the
pressed message when asked; lost to an offline app and after its restart; refused where
the references say Telegram refuses it (and, where they are silent, the stricter way)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from emulator import RunningEmulator, running_emulator
from emulator.config import fast_config
from emulator.telegram.driver import ChatMessage, EmulatorError
from emulator.telegram.errors import QUERY_TOO_OLD
from tests.emulator.conftest import BotApiClient

FAMILY = -1001000000001
ANA, BEN = 100001, 100002
MENU = {"inline_keyboard": [[{"text": "🃏 My cards", "callback_data": "hand"}]]}
HAND = {"inline_keyboard": [[{"text": "7♠", "callback_data": "play:7S"}]]}


def table(api: BotApiClient, emu: RunningEmulator) -> ChatMessage:
    api.ok("sendMessage", chat_id=FAMILY, text="The table", reply_markup=MENU)
    return emu.wait_for_message("Family", "The table")


def press(emu: RunningEmulator, user: str, message: ChatMessage, button: str = "hand") -> str:
    query_id = emu.tap(user, message, button, wait=False).query_id
    assert query_id is not None
    return query_id


def hand_for(api: BotApiClient, query_id: str, **extra: Any) -> dict[str, Any]:
    """An ephemeral answer to a press, naming only the press (10.4)."""
    parameters = {"callback_query_id": query_id, **extra}
    sent: dict[str, Any] = api.ok(
        "sendMessage", text="Your hand", reply_markup=HAND, ephemeral_message_parameters=parameters
    )
    return sent


def test_an_answer_to_a_press_is_seen_by_the_presser_alone(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    shown = table(api, emu)
    seq = emu.last_seq()
    sent = hand_for(api, press(emu, "Ben", shown))
    assert sent["message_id"] == 0 and sent["ephemeral_message_id"] >= 1
    assert sent["receiver_user"]["id"] == BEN and sent["chat"]["id"] == FAMILY
    hand = emu.wait_for_ephemeral("Ben", "Family", "Your hand")
    assert hand.ephemeral_message_id == sent["ephemeral_message_id"]
    assert emu.ephemeral_messages("Ana", "Family") == []
    assert all(m.text != "Your hand" for m in emu.messages_in("Family"))
    assert [n["user_id"] for n in emu.notifications(since=seq)] == [BEN]


def test_in_place_of_the_pressed_message_for_the_presser_only(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    shown = table(api, emu)
    api.ok("sendMessage", chat_id=FAMILY, text="Later news")
    hand_for(api, press(emu, "Ben", shown), replace_callback_query_message=True)
    assert [m.text for m in emu.messages_in("Family", user="Ben")] == ["Your hand", "Later news"]
    assert [m.text for m in emu.messages_in("Family", user="Ana")] == ["The table", "Later news"]


def test_edits_and_deletes_by_its_own_id(emu: RunningEmulator, api: BotApiClient) -> None:
    sent = hand_for(api, press(emu, "Ben", table(api, emu)))
    names = {"chat_id": FAMILY, "receiver_user_id": BEN}
    named = {**names, "ephemeral_message_id": sent["ephemeral_message_id"]}
    assert api.ok("editEphemeralMessageText", **named, text="Your hand, now", reply_markup=HAND)
    emu.wait_for_ephemeral("Ben", "Family", "Your hand, now")
    assert api.ok("editEphemeralMessageReplyMarkup", **named) is True
    assert emu.ephemeral_messages("Ben", "Family")[0].buttons == ()
    not_his = {**named, "receiver_user_id": ANA}
    assert api.error("editEphemeralMessageText", **not_his, text="x") == (
        400,
        "Bad Request: message to edit not found",
    )
    assert api.ok("deleteEphemeralMessage", **named) is True
    assert emu.ephemeral_messages("Ben", "Family") == []
    assert api.error("deleteEphemeralMessage", **named) == (
        400,
        "Bad Request: message to delete not found",
    )


def test_a_press_on_an_ephemeral_message_is_its_receivers(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    hand_for(api, press(emu, "Ben", table(api, emu)))
    hand = emu.wait_for_ephemeral("Ben", "Family", "Your hand")
    query_id = press(emu, "Ben", hand, "play:7S")
    update = next(u for u in reversed(emu.updates()) if "callback_query" in u)
    message = update["callback_query"]["message"]
    assert (message["message_id"], message["ephemeral_message_id"]) == (
        0,
        hand.ephemeral_message_id,
    )
    with pytest.raises(EmulatorError, match="does not see"):
        emu.tap("Ana", hand, "play:7S", wait=False)
    # a press on an ephemeral message is answered by editing it, never in its place
    assert api.error(
        "sendMessage",
        text="again",
        ephemeral_message_parameters={
            "callback_query_id": query_id,
            "replace_callback_query_message": True,
        },
    )[1].startswith("Bad Request: replace_callback_query_message must be False")


def test_refused_where_telegram_refuses_and_where_the_references_are_silent(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    emu.start("Ana")
    query_id = press(emu, "Ben", table(api, emu))

    def refusal(**parameters: Any) -> str:
        chat = parameters.pop("chat_id", FAMILY)
        body = {"chat_id": chat, "text": "hi", "ephemeral_message_parameters": parameters}
        return api.error("sendMessage", **body)[1].removeprefix("Bad Request: ")

    assert refusal(chat_id=ANA, receiver_user_id=ANA) == (
        "ephemeral messages can't be sent to private chats"
    )
    assert refusal(receiver_user_id=100099, callback_query_id=query_id) == "USER_NOT_PARTICIPANT"
    assert refusal(receiver_user_id=ANA).startswith("an ephemeral message must answer")
    assert refusal(receiver_user_id=ANA, callback_query_id=query_id) == "USER_ID_INVALID"
    assert refusal(callback_query_id="nonsense") == QUERY_TOO_OLD
    assert refusal(receiver_user_id=ANA, replace_callback_query_message=True).startswith(
        "replace_callback_query_message needs"
    )
    login = {"inline_keyboard": [[{"text": "In", "login_url": {"url": "https://e.org"}}]]}
    assert api.error(
        "sendMessage",
        text="hi",
        reply_markup=login,
        ephemeral_message_parameters={"callback_query_id": query_id},
    )[1] == ("Bad Request: BUTTON_TYPE_INVALID")
    hand_for(api, query_id)
    assert refusal(callback_query_id=query_id) == "QUERY_ID_INVALID"  # one answer a press


@pytest.fixture
def slow_emu() -> Iterator[RunningEmulator]:
    """An emulator where every press and ephemeral message is past its 15 seconds."""
    with running_emulator(fast_config(answer_timeout=-1.0)) as running:
        yield running


def test_a_press_older_than_15_seconds_gets_no_ephemeral_answer(
    slow_emu: RunningEmulator,
) -> None:
    api = BotApiClient(slow_emu.url)
    query_id = press(slow_emu, "Ben", table(api, slow_emu))
    body = {"text": "late", "ephemeral_message_parameters": {"callback_query_id": query_id}}
    assert api.error("sendMessage", **body) == (400, f"Bad Request: {QUERY_TOO_OLD}")
    api.close()


def test_an_offline_app_misses_it_and_a_restarted_one_loses_it(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    shown = table(api, emu)
    emu.set_online("Ben", False)
    hand_for(api, press(emu, "Ben", shown))  # Telegram accepts it: delivery not guaranteed
    emu.set_online("Ben", True)
    assert emu.ephemeral_messages("Ben", "Family") == []
    sent = hand_for(api, press(emu, "Ben", shown))
    emu.wait_for_ephemeral("Ben", "Family", "Your hand")
    assert emu.restart_app("Ben") == 1
    assert emu.ephemeral_messages("Ben", "Family") == []
    named = {"chat_id": FAMILY, "receiver_user_id": BEN}
    assert api.ok(
        "editEphemeralMessageText",
        **named,
        ephemeral_message_id=sent["ephemeral_message_id"],
        text="Still here?",
    )  # the bot is none the wiser
    assert emu.ephemeral_messages("Ben", "Family") == []


def ephemeral_hand_command(api: BotApiClient) -> None:
    command = {"command": "hand", "description": "My cards", "is_ephemeral": True}
    api.ok("setMyCommands", commands=[command], scope={"type": "all_group_chats"})


def test_an_ephemeral_command_is_answered_ephemerally(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    ephemeral_hand_command(api)
    assert api.ok("getMyCommands", scope={"type": "all_group_chats"})[0]["is_ephemeral"] is True
    emu.send_message("Ana", "Family", "/hand")
    update = emu.wait_for(
        lambda: next((u for u in emu.updates() if "message" in u), None), what="the command"
    )
    command = update["message"]
    assert command["message_id"] == 0 and command["text"] == "/hand"
    assert [m.text for m in emu.ephemeral_messages("Ana", "Family")] == ["/hand"]
    assert emu.ephemeral_messages("Ben", "Family") == []
    assert emu.messages_in("Family") == []
    reply = {"ephemeral_message_id": command["ephemeral_message_id"]}
    assert api.error("sendMessage", chat_id=FAMILY, text="cards", reply_parameters=reply)[1] == (
        "Bad Request: a reply to an ephemeral message must be an ephemeral message"
    )
    answer = api.ok(
        "sendMessage",
        chat_id=FAMILY,
        text="Your cards",
        reply_parameters=reply,
        ephemeral_message_parameters={"receiver_user_id": ANA},
    )
    assert answer["receiver_user"]["id"] == ANA
    assert [m.text for m in emu.ephemeral_messages("Ana", "Family")] == ["/hand", "Your cards"]


def test_an_ephemeral_command_older_than_15_seconds_gets_no_reply(
    slow_emu: RunningEmulator,
) -> None:
    api = BotApiClient(slow_emu.url)
    ephemeral_hand_command(api)
    slow_emu.send_message("Ana", "Family", "/hand")
    update = slow_emu.wait_for(
        lambda: next((u for u in slow_emu.updates() if "message" in u), None), what="command"
    )
    assert api.error(
        "sendMessage",
        chat_id=FAMILY,
        text="late",
        reply_parameters={"ephemeral_message_id": update["message"]["ephemeral_message_id"]},
        ephemeral_message_parameters={"receiver_user_id": ANA},
    ) == (400, "Bad Request: message to be replied not found")
    api.close()


@pytest.mark.telegram_ignores
def test_the_10_2_receiver_parameter_is_unknown_and_the_message_public(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    sent = api.ok("sendMessage", chat_id=FAMILY, text="for Ben?", receiver_user_id=BEN)
    assert sent["message_id"] > 0 and "receiver_user" not in sent
    assert [(p["parameter"], p["problem"]) for p in emu.unknown_parameters()] == [
        ("receiver_user_id", "unknown")
    ]


def test_a_document_is_replaced_by_a_new_upload(emu: RunningEmulator, api: BotApiClient) -> None:
    query_id = press(emu, "Ben", table(api, emu))
    parameters = json.dumps({"callback_query_id": query_id})
    files = {"document": ("hand.txt", b"7 of spades", "text/plain")}
    sent = api.http.post(
        "sendDocument", data={"ephemeral_message_parameters": parameters}, files=files
    ).json()["result"]
    media = {"type": "document", "media": "attach://new_hand", "caption": "Played"}
    edit = {
        "chat_id": str(FAMILY),
        "receiver_user_id": str(BEN),
        "ephemeral_message_id": str(sent["ephemeral_message_id"]),
        "media": json.dumps(media),
    }
    upload = {"new_hand": ("hand2.txt", b"no cards left", "text/plain")}
    answer = api.http.post("editEphemeralMessageMedia", data=edit, files=upload).json()
    assert answer == {"ok": True, "result": True}
    shown = emu.wait_for_ephemeral("Ben", "Family", "Played")
    assert shown.document is not None and shown.document["file_name"] == "hand2.txt"
    photo = {**media, "type": "photo"}
    refused = api.http.post("editEphemeralMessageMedia", data={**edit, "media": json.dumps(photo)})
    assert refused.json()["error_code"] == 501
