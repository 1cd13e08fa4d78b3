"""Which messages notify whom: a new message everyone in its chat but its sender, unless
sent with `disable_notification`; an edit nobody; what a user writes never themselves."""

from __future__ import annotations

from emulator import RunningEmulator
from tests.emulator.conftest import BotApiClient

ANA, BEN, FAMILY = 100001, 100002, -1001000000001


def users(
    emu: RunningEmulator, user: str | None = None, chat: str | None = None, since: int = 0
) -> list[tuple[int, str]]:
    return [(n["user_id"], n["text"]) for n in emu.notifications(user, chat=chat, since=since)]


def test_a_new_private_message_notifies_and_an_edit_does_not(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    emu.start("Ana")  # Ana's /start: her own message, no notification for her
    assert users(emu, user="Ana") == []
    sent = api.ok("sendMessage", chat_id=ANA, text="Your turn")
    api.ok("editMessageText", chat_id=ANA, message_id=sent["message_id"], text="Still")
    api.ok("sendMessage", chat_id=ANA, text="quiet", disable_notification=True)
    assert users(emu, user="Ana") == [(ANA, "Your turn")]
    shown = emu.last_message("Ana")
    assert shown is not None and shown.text == "quiet" and shown.notified == ()
    assert emu.message("Ana", sent["message_id"]).notified == (ANA,)


def test_a_group_message_notifies_every_member_but_its_sender(
    emu: RunningEmulator, api: BotApiClient
) -> None:
    api.ok("sendMessage", chat_id=FAMILY, text="Table")
    members = {user for user, _text in users(emu, chat="Family")}
    assert {ANA, BEN} <= members
    since = emu.last_seq()
    emu.send_message("Ana", "Family", "hello")
    told = {user for user, _text in users(emu, chat="Family", since=since)}
    assert BEN in told and ANA not in told
    assert users(emu, user="Ben", chat="Ana") == []
