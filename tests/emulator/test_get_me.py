"""getMe as Bot API 10.5 answers it (a BotFullInfo), and python-telegram-bot 22.8 (Bot
API 10.0) still starting and running against it."""

from __future__ import annotations

import asyncio

import pytest
from telegram import Bot

from emulator import RunningEmulator
from tests.emulator.conftest import TOKEN, BotApiClient
from tests.emulator.ptb_bot import running_bot

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

BOT_ONLY = {
    "can_join_groups",
    "can_read_all_group_messages",
    "supports_inline_queries",
    "supports_guest_queries",
    "can_connect_to_business",
    "has_main_web_app",
    "has_topics_enabled",
    "allows_users_to_create_topics",
    "can_manage_bots",
    "supports_join_request_queries",
}


def test_get_me_is_a_bot_full_info(emu: RunningEmulator, api: BotApiClient) -> None:
    me = api.ok("getMe")
    assert set(me) == {"id", "is_bot", "first_name", "username"} | BOT_ONLY
    assert me["is_bot"] is True and me["username"] == "burro_bot"
    emu.start("Ana")
    sent = api.ok("sendMessage", chat_id=100001, text="hi")
    assert not BOT_ONLY & set(sent["from"])  # 10.5: no bot-only field in a User


def test_python_telegram_bot_reads_it(emu: RunningEmulator) -> None:
    async def get_me() -> tuple[str | None, bool | None, bool | None]:
        async with Bot(TOKEN, base_url=f"{emu.api_url}/bot") as bot:  # initialize: getMe
            me = await bot.get_me()
            return me.username, me.can_join_groups, me.supports_inline_queries

    assert asyncio.run(get_me()) == ("burro_bot", True, False)


def test_python_telegram_bot_starts_and_runs(emu: RunningEmulator) -> None:
    with running_bot(emu.api_url, TOKEN):
        emu.wait_for(lambda: emu.webhook_info()["url"], what="the bot's setWebhook")
        emu.bot_settings(inline_mode=True)  # its "Hand" button opens inline mode
        emu.start("Ana", "join-42")
        assert emu.wait_for_message("Ana", "Hello Ana").text == "Hello Ana! payload=join-42"
    assert [call["ok"] for call in emu.calls("getMe")] == [True]
