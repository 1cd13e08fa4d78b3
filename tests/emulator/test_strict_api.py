"""The emulator against Telegram's recorded behaviour: the reference's methods,
parameters and sizes (emulator/telegram/api_table.json), the refusals Telegram's Bot API server
gives in its own words (tdlib/telegram-bot-api's Client.cpp at 01a3679, May 2026, and
tdlib's JsonBuilder), and the record of what Telegram would silently ignore or misread,
which fails the test that caused it (tests/conftest.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from emulator import RunningEmulator
from emulator.app import Emulator
from emulator.telegram import api_table, validation
from emulator.telegram.errors import QUERY_TOO_OLD, ApiError
from emulator.telegram.params import Params
from tests.emulator.conftest import TOKEN, BotApiClient, Receiver
from tools import api_table as generator

ANA = 100001
ROOT = Path(__file__).resolve().parents[2]
REFERENCE = generator.DEFAULT_SOURCE
DELTA = generator.DEFAULT_DELTA
BUTTON = {"text": "Go", "callback_data": "go"}


def keyboard(count: int, per_row: int = 8) -> dict[str, Any]:
    buttons = [{"text": str(i), "callback_data": str(i)} for i in range(count)]
    return {"inline_keyboard": [buttons[i : i + per_row] for i in range(0, count, per_row)]}


# ----- the table ------------------------------------------------------------------


@pytest.mark.skipif(not REFERENCE.exists(), reason=f"no Bot API reference at {REFERENCE}")
def test_the_committed_table_is_the_generators_output(tmp_path: Path) -> None:
    out = tmp_path / "api_table.json"
    generator.main(["--declarations", str(REFERENCE), "--delta", str(DELTA), "--out", str(out)])
    assert out.read_text() == api_table.TABLE.read_text()
    licence = api_table.TABLE.with_suffix(".LICENSE").read_text()
    assert out.with_suffix(".LICENSE").read_text() == licence
    for holder in ("KnorpelSenf", "Paul Larsen", "Alex Root Junior"):
        assert holder in licence


def test_the_table_is_bot_api_10_4() -> None:
    table = json.loads(api_table.TABLE.read_text())
    assert table["version"] == "Bot API 10.4"
    send = api_table.method("sendMessage")
    assert send is not None and "ephemeral_message_parameters" in send.params
    assert not send.knows("receiver_user_id") and not send.knows("callback_query_id")
    assert send.required_unless == {"chat_id": "ephemeral_message_parameters.callback_query_id"}
    for name in ("editEphemeralMessageText", "deleteEphemeralMessage", "sendWidget"):
        assert api_table.method(name) is not None, name
    ephemeral = api_table.object_type("EphemeralMessageParameters")
    assert ephemeral is not None
    assert ephemeral.fields == {"receiver_user_id", "callback_query_id",
                                "replace_callback_query_message"}  # fmt: skip
    command = api_table.object_type("BotCommand")
    assert command is not None and "is_ephemeral" in command.fields
    location = api_table.method("sendLocation")
    assert location is not None and location.params["latitude"].scalar == "Float"


def test_every_emulated_method_is_a_bot_api_method() -> None:
    for name in Emulator().api.methods:
        assert api_table.method(name) is not None, name


def test_sizes_are_the_references() -> None:
    # Telegram's limits as the reference states them and bots meet them.
    assert validation.MAX_TEXT == 4096
    assert validation.MAX_CAPTION == 1024
    assert validation.MAX_CALLBACK_DATA_BYTES == 64
    assert validation.MAX_CALLBACK_ANSWER == 200
    assert validation.MAX_SECRET_TOKEN == 256
    assert api_table.size("InputTextMessageContent", "message_text") == (1, 4096)
    with pytest.raises(KeyError):
        api_table.size("sendMessage", "chat_id")


def test_the_table_knows_parameters_types_and_unions() -> None:
    send = api_table.method("SENDMESSAGE")
    assert send is not None and send.name == "sendMessage"
    assert [param.name for param in send.required] == ["text"]  # chat_id: see required_unless
    assert send.params["disable_notification"].scalar == "Boolean"
    assert send.params["chat_id"].scalar is None  # Integer or String
    assert send.knows("reply_to_message_id")  # no longer documented, still read
    assert not send.knows("disable_notifcation")
    result = api_table.object_type("InlineQueryResult")
    assert result is not None and {"title", "photo_url", "input_message_content"} <= result.fields
    assert api_table.element_types(("Array of Array of InlineKeyboardButton",)) == (
        ["InlineKeyboardButton"],
        2,
    )
    assert api_table.element_types(("InputFile", "String")) == ([], 0)


# ----- methods ----------------------------------------------------------------------


def test_an_unknown_method_is_not_found(api: BotApiClient) -> None:
    response = api.http.post("sendMesage", json={"chat_id": ANA, "text": "hi"})
    assert response.status_code == 404
    assert response.json() == {"ok": False, "error_code": 404, "description": "Not Found"}


def test_a_bot_api_method_the_emulator_lacks_says_so(api: BotApiClient) -> None:
    code, text = api.error("sendPhoto", chat_id=ANA, photo="AgAD")
    assert (code, text) == (501, "Not Implemented: the emulator has no sendPhoto")


# ----- missing parameters, in Telegram's order and words ---------------------------

MISSING = [
    ("sendMessage", {}, "message text is empty"),
    ("sendMessage", {"chat_id": ANA}, "message text is empty"),
    ("sendMessage", {"text": "hi"}, "chat_id is empty"),
    ("sendMessage", {"chat_id": "", "text": "hi"}, "chat_id is empty"),
    ("sendDocument", {"chat_id": ANA}, "there is no document in the request"),
    ("sendChatAction", {"chat_id": ANA}, "wrong parameter action in request"),
    ("sendChatAction", {"action": "typing"}, "chat_id is empty"),
    ("editMessageText", {"chat_id": ANA, "message_id": 1}, "message text is empty"),
    ("deleteMessage", {"message_id": 1}, "chat identifier is not specified"),
    ("deleteMessage", {"chat_id": ANA}, "message identifier is not specified"),
    ("deleteMessages", {"chat_id": ANA}, "message identifiers are not specified"),
    ("deleteMessages", {"message_ids": [1]}, "chat_id is empty"),
    ("answerCallbackQuery", {"text": "hi"}, QUERY_TOO_OLD),
    ("answerInlineQuery", {"results": []}, QUERY_TOO_OLD),
    ("getChat", {}, "chat_id is empty"),
    ("getChatMember", {"chat_id": ANA}, "invalid user_id specified"),
    ("getChatMemberCount", {}, "chat_id is empty"),
    ("getFile", {}, "file_id not specified"),
]


@pytest.mark.parametrize(("method", "params", "expected"), MISSING)
def test_a_missing_parameter_is_refused_in_telegrams_words(
    api: BotApiClient, method: str, params: dict[str, Any], expected: str
) -> None:
    assert api.error(method, **params) == (400, f"Bad Request: {expected}")


def test_other_required_parameters_get_telegrams_generic_words() -> None:
    poll = api_table.method("sendPoll")
    assert poll is not None
    with pytest.raises(ApiError) as refused:
        validation.require(poll, Params({"chat_id": ANA, "question": "Tea?"}))
    assert refused.value.description == 'Bad Request: parameter "options" is required'
    with pytest.raises(ApiError) as refused:
        validation.require(poll, Params({"question": "Tea?"}))
    assert refused.value.description == "Bad Request: chat_id is empty"


def test_required_parameters_telegram_does_without(api: BotApiClient) -> None:
    assert api.ok("setWebhook") is True  # no url: the webhook is deleted
    assert api.ok("setMyCommands") is True  # no commands: the list is cleared


# ----- values of the wrong type ---------------------------------------------------


def test_wrong_types_telegram_refuses(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    assert api.error("sendMessage", chat_id="Ana", text="hi") == (
        400,
        "Bad Request: chat not found",
    )
    broken = api.form("sendMessage", chat_id=str(ANA), text="hi", reply_markup="{")
    assert broken["description"] == "Bad Request: can't parse reply keyboard markup JSON object"
    assert api.error("sendMessage", chat_id=ANA, text="hi", reply_markup=[BUTTON]) == (
        400,
        "Bad Request: can't parse reply keyboard markup JSON object",
    )
    for button, detail in (
        ({"text": True, "callback_data": "go"}, 'Field "text" must be of type String'),
        ({"callback_data": "go"}, 'Can\'t find field "text"'),
        ({"text": "Go", "callback_data": ""}, "Text buttons are unallowed in the inline keyboard"),
    ):
        markup = {"inline_keyboard": [[button]]}
        assert api.error("sendMessage", chat_id=ANA, text="hi", reply_markup=markup)[1] == (
            f"Bad Request: can't parse inline keyboard button: {detail}"
        )
    numbers = {"inline_keyboard": [[{"text": 5, "callback_data": 42}]]}  # read as strings
    sent = api.ok("sendMessage", chat_id=ANA, text="hi", reply_markup=numbers)
    assert sent["reply_markup"] == {"inline_keyboard": [[{"text": "5", "callback_data": "42"}]]}
    unsent = api.form("sendMessage", chat_id=str(ANA), text="hi", reply_parameters="[")
    assert unsent["description"] == "Bad Request: can't parse reply parameters JSON object"


@pytest.mark.telegram_ignores
def test_wrong_types_telegram_misreads_are_answered_as_telegram_does_and_recorded(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    emu.start("Ana")
    flags = {"disable_notification": "maybe"}
    sent = api.form("sendMessage", chat_id=str(ANA), text="<b>hi</b>", entities="[{", **flags)
    assert sent["ok"] and sent["result"]["text"] == "<b>hi</b>"  # broken entities: dropped
    message_id = sent["result"]["message_id"]
    edit = {"chat_id": ANA, "message_id": f"{message_id}th", "text": "edited"}
    assert api.ok("editMessageText", **edit)["text"] == "edited"  # its leading digits count
    assert api.error("editMessageText", **{**edit, "message_id": "last", "text": "again"}) == (
        400,
        "Bad Request: message to edit not found",  # "last" reads as 0
    )
    assert [(r["method"], r["parameter"], r["problem"]) for r in emu.unknown_parameters()] == [
        ("sendMessage", "entities", "not JSON (Telegram drops the entities)"),
        ("sendMessage", "disable_notification", "'maybe' is not a Boolean (Telegram reads false)"),
        ("editMessageText", "message_id", f"'{message_id}th' is not an Integer (Telegram reads "
         f"{message_id})"),
        ("editMessageText", "message_id", "'last' is not an Integer (Telegram reads 0)"),
    ]  # fmt: skip


@pytest.mark.telegram_ignores
def test_integers_out_of_range_are_clamped_as_telegram_does_and_recorded(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    api.ok("setWebhook", url="https://example.com/hook", max_connections=500)
    assert api.ok("getWebhookInfo")["max_connections"] == 100
    api.ok("setWebhook", url="https://example.com/hook", max_connections=0)
    assert api.ok("getWebhookInfo")["max_connections"] == 1
    api.ok("deleteWebhook")
    api.ok("getUpdates", limit=1000, timeout=0)
    assert [(r["method"], r["parameter"], r["problem"]) for r in emu.unknown_parameters()] == [
        ("setWebhook", "max_connections", "500 is not in 1-100 (Telegram reads 100)"),
        ("setWebhook", "max_connections", "0 is not in 1-100 (Telegram reads 1)"),
        ("getUpdates", "limit", "1000 is not in 1-100 (Telegram reads 100)"),
    ]


# ----- sizes ------------------------------------------------------------------------


def test_text_is_1_to_4096_characters(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    api.ok("sendMessage", chat_id=ANA, text="x" * 4096)
    assert api.error("sendMessage", chat_id=ANA, text="x" * 4097)[1] == (
        "Bad Request: message is too long"
    )
    assert api.error("sendMessage", chat_id=ANA, text=" ")[1] == (
        "Bad Request: message text is empty"
    )


def send_document(api: BotApiClient, caption: str) -> dict[str, Any]:
    files = {"document": ("rules.txt", b"Follow suit.", "text/plain")}
    data = {"chat_id": str(ANA), "caption": caption}
    body: dict[str, Any] = api.http.post("sendDocument", data=data, files=files).json()
    return body


def test_a_caption_is_at_most_1024_characters(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    assert send_document(api, "x" * 1024)["ok"]
    refused = send_document(api, "x" * 1025)
    assert refused["description"] == "Bad Request: message caption is too long"


def test_callback_data_is_1_to_64_bytes(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    for data, ok in (("d" * 64, True), ("d" * 65, False), ("ñ" * 32, True), ("ñ" * 33, False)):
        markup = {"inline_keyboard": [[{"text": "Go", "callback_data": data}]]}
        body = api.call("sendMessage", chat_id=ANA, text="hi", reply_markup=markup)
        assert body["ok"] is ok, data
        if not ok:
            assert body["description"] == "Bad Request: BUTTON_DATA_INVALID"


def test_at_most_100_inline_buttons_8_a_row(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    api.ok("sendMessage", chat_id=ANA, text="hi", reply_markup=keyboard(100, per_row=8))
    assert api.error("sendMessage", chat_id=ANA, text="hi", reply_markup=keyboard(101)) == (
        400,
        "Bad Request: reply markup is too long",
    )
    assert api.error("sendMessage", chat_id=ANA, text="hi", reply_markup=keyboard(9, 9)) == (
        400,
        "Bad Request: BUTTONS_TOO_WIDE",
    )


def test_a_callback_answer_is_at_most_200_characters(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    emu.start("Ana")
    api.ok("sendMessage", chat_id=ANA, text="hi", reply_markup={"inline_keyboard": [[BUTTON]]})
    message = emu.wait_for_message("Ana", "hi")
    first = emu.tap("Ana", message, "Go", wait=False).query_id
    second = emu.tap("Ana", message, "Go", wait=False).query_id
    assert api.error("answerCallbackQuery", callback_query_id=first, text="x" * 201) == (
        400,
        "Bad Request: MESSAGE_TOO_LONG",
    )
    assert api.ok("answerCallbackQuery", callback_query_id=second, text="x" * 200) is True


def test_a_webhook_secret_is_1_to_256_safe_characters(api: BotApiClient) -> None:
    url = "https://example.com/hook"
    assert api.ok("setWebhook", url=url, secret_token="s" * 256) is True
    assert api.error("setWebhook", url=url, secret_token="s" * 257) == (
        400,
        "Bad Request: secret token is too long",
    )
    assert api.error("setWebhook", url=url, secret_token="no spaces") == (
        400,
        "Bad Request: secret token contains unallowed characters",
    )


# ----- what Telegram ignores: answered as Telegram does, recorded, failing the test --


@pytest.mark.telegram_ignores
def test_unknown_parameters_are_ignored_and_recorded(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    emu.start("Ana")
    markup = {"inline_keyboard": [[{**BUTTON, "colour": "red"}]]}
    sent = api.ok(
        "sendMessage",
        chat_id=ANA,
        text="hi",
        disable_notifcation=True,
        reply_markup=markup,
        reply_parameters={"message_id": 1, "allow_sending_without_reply": True, "quote_pos": 1},
    )
    assert sent["text"] == "hi"
    api.ok("getMe", verbose=True)
    assert emu.unknown_parameters() == [
        {
            "bot_id": 123456,
            "method": "sendMessage",
            "via": "http",
            "parameter": "disable_notifcation",
            "problem": "unknown",
        },
        {
            "bot_id": 123456,
            "method": "sendMessage",
            "via": "http",
            "parameter": "reply_markup.inline_keyboard.colour",
            "problem": "unknown",
        },
        {
            "bot_id": 123456,
            "method": "sendMessage",
            "via": "http",
            "parameter": "reply_parameters.quote_pos",
            "problem": "unknown",
        },
        {
            "bot_id": 123456,
            "method": "getMe",
            "via": "http",
            "parameter": "verbose",
            "problem": "unknown",
        },
    ]


@pytest.mark.telegram_ignores
def test_a_button_takes_its_first_action_in_telegrams_order(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    emu.start("Ana")
    both = {"text": "Go", "callback_data": "go", "url": "https://t.me/burro_bot"}
    sent = api.ok("sendMessage", chat_id=ANA, text="hi", reply_markup={"inline_keyboard": [[both]]})
    assert sent["reply_markup"]["inline_keyboard"] == [[{"text": "Go", "url": both["url"]}]]
    assert [(r["parameter"], r["problem"]) for r in emu.unknown_parameters()] == [
        ("reply_markup.inline_keyboard.callback_data", "ignored for url")
    ]


@pytest.mark.telegram_ignores
def test_a_method_in_a_webhooks_answer_is_checked_too(
    emu: RunningEmulator, api: BotApiClient, receiver: tuple[Receiver, str]
) -> None:
    hook, url = receiver
    hook.reply = lambda update: {
        "method": "sendMessage",
        "chat_id": ANA,
        "text": "pong",
        "disable_notifcation": True,
    }
    api.ok("setWebhook", url=url)
    emu.start("Ana")
    emu.wait_for_message("Ana", "pong")
    assert emu.unknown_parameters() == [
        {
            "bot_id": 123456,
            "method": "sendMessage",
            "via": "webhook",
            "parameter": "disable_notifcation",
            "problem": "unknown",
        }
    ]


def test_well_formed_calls_record_nothing(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    markup = {"inline_keyboard": [[{"text": "Join", "url": "https://t.me/burro_bot?start=g1"}]]}
    api.form(
        "sendMessage",
        chat_id=str(ANA),
        text="<b>hi</b>",
        parse_mode="HTML",
        disable_notification="true",
        protect_content="false",
        link_preview_options=json.dumps({"is_disabled": True}),
        reply_markup=json.dumps(markup),
        reply_to_message_id="1",
        allow_sending_without_reply="true",
    )
    api.ok("sendChatAction", chat_id=ANA, action="typing")
    api.ok("setMyCommands", commands=[{"command": "burro", "description": "Play"}])
    assert emu.unknown_parameters() == []


GUARDED = """
import httpx
import pytest

from emulator import running_emulator


@pytest.fixture
def emu():
    with running_emulator() as running:
        yield running


def send(emu, **params):
    httpx.post(f"{emu.url}/bot%s/sendMessage", json={"chat_id": 1, "text": "x", **params})


def test_misspelt(emu):
    send(emu, disable_notifcation=True)


@pytest.mark.telegram_ignores
def test_on_purpose(emu):
    send(emu, disable_notifcation=True)


def test_clean(emu):
    send(emu, disable_notification=True)
"""


def test_a_test_whose_emulator_recorded_unknown_parameters_fails(tmp_path: Path) -> None:
    guarded = tmp_path / "test_guarded.py"
    guarded.write_text(GUARDED % TOKEN)
    plugins = ["-p", "tests.conftest", "-p", "no:cacheprovider"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *plugins, str(guarded)],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "ERROR at teardown of test_misspelt" in run.stdout
    assert "sendMessage disable_notifcation: unknown" in run.stdout
    assert "3 passed, 1 error" in run.stdout
