"""One table, two platforms: Ana opens it in the Telegram group, the lobby tells family
on WhatsApp how to join, Abuela and Vovó join from WhatsApp with its words, a bot fills a
seat, and all four play it to the end; no WhatsApp prompt shows another's cards."""

from __future__ import annotations

import re
from functools import partial

from emulator.telegram.driver import ChatMessage
from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from engine.follow_suit.game import GameState, to_move
from engine.registry import find_game
from service.platforms.whatsapp import render
from service.table.room import Room
from service.ui import games
from service.ui.follow_suit import FollowSuitPainter
from tests.service.group_play import ending_at, tap_lobby
from tests.service.inproc import Hook
from tests.service.play import GROUP, action_button, game_buttons, names_in, room_in
from tests.service.whatsapp.play import act, newest_prompt, outgoing, pick

WHATSAPP_FAMILY = ("Abuela", "Vovó")
LINK = re.compile(r"https://wa\.me/(\d+)\?text=(\S+)")


def lobby_in_group(hook: Hook) -> ChatMessage:
    return hook.emu.wait_for_message(
        GROUP, lambda m: action_button(m, "S") is not None and "wa.me" in m.text, timeout=20
    )


def test_two_whatsapp_players_a_telegram_one_and_a_bot(hook: Hook) -> None:
    play_mixed_table(hook, target=2)


def play_mixed_table(hook: Hook, target: int | None = None) -> dict[str, int]:
    """The table of the test, played to the end (at `target` points, else the preset's);
    the moves made on each platform, and the WhatsApp players' other decisions: joining,
    and folded suits opened."""
    emu, wa = hook.emu, hook.emu.whatsapp
    emu.start("Ana")  # her cards come to her private chat
    emu.send_message("Ana", GROUP, "/burro spanish")
    lobby = lobby_in_group(hook)
    found = LINK.search(lobby.text)
    assert found is not None and found[1] == "15550009999"  # the business's number
    code = re.sub(r"^\S+%20", "", found[2])
    group = lobby.chat_id
    for user, words in zip(WHATSAPP_FAMILY, ("unirme", "entrar"), strict=True):
        wa.send(user, f"{words} {code}")
        emu.wait_for(partial(seated, hook, group, user), what=f"{user} seated")
    tap_lobby(emu, "Ana", "B")
    emu.wait_for(lambda: len(room_in(hook, group).seats) == 4 or None, what="the bot seated")
    if target is not None:
        hook.store().update(room_in(hook, group).id, ending_at(target))
    tap_lobby(emu, "Ana", "S")
    decisions = play_to_the_end(hook, group)
    assert hook.worker is not None
    hook.worker.check()
    return decisions | {"whatsapp_joined": len(WHATSAPP_FAMILY)}


def play_to_the_end(hook: Hook, group: int) -> dict[str, int]:
    emu, wa = hook.emu, hook.emu.whatsapp
    seen = {user: (0, 0) for user in WHATSAPP_FAMILY}  # (place, revision) of the last read
    decisions = {"whatsapp": 0, "telegram": 0, "whatsapp_opened": 0}
    for _ in range(2000):
        room = room_in(hook, group)
        if room.status == "over":
            break
        if room.status != "playing":
            emu.wait_for(lambda: room_in(hook, group).status != "lobby" or None, what="the start")
            continue
        assert isinstance(room.game, GameState)
        seat = to_move(room.game)
        assert seat is not None
        player = room.seats[seat]
        if player.bot is not None:
            wait_moved(hook, group, room)
            continue
        decisions[player.platform] += 1
        if player.platform == "whatsapp":
            seen[player.name], opened = play_whatsapp_turn(
                hook, player.name, room, seat, seen[player.name]
            )
            decisions["whatsapp_opened"] += opened
        else:
            mark = f".{room.version}."

            def keyboard(m: str = mark) -> tuple[ChatMessage, str] | None:
                message = emu.last_message("Ana")
                current = [b for b in game_buttons(message) if m in str(b.value)]
                return (message, str(current[0].value)) if message and current else None

            message, data = emu.wait_for(keyboard, what="Ana's keyboard")
            emu.tap("Ana", message, data)
        wait_moved(hook, group, room)
    over = room_in(hook, group)
    assert over.status == "over"
    for info in over.seats:  # the end is told in each WhatsApp chat too, and no move offered
        if info.platform == "whatsapp":
            result = games.painter(over, info.lang).news_lines()[0]
            wa.wait_for(partial(told_end, wa, info.name, result), timeout=20)
    return decisions


def seated(hook: Hook, group: int, user: str) -> bool:
    return any(s.name == user for s in room_in(hook, group).seats)


def told_end(wa: WhatsAppDriver, user: str, result: str) -> bool:
    """The game's end is among the person's last messages, and none offers a move (a
    family table's host also gets its final table, with its Rematch)."""
    last = outgoing(wa, user)[-2:]
    moves = [b.id for b in last[-1].buttons] + [r.id for r in last[-1].rows] if last else []
    offered = [i for i in moves if re.search(r"\.\d+\.(p|c|d|x)", i)]
    return any(result in m.text for m in last) and not offered


def play_whatsapp_turn(
    hook: Hook, user: str, room: Room, seat: int, seen: tuple[int, int]
) -> tuple[tuple[int, int], int]:
    """Play the person's turn from their prompt (a folded suit opened first, then its
    card, if that is what they pick); the place and revision of the last message they
    acted on, and how many suits they opened."""
    wa = hook.emu.whatsapp
    for opened in range(3):
        prompt = wa.wait_for(
            partial(prompt_now, hook, user, room, seen),
            timeout=20,
            what=f"{user}'s prompt",
        )
        assert_only_their_cards(prompt, room, seat)
        seen, choice = (prompt.seq, prompt.rev), pick(prompt)
        act(wa, user, prompt, choice)
        if render.pick_of(choice) is None:
            return seen, opened
    raise AssertionError(f"{user} found no move to make")


def prompt_now(hook: Hook, user: str, room: Room, after: tuple[int, int]) -> WaChatMessage | None:
    """The person's newest prompt, once it is the one for the room's current turn (only
    the chat's messages changed since the last one read are looked at)."""
    prompt = newest_prompt(hook.emu.whatsapp, user, *after)
    ids = [b.id for b in prompt.buttons] + [r.id for r in prompt.rows] if prompt else []
    drawn_for = re.compile(rf"{room.id}\.{room.phase_version}(\.|$)")  # a move's, or a pick's
    return prompt if any(drawn_for.search(i) for i in ids) else None


def wait_moved(hook: Hook, group: int, room: Room) -> None:
    """Until the move is applied; a bot's, due after its delay, at once (the clock is
    moved on when nothing else is left to happen)."""

    def moved() -> bool | None:
        if room_in(hook, group).version > room.version:
            return True
        if hook.worker is not None:
            hook.worker.skip_ahead()
        return None

    hook.emu.wait_for(moved, what="the move applied")


def assert_only_their_cards(prompt: WaChatMessage, room: Room, seat: int) -> None:
    """The prompt names no card still in another seat's hand."""
    game = find_game(room.settings.preset)[0]
    painter = FollowSuitPainter(room, room.seats[seat].lang)
    hidden = {
        painter.card(code)
        for other in range(len(room.seats))
        if other != seat
        for code in game.hand(room.game, other)
    }
    shown = prompt.text + " " + " ".join(b.title for b in prompt.buttons)
    shown += " " + " ".join(r.title for r in prompt.rows)
    assert not names_in(shown, hidden), names_in(shown, hidden)
