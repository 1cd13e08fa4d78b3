"""The README's run command, `burro local`, and running it again: it starts the whole
product with no token and no installed Redis, serves the web chat, a scripted user
starts a game, Ctrl-C stops it cleanly; run again, the web chat keeps its history (the
local Telegram's world is kept in the data folder), so an open table is there as it
was, its buttons play on, and /play resumes the game."""

from __future__ import annotations

from pathlib import Path

import httpx

from emulator.telegram.driver import ChatMessage, EmulatorDriver
from service.infra.redis_server import free_port
from tests.service.play import action_button, game_buttons
from tests.service.test_local_run import cards, lines_until, play_against_bots, run_local, stop


def test_the_web_chat_and_its_tables_survive_a_restart(tmp_path: Path) -> None:
    port, data = free_port(), tmp_path / "data"
    url = f"http://127.0.0.1:{port}"
    process = run_local(data, port)
    try:
        printed = "".join(lines_until(process, "open http"))
        assert url in printed
        assert "<html" in httpx.get(url + "/", timeout=10).text  # the web chat
        with EmulatorDriver(url, timeout=30) as chat:
            table = play_against_bots(chat)
            # The lobby's message goes once the cards are posted below it: wait till it has.
            history = chat.wait_for(lambda: settled_history(chat), what="the lobby to go")
    finally:
        stop(process)  # Ctrl-C: it ends cleanly (exit status 0)
    assert (data / "emulator.json").exists()
    assert (data / "redis" / "appendonly.aof").exists() or any(
        (data / "redis").glob("appendonlydir/*")
    )
    again = run_local(data, port)
    try:
        list(lines_until(again, "open http"))
        with EmulatorDriver(url, timeout=30) as chat:
            shown = chat.message("Carla", table.message_id)
            assert [(m.message_id, m.text) for m in chat.messages_in("Carla")] == history
            move = game_buttons(shown)[0]
            chat.tap("Carla", shown, move.value)  # the old table's button plays
            after = chat.wait_for(lambda: moved_on(chat, shown), what="the table to show the move")
            if after.deleted:  # the move (and the forced ones after it) ended the hand
                before = {message_id for message_id, _text in history}
                new = [m for m in chat.messages_in("Carla") if m.message_id not in before]
                assert any("hand 1" in m.text for m in new)  # (the deleted table left history)
            else:
                assert len(chat.messages_in("Carla")) == len(history)  # edited, not anew
            chat.send_message("Carla", "Carla", "/play")  # the open game comes back
            chat.wait_for(
                lambda: game_buttons(chat.last_message("Carla")) or None,
                what="the resumed game's cards",
            )
    finally:
        stop(again)


def moved_on(chat: EmulatorDriver, shown: ChatMessage) -> ChatMessage | None:
    """The old table once the move shows: edited (its text, or the picture a widget
    draws), or deleted when the hand ended (its news is posted, the next hand's table
    below it)."""
    now = chat.message("Carla", shown.message_id)
    drawn = now.raw.get("widget") != shown.raw.get("widget")
    return now if now.deleted or now.text != shown.text or drawn else None


def settled_history(chat: EmulatorDriver) -> list[tuple[int, str]] | None:
    """Carla's chat as (id, text) once no message but the last one has buttons."""
    messages = [m for m in chat.messages_in("Carla") if not m.deleted]
    if any(m.buttons for m in messages[:-1]):
        return None
    return [(m.message_id, m.text) for m in messages]


def test_open_tables_come_back_in_chats_without_history(tmp_path: Path) -> None:
    """A data folder from before the local Telegram kept its world: the games are in
    Redis, the chats start empty. A group's open table is posted anew; a game against
    bots comes back when its player presses START."""
    port, data = free_port(), tmp_path / "data"
    url = f"http://127.0.0.1:{port}"
    process = run_local(data, port)
    try:
        list(lines_until(process, "open http"))
        with EmulatorDriver(url, timeout=30) as chat:
            play_against_bots(chat)
            chat.send_message("Ana", "Family", "/burro")
            seated = tap_action(chat, "Ana", "Family", "B")  # a bot sits down
            tap_action(chat, "Ana", "Family", "S", after=seated)  # Ana starts
            chat.wait_for(lambda: group_table(chat), what="the group's game")
    finally:
        stop(process)
    (data / "emulator.json").unlink()
    again = run_local(data, port)
    try:
        printed = "".join(lines_until(again, "open http"))
        assert "2 open table(s) posted again" in printed
        with EmulatorDriver(url, timeout=30) as chat:
            chat.wait_for(lambda: group_table(chat), what="the group's table posted again")
            assert chat.messages_in("Carla") == []  # she never pressed START here
            chat.start("Carla")
            chat.wait_for(lambda: cards(chat), what="her game against bots again")
    finally:
        stop(again)


def tap_action(chat: EmulatorDriver, user: str, where: str, token: str, after: int = -1) -> int:
    """Tap the button of a compact action (`B` add a bot, `S` start) in a chat, on a
    table newer than version `after` (a tap's change edits the buttons it shows: the
    old ones are gone); the version tapped."""

    def newer(message: ChatMessage) -> bool:
        data = action_button(message, token)
        return data is not None and int(data.split(".")[-2]) > after

    found = chat.wait_for_message(where, newer)
    data = str(action_button(found, token))
    chat.tap(user, found, data)
    return int(data.split(".")[-2])


def group_table(chat: EmulatorDriver) -> ChatMessage | None:
    """The family group's table of a game under way (its 🃏 My cards button: a hand
    shown in the group to its player alone, or an inline query on an older Bot API)."""
    for message in chat.messages_in("Family"):
        kinds = {b.kind for row in message.buttons for b in row}
        if "switch_inline_query_current_chat" in kinds or action_button(message, "H"):
            return message
    return None
