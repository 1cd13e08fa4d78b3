"""Groups that change under a bot: a group upgraded to a supergroup, forum topics, the
bot removed, anonymous admins and channels, users deleting messages."""

from __future__ import annotations

import pytest

from emulator import RunningEmulator
from emulator.telegram.driver import EmulatorError
from tests.emulator.conftest import BotApiClient

ANA, BEN = 100001, 100002
SUPERGROUP = -1001000000001  # Family
BASIC = -4000000001  # Cousins, Ben's


def test_a_group_upgraded_to_a_supergroup(emu: RunningEmulator, api: BotApiClient) -> None:
    before = api.ok("sendMessage", chat_id=BASIC, text="table")
    with pytest.raises(EmulatorError, match="not an admin"):
        emu.migrate_group("Ana", "Cousins")
    new_id = emu.migrate_group("Ben", "Cousins")
    assert str(new_id).startswith("-100") and new_id != BASIC
    joined = emu.updates()[-1]["my_chat_member"]  # the supergroup's; none for the group
    assert joined["chat"]["id"] == new_id and joined["new_chat_member"]["status"] == "member"
    assert sum(1 for u in emu.updates() if "my_chat_member" in u) == 1
    service = [u["message"] for u in emu.updates() if "message" in u]
    assert service[-2]["chat"]["id"] == BASIC and service[-2]["migrate_to_chat_id"] == new_id
    assert service[-1]["chat"] == {"id": new_id, "type": "supergroup", "title": "Cousins"}
    assert service[-1]["migrate_from_chat_id"] == BASIC
    for method, params in (
        ("sendMessage", {"text": "again"}),
        ("editMessageText", {"message_id": before["message_id"], "text": "edited"}),
        ("getChat", {}),
    ):
        body = api.call(method, chat_id=BASIC, **params)
        assert body == {
            "ok": False,
            "error_code": 400,
            "description": "Bad Request: group chat was upgraded to a supergroup chat",
            "parameters": {"migrate_to_chat_id": new_id},
        }
    assert api.ok("sendMessage", chat_id=new_id, text="here")["chat"]["id"] == new_id
    with pytest.raises(EmulatorError, match="upgraded"):
        emu.send_message("Ben", BASIC, "hello?")
    assert emu.send_message("Ben", "Cousins", "hello").chat_id == new_id  # the title moved
    groups = {c["chat_id"] for c in emu.chats_of("Ben") if c["type"] != "private"}
    assert groups == {SUPERGROUP, new_id}  # the old group is gone from the list
    with pytest.raises(EmulatorError, match="not a basic group"):
        emu.migrate_group("Ben", new_id)


def test_forum_topics(emu: RunningEmulator, api: BotApiClient) -> None:
    with pytest.raises(EmulatorError, match="not a forum"):
        emu.create_topic("Ana", "Family", "Burro")
    with pytest.raises(EmulatorError, match="owner"):
        emu.set_forum("Ben", "Family")
    emu.set_forum("Ana", "Family")
    topic = emu.create_topic("Ben", "Family", "Burro")
    said = emu.send_message("Carla", "Family", "/burro", thread_id=topic)
    assert said.raw["message_thread_id"] == topic and said.raw["is_topic_message"]
    assert said.raw["chat"]["is_forum"] is True
    sent = api.ok("sendMessage", chat_id=SUPERGROUP, text="table", message_thread_id=topic)
    assert sent["message_thread_id"] == topic and sent["is_topic_message"]
    general = api.ok("sendMessage", chat_id=SUPERGROUP, text="in General")
    assert "message_thread_id" not in general
    assert api.error("sendMessage", chat_id=SUPERGROUP, text="x", message_thread_id=999) == (
        400,
        "Bad Request: message thread not found",
    )
    assert api.error("createForumTopic", chat_id=SUPERGROUP, name="Bots") == (
        400,
        "Bad Request: not enough rights to create a topic",
    )
    with pytest.raises(EmulatorError, match="may not manage"):
        emu.close_topic("Carla", "Family", topic)
    emu.close_topic("Ben", "Family", topic)
    assert api.error("sendMessage", chat_id=SUPERGROUP, text="x", message_thread_id=topic) == (
        400,
        "Bad Request: TOPIC_CLOSED",
    )
    with pytest.raises(EmulatorError, match="closed"):
        emu.send_message("Carla", "Family", "hi", thread_id=topic)
    emu.send_message("Ana", "Family", "admins may", thread_id=topic)  # the owner writes on
    assert api.error(  # nor edit there (unsure on Telegram: the stricter way)
        "editMessageText", chat_id=SUPERGROUP, message_id=sent["message_id"], text="edited"
    ) == (400, "Bad Request: TOPIC_CLOSED")
    emu.reopen_topic("Ana", "Family", topic)
    api.ok("sendMessage", chat_id=SUPERGROUP, text="open again", message_thread_id=topic)
    kinds = [
        next(k for k in u["message"] if k.startswith("forum_topic"))
        for u in emu.updates()
        if "message" in u and any(k.startswith("forum_topic") for k in u["message"])
    ]
    assert kinds == ["forum_topic_created", "forum_topic_closed", "forum_topic_reopened"]
    emu.delete_topic("Ana", "Family", topic)
    assert emu.message("Family", sent["message_id"]).deleted
    assert api.error("sendMessage", chat_id=SUPERGROUP, text="x", message_thread_id=topic) == (
        400,
        "Bad Request: message thread not found",
    )
    assert api.error(
        "editMessageText", chat_id=SUPERGROUP, message_id=sent["message_id"], text="y"
    ) == (400, "Bad Request: message to edit not found")


