"""The Bot API side, over HTTP, in Telegram's request forms and answer shapes."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from telegram import Bot, ChatFullInfo, ChatMember, Message

from emulator import EmulatorConfig, FloodLimits, RunningEmulator, fast_config, running_emulator
from tests.emulator.conftest import TOKEN, BotApiClient

ANA, BEN, FAMILY = 100001, 100002, -1001000000001
KEYBOARD = {"inline_keyboard": [[{"text": "Go", "callback_data": "go"}]]}


def test_get_me_and_tokens(emu: RunningEmulator, api: BotApiClient) -> None:
    me = api.ok("getMe")
    assert me["id"] == 123456 and me["is_bot"] and me["username"] == "burro_bot"
    # BotFather's defaults: inline mode off, privacy mode on.
    assert not me["supports_inline_queries"] and not me["can_read_all_group_messages"]
    other = BotApiClient(emu.url, "777:other").ok("getMe")
    assert other["username"] == "burro2_bot"
    for bad in ("123456:wrong-secret", "nocolon", "abc:def", "12:"):
        body = httpx.post(f"{emu.url}/bot{bad}/getMe", trust_env=False).json()
        assert body == {"ok": False, "error_code": 401, "description": "Unauthorized"}


def test_unknown_methods_paths_and_bodies_get_telegram_shapes(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    assert api.call("noSuchMethod") == {"ok": False, "error_code": 404, "description": "Not Found"}
    assert httpx.get(f"{emu.url}/nothing/here", trust_env=False).json()["error_code"] == 404
    broken = httpx.post(
        f"{emu.url}/bot{TOKEN}/sendMessage",
        content=b"{not json",
        headers={"Content-Type": "application/json"},
        trust_env=False,
    )
    assert broken.status_code == 400 and broken.json()["ok"] is False
    assert "Traceback" not in broken.text
    # Method names are case-insensitive; GET with a query string works too.
    assert httpx.get(f"{emu.url}/bot{TOKEN}/GETME", trust_env=False).json()["ok"]
    missing = api.call("sendMessage", text="hi")
    assert missing["description"] == "Bad Request: chat_id is empty"


def test_a_bot_cannot_write_first(emu: RunningEmulator, api: BotApiClient) -> None:
    assert api.error("sendMessage", chat_id=ANA, text="hi") == (
        403,
        "Forbidden: bot can't initiate conversation with a user",
    )
    emu.start("Ana")
    api.ok("sendMessage", chat_id=ANA, text="hi")
    emu.block_bot("Ana")
    assert api.error("sendMessage", chat_id=ANA, text="hi") == (
        403,
        "Forbidden: bot was blocked by the user",
    )
    updates = [u for u in emu.updates() if "my_chat_member" in u]
    assert updates[-1]["my_chat_member"]["new_chat_member"]["status"] == "kicked"
    assert api.error("sendMessage", chat_id=999, text="hi") == (400, "Bad Request: chat not found")


def test_send_message_in_form_and_json_bodies(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    by_form = api.form(
        "sendMessage", chat_id=ANA, text="<b>Hi</b>", parse_mode="HTML", reply_markup=KEYBOARD
    )
    assert by_form["ok"], by_form
    by_json = api.ok(
        "sendMessage",
        chat_id=ANA,
        text="Hi",
        reply_markup=KEYBOARD,
        entities=[{"type": "bold", "offset": 0, "length": 2}],
    )
    for result in (by_form["result"], by_json):
        message = Message.de_json(result, Bot(TOKEN))  # python-telegram-bot reads it
        assert message.text == "Hi" and message.entities[0].type == "bold"
        assert message.reply_markup is not None
        assert message.reply_markup.inline_keyboard[0][0].callback_data == "go"
    assert by_json["message_id"] == by_form["result"]["message_id"] + 1


def test_sending_refusals(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    assert (
        api.error("sendMessage", chat_id=ANA, text="x" * 4097)[1]
        == "Bad Request: message is too long"
    )
    assert api.error("sendMessage", chat_id=ANA, text="")[1] == "Bad Request: message text is empty"
    code, text = api.error("sendMessage", chat_id=ANA, text="<b>x", parse_mode="HTML")
    assert code == 400 and text.startswith("Bad Request: can't parse entities:")
    long_data = {"inline_keyboard": [[{"text": "x", "callback_data": "d" * 65}]]}
    assert api.error("sendMessage", chat_id=ANA, text="x", reply_markup=long_data)[1] == (
        "Bad Request: BUTTON_DATA_INVALID"
    )
    assert api.error("sendMessage", chat_id=ANA, text="x", reply_parameters={"message_id": 99})[
        1
    ] == ("Bad Request: message to be replied not found")


def test_groups(emu: RunningEmulator, api: BotApiClient) -> None:
    sent = api.ok("sendMessage", chat_id=FAMILY, text="Table")
    assert sent["chat"] == {"id": FAMILY, "type": "supergroup", "title": "Family"}
    emu.remove_bot_from_group("Ana", "Family")
    assert api.error("sendMessage", chat_id=FAMILY, text="x") == (
        403,
        "Forbidden: bot is not a member of the supergroup chat",
    )
    emu.add_bot_to_group("Ben", "Family")
    api.ok("sendMessage", chat_id=FAMILY, text="back")
    statuses = [
        u["my_chat_member"]["new_chat_member"]["status"]
        for u in emu.updates()
        if "my_chat_member" in u
    ]
    assert statuses == ["left", "member"]


def test_edits(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    sent = api.ok("sendMessage", chat_id=ANA, text="v1", reply_markup=KEYBOARD)
    where = {"chat_id": ANA, "message_id": sent["message_id"]}
    edited = api.ok("editMessageText", **where, text="v2", reply_markup=KEYBOARD)
    assert edited["text"] == "v2" and "edit_date" in edited
    assert api.error("editMessageText", **where, text="v2", reply_markup=KEYBOARD)[1].startswith(
        "Bad Request: message is not modified"
    )
    # Editing the text without reply_markup removes the keyboard, as on Telegram.
    assert "reply_markup" not in api.ok("editMessageText", **where, text="v2")
    assert api.error("editMessageReplyMarkup", **where)[1].startswith(
        "Bad Request: message is not modified"
    )
    assert (
        api.ok("editMessageReplyMarkup", **where, reply_markup=KEYBOARD)["reply_markup"] == KEYBOARD
    )
    assert api.error("editMessageText", chat_id=ANA, message_id=999, text="x")[1] == (
        "Bad Request: message to edit not found"
    )
    assert api.error("editMessageText", chat_id=ANA, message_id=1, text="x")[1] == (
        "Bad Request: message can't be edited"  # message 1 is Ana's /start
    )
    shown = emu.message("Ana", sent["message_id"])
    assert shown.text == "v2" and shown.edited and len(shown.edits) == 3


def test_delete(emu: RunningEmulator, api: BotApiClient) -> None:
    sent = api.ok("sendMessage", chat_id=FAMILY, text="bye")
    said = emu.send_message("Ben", "Family", "hello all")
    assert api.ok("deleteMessage", chat_id=FAMILY, message_id=sent["message_id"]) is True
    assert api.error("deleteMessage", chat_id=FAMILY, message_id=sent["message_id"])[1] == (
        "Bad Request: message to delete not found"
    )
    assert api.error("deleteMessage", chat_id=FAMILY, message_id=said.message_id)[1] == (
        "Bad Request: message can't be deleted"
    )
    assert [m.text for m in emu.messages_in("Family")] == ["hello all"]
    assert emu.messages_in("Family", include_deleted=True)[0].deleted
    more = [api.ok("sendMessage", chat_id=FAMILY, text=t)["message_id"] for t in "ab"]
    assert api.ok("deleteMessages", chat_id=FAMILY, message_ids=[*more, 999]) is True
    assert [m.text for m in emu.messages_in("Family")] == ["hello all"]


def test_a_message_older_than_48_hours_cannot_be_deleted(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    """deleteMessage: "A message can only be deleted if it was sent less than 48 hours
    ago", its own too; deleteMessages skips such a message."""
    old, recent = (api.ok("sendMessage", chat_id=FAMILY, text=t)["message_id"] for t in "ab")
    stored = emu.emulator.world.find_message(FAMILY, 0, old)
    assert stored is not None
    stored.date -= 48 * 3600  # sent two days ago
    assert api.error("deleteMessage", chat_id=FAMILY, message_id=old)[1] == (
        "Bad Request: message can't be deleted for everyone"
    )
    assert api.ok("deleteMessages", chat_id=FAMILY, message_ids=[old, recent]) is True
    assert [m.message_id for m in emu.messages_in("Family")] == [old]


