"""A one-to-one game against bots through the local WhatsApp, for each preset family (the
tent and cangkul in test_whatsapp_tent_and_cangkul.py, so that they run beside these):
the person writes (a greeting, or "new game" and a game's name) and the game against
three bots is dealt at once; they play it to its end, each decision one prompt, nothing
but their own cards shown. A game set up first ("settings") goes through its lobby."""

from __future__ import annotations

import pytest

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from tests.service.inproc import Hook
from tests.service.whatsapp.play import (
    act,
    choices,
    is_final,
    last_out,
    outgoing,
    play_game,
)


def lobby_offering(wa: WhatsAppDriver, user: str, title: str, after: int) -> WaChatMessage:
    """The person's newest message from us after their `after`-th, once it offers `title`."""

    def found() -> WaChatMessage | None:
        last = last_out(wa, user)
        fresh = len(outgoing(wa, user)) > after
        return last if fresh and last is not None and title in titles(last) else None

    return wa.wait_for(found, timeout=20, what=f"a message offering {title}")


def titles(message: WaChatMessage) -> list[str]:
    return [title for _id, title in choices(message)]


def open_game(wa: WhatsAppDriver, user: str, command: str) -> int:
    """The person asks for a game (`command`: a greeting, or "new game" words and a
    game's name): it is dealt at once; their message's place (the game's come after)."""
    return wa.send(user, command).seq


def set_up_game(wa: WhatsAppDriver, user: str, command: str, start: str, bots: int = 0) -> int:
    """The person asks for a game to set up (`command`: "settings" words and a game's
    name), adds `bots` more bots, then starts it; the lobby message's place (the game's
    messages come after it)."""
    before = len(outgoing(wa, user))
    wa.send(user, command)
    lobby = lobby_offering(wa, user, start, before)
    for _ in range(bots):
        add = next(t for t in titles(lobby) if t.startswith("🤖"))
        before = len(outgoing(wa, user))
        act(wa, user, lobby, add)
        lobby = lobby_offering(wa, user, start, before)
    act(wa, user, lobby, start)
    return lobby.seq


@pytest.mark.parametrize(
    ("user", "command"),
    [("Abuela", "nueva spanish"), ("Vovó", "jogar brazilian"), ("Grandma", "new cuartetos")],
)
def test_a_game_against_bots_to_its_end(hook: Hook, user: str, command: str) -> None:
    wa = hook.emu.whatsapp
    asked = open_game(wa, user, command)
    played = play_game(wa, user, after=asked, worker=hook.worker)
    # A deal may end the game in a few moves (a cuartetos table of bots calls at once,
    # and the person, answering last, takes the letter): played, and ended as told.
    assert played.moves >= 1
    assert played.final is not None and is_final(played.final)
    assert hook.worker is not None
    hook.worker.check()


def player_of(hook: Hook, name: str) -> int:
    """A WhatsApp person's player id (service.platforms.whatsapp.people)."""
    bsuid = hook.emu.whatsapp.user(name)["user_id"]
    found = hook.redis.get(f"wa:id:{bsuid}")
    assert found is not None
    return int(found)
