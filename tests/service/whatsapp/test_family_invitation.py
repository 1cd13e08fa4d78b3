"""A Telegram relative at a WhatsApp family's table: no group shows it, so her private
chat shows her the table as a group would (players, their counts, the story, whose
table) with her hand below it, kept up to date while the others play; never anyone
else's cards."""

from __future__ import annotations

import re
from functools import partial

from emulator.telegram.driver import ChatMessage
from emulator.whatsapp.driver import WaChatMessage
from engine.follow_suit.game import GameState, to_move
from engine.follow_suit.views import player_view, public_view
from engine.registry import find_game
from service.table.room import Room
from service.ui.follow_suit import FollowSuitPainter
from service.ui.screens import table_name
from tests.service.group_play import ending_at
from tests.service.inproc import Hook
from tests.service.play import game_buttons, names_in, room_in
from tests.service.whatsapp.play import act, outgoing
from tests.service.whatsapp.test_family_table import lobby_offering, player_id
from tests.service.whatsapp.test_mixed_table import (
    LINK,
    play_to_the_end,
    play_whatsapp_turn,
    wait_moved,
)

TURNS_READ = 3  # Ana's turns whose screens are read whole before the game plays out
# Who took a trick, as Ana's story tells it: she herself, in the second person, or another.
TOOK = re.compile(r"^(Te llevas la baza|.+ se lleva la baza)\.$", re.MULTILINE)


def test_a_telegram_relative_sees_the_table_in_her_private_chat(hook: Hook) -> None:
    emu, wa = hook.emu, hook.emu.whatsapp
    before = len(outgoing(wa, "Abuela"))
    wa.send("Abuela", "familia")
    told = wa.wait_for(
        lambda: next((m for m in outgoing(wa, "Abuela")[before:] if "wa.me" in m.text), None),
        what="the links to share",
    )
    found = LINK.search(told.text)
    assert found is not None
    code = re.sub(r"^\S+%20", "", found[2])
    emu.start("Ana", f"j{code}")
    welcome = emu.wait_for_message("Ana", lambda m: "Abuela" in m.text, timeout=20)
    assert "👋" in welcome.text and "Ana" in welcome.text
    host = player_id(hook, "Abuela")
    lobby = lobby_offering(wa, "Abuela", "🤖 Añadir bot", 0)
    act(wa, "Abuela", lobby, "🤖 Añadir bot")
    emu.wait_for(lambda: len(room_in(hook, host).seats) == 3 or None, what="the bot seated")
    hook.store().update(room_in(hook, host).id, ending_at(2))
    act(wa, "Abuela", lobby_offering(wa, "Abuela", "▶️ Empezar", lobby.seq), "▶️ Empezar")
    emu.wait_for(lambda: room_in(hook, host).status != "lobby" or None, what="the start")
    seen, read = (0, 0), []
    for _turn in range(TURNS_READ):
        seen, text = read_anas_turn(hook, host, seen)
        read.append(text)
    # the story since her last look: the trick she played in, and who took it (whoever
    # the deal lets take it)
    assert any(TOOK.search(text) for text in read[1:]), read
    play_to_the_end(hook, host)
    assert not any("wa.me" in m.text for m in emu.messages_in("Ana"))  # no group's words


def read_anas_turn(hook: Hook, host: int, seen: tuple[int, int]) -> tuple[tuple[int, int], str]:
    """Until it is Ana's turn (the others moving meanwhile: `seen`, the last of Abuela's
    prompts acted on), then her private chat's last message, read while the room stands
    still: every seat's line (name, cards, points), the stock, her own cards, and none
    of the others'; she plays. The last of Abuela's prompts acted on, and what Ana
    read."""
    emu = hook.emu
    for _ in range(500):
        room = room_in(hook, host)
        assert isinstance(room.game, GameState) and room.status == "playing"
        seat = to_move(room.game)
        assert seat is not None
        if room.seats[seat].name == "Ana":
            break
        if room.seats[seat].bot is None:  # Abuela's turn: Ana's chat shows it, then
            # Abuela moves from her prompt
            emu.wait_for(partial(shows_now, hook, room), timeout=20, what="Ana's table")
            seen, _opened = play_whatsapp_turn(hook, "Abuela", room, seat, seen)
        wait_moved(hook, host, room)
    else:
        raise AssertionError("Ana's turn never came")
    mark = f".{room.version}."
    message = emu.wait_for(
        lambda: ana_prompt(hook, mark), timeout=20, what="Ana's turn in her private chat"
    )
    game = room.game
    painter = FollowSuitPainter(room, room.seats[seat].lang)
    view = public_view(game)
    for other in range(len(room.seats)):
        assert painter.seat_line(view, other) in message.text, message.text
    assert painter.stock_line(view) in message.text
    assert table_name(room, painter.tr) == "Mesa de Abuela"
    assert message.text.startswith("🫏 ") and "Mesa de Abuela" in message.text.split("\n")[0]
    own = player_view(game, seat)
    assert painter.cards(own.hand) in message.text
    rules = find_game(room.settings.preset)[0]
    hidden = {
        painter.card(code)
        for other in range(len(room.seats))
        if other != seat
        for code in rules.hand(game, other)
    }
    shown = message.text + " " + " ".join(b.text for row in message.buttons for b in row)
    assert not names_in(shown, hidden), names_in(shown, hidden)
    button = game_buttons(message)[0]
    emu.tap("Ana", message, str(button.value))
    wait_moved(hook, host, room)
    return seen, message.text