def test_callback_answers(emu: RunningEmulator, api: BotApiClient) -> None:
    sent = api.ok("sendMessage", chat_id=FAMILY, text="Pick", reply_markup=KEYBOARD)
    message = emu.messages_in("Family")[-1]
    tapped = emu.tap("Carla", message, "Go", wait=False)
    update = emu.updates()[-1]["callback_query"]
    assert update["data"] == "go" and update["from"]["first_name"] == "Carla"
    assert update["message"]["message_id"] == sent["message_id"]
    assert api.error("answerCallbackQuery", callback_query_id=tapped.query_id, text="x" * 201)[
        1
    ] == ("Bad Request: MESSAGE_TOO_LONG")
    assert api.ok("answerCallbackQuery", callback_query_id=tapped.query_id, text="OK") is True
    too_old = "Bad Request: query is too old and response timeout expired or query ID is invalid"
    assert api.error("answerCallbackQuery", callback_query_id=tapped.query_id)[1] == too_old
    assert api.error("answerCallbackQuery", callback_query_id="42")[1] == too_old
    assert emu.callback_answers("Carla")[0].text == "OK"
    assert emu.callback_answers("Dan") == []


def test_an_app_sends_the_button_it_draws_refused_once_the_buttons_changed(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    """An app taps the button it shows, by its data: an edit it has not yet drawn makes
    Telegram refuse the tap (DATA_INVALID), never play the button now in that place."""
    sent = api.ok("sendMessage", chat_id=FAMILY, text="Pick", reply_markup=KEYBOARD)
    chat = {"chat_id": FAMILY, "message_id": sent["message_id"]}

    def tap(data: str) -> httpx.Response:
        tapped = {"user": "Carla", **chat, "scope": 0, "button": [0, 0], "data": data}
        return httpx.post(f"{emu.url}/_emulator/tap", json=tapped, trust_env=False)

    assert tap("go").json()["result"]["kind"] == "callback"
    assert emu.updates()[-1]["callback_query"]["data"] == "go"
    moved = {"inline_keyboard": [[{"text": "Go on", "callback_data": "on"}]]}
    api.ok("editMessageReplyMarkup", **chat, reply_markup=moved)
    before = len(emu.updates())
    refused = tap("go")  # drawn before the edit
    assert refused.status_code == 400 and "DATA_INVALID" in refused.json()["description"]
    assert len(emu.updates()) == before  # the bot is told nothing
    assert tap("on").json()["result"]["kind"] == "callback"
    assert emu.updates()[-1]["callback_query"]["data"] == "on"


def test_inline_queries(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.bot_settings(inline_mode=True, inline_feedback=100)  # BotFather: /setinline …
    raw = httpx.post(
        f"{emu.url}/_emulator/inline_query",
        json={"user": "Dan", "chat": "Family", "query": "hand"},
        trust_env=False,
    ).json()["result"]
    update = emu.updates()[-1]["inline_query"]
    assert update == {
        "id": raw["query_id"],
        "from": update["from"],
        "query": "hand",
        "offset": "",
        "chat_type": "supergroup",
    }
    results = [
        {
            "type": "article",
            "id": str(i),
            "title": f"Card {i}",
            "input_message_content": {"message_text": f"plays {i}"},
        }
        for i in range(51)
    ]
    assert api.error("answerInlineQuery", inline_query_id=raw["query_id"], results=results)[1] == (
        "Bad Request: RESULTS_TOO_MUCH"
    )
    api.ok(
        "answerInlineQuery",
        inline_query_id=raw["query_id"],
        results=results[:3],
        cache_time=0,
        is_personal=True,
        button={"text": "Join", "start_parameter": "join"},
    )
    answer = emu.inline_answers("Dan")[0]
    assert [r.title for r in answer.results] == ["Card 0", "Card 1", "Card 2"]
    assert answer.button == {"text": "Join", "start_parameter": "join"}
    sent = emu.choose_inline_result("Dan", answer, "Card 1")
    assert sent.text == "plays 1" and sent.via_bot == "burro_bot" and sent.inline_message_id is None
    chosen = [u["chosen_inline_result"] for u in emu.updates() if "chosen_inline_result" in u]
    assert chosen == [{"result_id": "1", "from": chosen[0]["from"], "query": "hand"}]


def test_chat_action_get_chat_and_members(emu: RunningEmulator, api: BotApiClient) -> None:
    bot = Bot(TOKEN)
    assert api.ok("sendChatAction", chat_id=FAMILY, action="typing") is True
    assert api.error("sendChatAction", chat_id=FAMILY, action="dancing")[0] == 400
    group = ChatFullInfo.de_json(api.ok("getChat", chat_id=FAMILY), bot)
    assert group.title == "Family" and group.type == "supergroup"
    private = ChatFullInfo.de_json(api.ok("getChat", chat_id=BEN), bot)
    assert private.first_name == "Ben" and private.username == "ben_souza"
    owner = ChatMember.de_json(api.ok("getChatMember", chat_id=FAMILY, user_id=ANA), bot)
    assert owner.status == "creator"
    me = ChatMember.de_json(api.ok("getChatMember", chat_id=FAMILY, user_id=123456), bot)
    assert me.status == "member"
    assert api.ok("getChatMemberCount", chat_id=FAMILY) == 5


def test_documents_multipart_and_files(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    response = httpx.post(
        f"{emu.url}/bot{TOKEN}/sendDocument",
        data={"chat_id": str(ANA), "caption": "<b>record</b>", "parse_mode": "HTML"},
        files={"document": ("game.json", b'{"a": 1}', "application/json")},
        trust_env=False,
    ).json()
    assert response["ok"], response
    document = response["result"]["document"]
    assert document["file_name"] == "game.json" and document["file_size"] == 8
    assert response["result"]["caption_entities"] == [{"type": "bold", "offset": 0, "length": 6}]
    again = api.ok("sendDocument", chat_id=ANA, document=document["file_id"])
    assert again["document"]["file_id"] == document["file_id"]
    path = api.ok("getFile", file_id=document["file_id"])["file_path"]
    assert httpx.get(f"{emu.url}/file/bot{TOKEN}/{path}", trust_env=False).content == b'{"a": 1}'
    assert api.error("sendDocument", chat_id=ANA, document="https://example.com/x")[1] == (
        "Bad Request: failed to get HTTP URL content"  # the emulator never leaves the machine
    )


def test_commands(emu: RunningEmulator, api: BotApiClient) -> None:
    commands = [{"command": "new", "description": "New game"}]
    assert api.form("setMyCommands", commands=commands)["ok"]
    assert api.ok("getMyCommands") == commands
    assert api.error("setMyCommands", commands=[{"command": "Bad-Name", "description": "x"}])[
        1
    ] == ("Bad Request: BOT_COMMAND_INVALID")
    assert emu.state()["bots"][0]["commands"] == commands


def test_flood_limits_answer_429_until_switched_off() -> None:
    with running_emulator(EmulatorConfig(flood_limits=FloodLimits())) as emu:
        api = BotApiClient(emu.url)
        api.ok("getMe")
        emu.start("Ana")
        for i in range(3):
            api.ok("sendMessage", chat_id=ANA, text=f"m{i}")
        refused = api.call("sendMessage", chat_id=ANA, text="m3")
        assert refused == {
            "ok": False,
            "error_code": 429,
            "description": "Too Many Requests: retry after 1",
            "parameters": {"retry_after": 1},
        }
        emu.set_flood_limits(False)
        for i in range(10):
            api.ok("sendMessage", chat_id=ANA, text=f"n{i}")
        api.close()


def test_injected_errors(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    emu.inject_error("sendMessage", 429, retry_after=3, times=2)
    for _ in range(2):
        body = api.call("sendMessage", chat_id=ANA, text="x")
        assert body["error_code"] == 429 and body["parameters"] == {"retry_after": 3}
    api.ok("sendMessage", chat_id=ANA, text="x")


def test_injected_delays_hold_the_call_and_say_so(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    emu.inject_delay("sendMessage", 1.0)
    assert emu.held("sendMessage") == 0
    with ThreadPoolExecutor(1) as pool:
        sent = pool.submit(api.ok, "sendMessage", chat_id=ANA, text="slow")
        emu.wait_for(lambda: emu.held("SENDMESSAGE") == 1 or None, what="the call held")
        assert emu.held("editMessageText") == 0
        assert sent.result(timeout=10)["text"] == "slow"
    assert emu.held("sendMessage") == 0


def test_call_log(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.start("Ana")
    api.form("sendMessage", chat_id=ANA, text="hi", reply_markup=KEYBOARD)
    api.call("sendMessage", chat_id=ANA, text="")
    calls = emu.calls("sendMessage")
    assert [c["ok"] for c in calls] == [True, False]
    assert calls[0]["params"]["reply_markup"] == KEYBOARD  # JSON fields decoded in the log
    assert calls[1]["description"] == "Bad Request: message text is empty"
    assert json.dumps(emu.log())  # everything in it is JSON


@pytest.mark.parametrize("bad", ["has space", "ü"])  # too long: test_strict_api
def test_webhook_secret_token_characters(api: BotApiClient, bad: str) -> None:
    assert api.error("setWebhook", url="http://127.0.0.1:9/hook", secret_token=bad)[1] == (
        "Bad Request: secret token contains unallowed characters"
    )


def test_answers_after_the_timeout_are_too_old() -> None:
    with running_emulator(fast_config(answer_timeout=0.0)) as emu:
        api = BotApiClient(emu.url)
        api.ok("sendMessage", chat_id=FAMILY, text="Pick", reply_markup=KEYBOARD)
        tapped = emu.tap("Ana", emu.messages_in("Family")[-1], "go", wait=False)
        assert api.error("answerCallbackQuery", callback_query_id=tapped.query_id)[1] == (
            "Bad Request: query is too old and response timeout expired or query ID is invalid"
        )
        api.close()


def test_what_each_user_sees(emu: RunningEmulator, api: BotApiClient) -> None:
    chats = emu.chats_of("Carla")
    assert [(c["title"], c["type"]) for c in chats] == [
        ("Cousins", "group"),
        ("Family", "supergroup"),
        ("Burro", "private"),
    ]
    assert chats[2]["started"] is False
    emu.start("Carla")
    assert emu.chats_of("carla_jones")[2]["started"] is True