def test_anonymous_admins_and_channels(emu: RunningEmulator, api: BotApiClient) -> None:
    with pytest.raises(EmulatorError, match="not an admin"):
        emu.send_message("Ben", "Family", "/burro", send_as="anonymous")
    anonymous = emu.send_message("Ana", "Family", "/burro", send_as="anonymous")
    assert anonymous.raw["from"] == {
        "id": 1087968824,
        "is_bot": True,
        "first_name": "Group",
        "username": "GroupAnonymousBot",
    }
    assert anonymous.raw["sender_chat"]["id"] == SUPERGROUP
    channel = emu.send_message("Ben", "Family", "/burro", send_as="channel")
    assert channel.raw["from"]["id"] == 136817688
    assert channel.raw["sender_chat"]["type"] == "channel"
    delivered = [u["message"] for u in emu.updates() if "message" in u]
    assert [m["from"]["id"] for m in delivered[-2:]] == [1087968824, 136817688]


def test_the_bot_removed_or_kicked(emu: RunningEmulator, api: BotApiClient) -> None:
    emu.remove_bot_from_group("Ana", "Family", kick=True)
    change = emu.updates()[-1]["my_chat_member"]
    assert change["new_chat_member"]["status"] == "kicked"
    assert api.error("sendMessage", chat_id=SUPERGROUP, text="x") == (
        403,
        "Forbidden: bot was kicked from the supergroup chat",
    )


def test_users_delete_messages(emu: RunningEmulator, api: BotApiClient) -> None:
    table = api.ok("sendMessage", chat_id=SUPERGROUP, text="table")
    mine = emu.send_message("Ben", "Family", "hello")
    with pytest.raises(EmulatorError, match="may not delete"):
        emu.delete_message("Ben", "Family", table["message_id"])
    emu.delete_message("Ben", "Family", mine.message_id)
    emu.delete_message("Ana", "Family", table["message_id"])  # the owner deletes any
    assert api.error(
        "editMessageText", chat_id=SUPERGROUP, message_id=table["message_id"], text="y"
    ) == (400, "Bad Request: message to edit not found")
    emu.send_message("Ben", "Ben", "/start")
    private = api.ok("sendMessage", chat_id=BEN, text="your cards")
    emu.delete_message("Ben", "Ben", private["message_id"])  # in private: for both sides
    assert api.error(
        "editMessageText", chat_id=BEN, message_id=private["message_id"], text="y"
    ) == (400, "Bad Request: message to edit not found")
    with pytest.raises(EmulatorError, match="no message"):
        emu.delete_message("Ben", "Ben", private["message_id"])


def test_an_admin_bot_manages_topics(emu: RunningEmulator, api: BotApiClient) -> None:
    bot_id = int(api.ok("getMe")["id"])
    emu.emulator.world.chats[SUPERGROUP].members[bot_id] = "administrator"
    assert api.error("createForumTopic", chat_id=SUPERGROUP, name="Burro") == (
        400,
        "Bad Request: the chat is not a forum",
    )
    emu.set_forum("Ana", "Family")
    topic = api.ok("createForumTopic", chat_id=SUPERGROUP, name="Burro")
    assert topic == {"message_thread_id": topic["message_thread_id"], "name": "Burro",
                     "icon_color": 7322096}  # fmt: skip
    thread = topic["message_thread_id"]
    assert api.ok("closeForumTopic", chat_id=SUPERGROUP, message_thread_id=thread) is True
    assert api.error("closeForumTopic", chat_id=SUPERGROUP, message_thread_id=thread) == (
        400,
        "Bad Request: TOPIC_NOT_MODIFIED",
    )
    # An admin may still write in a closed topic.
    api.ok("sendMessage", chat_id=SUPERGROUP, text="admins only", message_thread_id=thread)
    assert api.ok("reopenForumTopic", chat_id=SUPERGROUP, message_thread_id=thread) is True
    assert api.ok("deleteForumTopic", chat_id=SUPERGROUP, message_thread_id=thread) is True
    assert api.error("sendMessage", chat_id=SUPERGROUP, text="x", message_thread_id=thread) == (
        400,
        "Bad Request: message thread not found",
    )
    shown = [
        m
        for m in emu.messages_in("Family", include_deleted=True)
        if m.raw.get("message_thread_id") == thread
    ]
    assert shown and all(m.deleted for m in shown)
