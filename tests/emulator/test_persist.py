"""The emulated Telegram kept in a file (emulator.telegram.persist): what a world saved and read
back holds, and that the bot carries on in it where it stopped."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator import running_emulator
from emulator.config import fast_config
from emulator.telegram import persist
from emulator.telegram.world import World
from tests.emulator.conftest import BotApiClient

KEYBOARD = {"inline_keyboard": [[{"text": "Play", "callback_data": "p"}]]}


def lived_in(tmp_path: Path) -> Path:
    """An emulator where things happened, saved to a file; the file."""
    path = tmp_path / "world.json"
    with running_emulator() as emu:
        api = BotApiClient(emu.url)
        api.ok("getMe")
        api.ok("setMyCommands", commands=[{"command": "play", "description": "Play"}])
        emu.start("Ana")
        api.ok("sendMessage", chat_id=100001, text="Hello Ana", reply_markup=KEYBOARD)
        api.ok("sendMessage", chat_id=-1001000000001, text="Table")
        upload = {"document": ("a.json", b'{"a": 1}', "application/json")}
        sent = api.http.post("sendDocument", data={"chat_id": "100001"}, files=upload)
        assert sent.json()["ok"]
        emu.block_bot("Ben")
        emu.migrate_group("Ben", "Cousins")
        emu.set_forum("Ana", "Family")
        emu.create_topic("Ana", "Family", "Burro")
        persist.save(emu.emulator.world, path)
        api.close()
    return path


def test_a_saved_world_reads_back_the_same(tmp_path: Path) -> None:
    path = lived_in(tmp_path)
    world = World(fast_config())
    assert persist.load(world, path)
    again = tmp_path / "again.json"
    persist.save(world, again)
    assert again.read_text() == path.read_text()
    assert not persist.load(World(fast_config()), tmp_path / "none.json")


def test_the_bot_carries_on_in_a_restored_world(tmp_path: Path) -> None:
    path = lived_in(tmp_path)
    with running_emulator() as emu:
        world = emu.emulator.world
        persist.load(world, path)  # before anyone calls: as `burro emulator --state` does
        api = BotApiClient(emu.url)
        hello = next(m for m in emu.messages_in("Ana") if m.text == "Hello Ana")
        assert hello.button_texts == ["Play"]
        edited = api.ok(
            "editMessageText",
            chat_id=100001,
            message_id=hello.message_id,
            text="Hello again",
            reply_markup=KEYBOARD,
        )
        assert edited["text"] == "Hello again"
        later = api.ok("sendMessage", chat_id=100001, text="Next")
        assert later["message_id"] > hello.message_id
        assert api.ok("getMyCommands") == [{"command": "play", "description": "Play"}]
        assert api.error("sendMessage", chat_id=100002, text="Hi")[0] == 403  # Ben blocked it
        assert emu.messages_in("Family")[-1].raw.get("forum_topic_created")
        document = next(m.document for m in emu.messages_in("Ana") if m.document)
        file = api.ok("getFile", file_id=document["file_id"])
        assert file["file_size"] == len('{"a": 1}')
        emu.tap("Ana", emu.message("Ana", hello.message_id), "Play", wait=False)
        update = emu.wait_for(lambda: api.ok("getUpdates"), what="the tap's update")
        assert update[-1]["callback_query"]["data"] == "p"
        api.close()


def test_a_file_of_something_else_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"format": "something/else"}')
    with pytest.raises(ValueError, match="not a saved emulator world"):
        persist.load(World(fast_config()), path)


def test_a_file_it_cannot_read_is_set_aside(tmp_path: Path) -> None:
    path = lived_in(tmp_path)
    damaged = path.read_text().replace('"message_id"', '"message_number"')
    path.write_text(damaged)
    world = World(fast_config())
    before = persist.dump(world)
    assert not persist.resume(world, path)
    assert persist.dump(world) == before  # afresh, as from its config
    assert not path.exists() and (tmp_path / "world.json.old").read_text() == damaged
    assert not persist.resume(world, path)  # no file: nothing to do