def shows_now(hook: Hook, room: Room) -> bool | None:
    """Whether Ana's last message shows the table as it stands: every seat's line."""
    message = hook.emu.last_message("Ana")
    assert isinstance(room.game, GameState) and message is not None
    seat = next(i for i, info in enumerate(room.seats) if info.name == "Ana")
    painter = FollowSuitPainter(room, room.seats[seat].lang)
    view = public_view(room.game)
    lines = [painter.seat_line(view, other) for other in range(len(room.seats))]
    return all(line in message.text for line in lines) or None


def ana_prompt(hook: Hook, mark: str) -> ChatMessage | None:
    message = hook.emu.last_message("Ana")
    current = [b for b in game_buttons(message) if mark in str(b.value)]
    return message if message is not None and current else None


def test_familia_during_a_game_against_bots(hook: Hook) -> None:
    """Vovó, mid-game against bots, writes "familia": asked first, with two buttons.
    Meanwhile Ben follows a link to that game (as "familia" once handed out): he is
    shown a way on, and Vovó is told in her chat. Her "family table" tap ends the game
    and gives the links of a new table, which seat Ben."""
    emu, wa = hook.emu, hook.emu.whatsapp
    wa.send("Vovó", "novo jogo")
    game = emu.wait_for(lambda: playing(hook, "Vovó"), what="her game against bots")
    vovo = player_id(hook, "Vovó")
    before = len(outgoing(wa, "Vovó"))
    wa.send("Vovó", "familia")
    question = wa.wait_for(
        lambda: next((m for m in outgoing(wa, "Vovó")[before:] if asks_first(m)), None),
        what="the question",
    )
    assert game.id not in question.text and "wa.me" not in question.text
    emu.start("Ben", f"j{game.id}")
    way_on = emu.wait_for_message("Ben", lambda m: "🔒" in m.text, timeout=20)
    assert "Vovó" in way_on.text and "🎲 Jogar agora" in way_on.button_texts
    told = wa.wait_for(
        lambda: next((m for m in outgoing(wa, "Vovó") if m.text.startswith("🔒 Ben")), None),
        what="Vovó told of Ben's try",
    )
    assert "mesa da família" in told.text
    room = hook.store().load(game.id)
    assert room is not None and room.status == "playing" and room.seat_of(100002) is None
    act(wa, "Vovó", question, "👪 Mesa da família")
    links = wa.wait_for(
        lambda: next((m for m in outgoing(wa, "Vovó") if "wa.me" in m.text), None),
        what="the family table's links",
    )
    table = hook.store().room_in_chat(vovo, None)
    assert table is not None and not table.private and table.id != game.id
    assert f"start=j{table.id}" in links.text and game.id not in links.text
    ended = hook.store().load(game.id)
    assert ended is not None and ended.status == "cancelled"
    emu.start("Ben", f"j{table.id}")
    emu.wait_for(lambda: len(room_in(hook, vovo).seats) == 2 or None, what="Ben seated")


def playing(hook: Hook, name: str) -> Room | None:
    """The WhatsApp person's game against bots, once it is dealt."""
    found = hook.redis.get(f"wa:id:{hook.emu.whatsapp.user(name)['user_id']}")
    return game_against_bots(hook, int(found)) if found else None


def asks_first(message: WaChatMessage) -> bool:
    titles = [b.title for b in message.buttons]
    return titles == ["👪 Mesa da família", "▶️ Continuar jogando"]


def test_family_table_during_a_game_against_bots_on_telegram(hook: Hook) -> None:
    """Carla, new on Telegram, taps the greeting's Play now, then its Family table while
    that game goes on: asked first; her yes ends the game and gives a new table's
    links, never her game's."""
    emu = hook.emu
    emu.start("Carla")
    greeting = emu.wait_for_message("Carla", lambda m: "👪 Family table" in m.button_texts)
    emu.tap("Carla", greeting, "🎲 Play now")
    game = emu.wait_for(lambda: game_against_bots(hook, 100003), what="her game")
    emu.tap("Carla", greeting, "👪 Family table")
    question = emu.wait_for_message("Carla", lambda m: "▶️ Keep playing" in m.button_texts)
    assert game.id not in question.text
    emu.tap("Carla", question, "👪 Family table")
    links = emu.wait_for_message("Carla", lambda m: "start=j" in m.text, timeout=20)
    table = hook.store().room_in_chat(100003, None)
    assert table is not None and not table.private and f"start=j{table.id}" in links.text
    assert game.id not in links.text
    ended = hook.store().load(game.id)
    assert ended is not None and ended.status == "cancelled"


def game_against_bots(hook: Hook, player: int) -> Room | None:
    """The person's game against bots, once it is dealt (any platform's id)."""
    room = hook.store().room_in_chat(player, None)
    return room if room is not None and room.private and room.status == "playing" else None
