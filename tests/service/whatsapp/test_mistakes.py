"""Mistakes answered precisely on the local WhatsApp: a card typed that the person does
not hold, a draw typed with a card to play, each answered with its reason in their
language and the live moves to tap; an old prompt's tap, its prompt buried, offers them
too. (Every shape in every language is tests/service/test_mistakes.py, at the desk.)"""

from __future__ import annotations

from functools import partial

import pytest

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from service.desk.presses import MAX_CHOICES
from service.i18n import Translator
from service.infra import keys
from service.table import lobby
from service.table.games import game_of
from service.table.room import KEY_BITS, Room
from service.ui.screens import card_name
from tests.service.inproc import Hook
from tests.service.play import room_in
from tests.service.whatsapp.play import choices, last_out, moves, newest_prompt, outgoing
from tests.service.whatsapp.test_family_table import player_id
from tests.service.whatsapp.test_whatsapp_game import open_game

# Each person (the emulator's), how they ask for a Spanish game, their language, how
# they name ranks and suits, and how we say they do not hold a card.
PEOPLE = {
    "Abuela": ("nueva spanish", "es", "No tienes esa carta: {card}."),
    "Avó": ("jogar spanish", "pt_PT", "Não tens essa carta: {card}."),
    "Vovó": ("jogar spanish", "pt_BR", "Você não tem essa carta: {card}."),
    "Grandma": ("new spanish", "en", "You don't have the {card}."),
    "Nenek": ("main spanish", "id", "Kamu tidak memegang kartu itu: {card}."),
}
RANKS = {"es": "rey", "pt_PT": "rei", "pt_BR": "rei", "en": "king", "id": "raja"}
SUITS = {
    "es": {"D": "oros", "H": "copas", "S": "espadas", "C": "bastos"},
    "pt_PT": {"D": "ouros", "H": "copas", "S": "espadas", "C": "paus"},
    "pt_BR": {"D": "ouros", "H": "copas", "S": "espadas", "C": "paus"},
    "en": {"D": "diamonds", "H": "hearts", "S": "spades", "C": "clubs"},
    "id": {"D": "wajik", "H": "hati", "S": "sekop", "C": "keriting"},
}
CARD_TO_PLAY = "Tienes una carta que jugar."
HOLDS_THE_LED_SUIT = 2 | (1 << (KEY_BITS - 1))  # a game key, as new_game_key makes them


def prompt_after(wa: WhatsAppDriver, user: str, seen: int) -> WaChatMessage:
    return wa.wait_for(partial(newest_prompt, wa, user, seen), timeout=20, what="a prompt")


def answer_after(wa: WhatsAppDriver, user: str, said: WaChatMessage) -> WaChatMessage:
    """Our newest message after the person's `said`."""

    def found() -> WaChatMessage | None:
        last = last_out(wa, user)
        return last if last is not None and last.seq > said.seq else None

    return wa.wait_for(found, timeout=20, what="an answer")


def their_turn(hook: Hook, user: str) -> tuple[Room, int]:
    """The person's game, once it waits for them; and their seat."""
    player = player_id(hook, user)

    def waiting() -> tuple[Room, int] | None:
        room = room_in(hook, player)
        seat = room.seat_of(player)
        assert seat is not None and room.game is not None
        to_act = game_of(room.settings.preset).to_act(room.game)
        return (room, seat) if to_act and to_act[0] == seat else None

    return hook.emu.whatsapp.wait_for(waiting, timeout=20, what="their turn")


def not_held(room: Room, seat: int) -> str:
    """A king the person does not hold (another's, or the stock's: nothing tells)."""
    assert room.game is not None
    hand = game_of(room.settings.preset).hand(room.game, seat)
    return next(f"K{suit}" for suit in "HDSC" if f"K{suit}" not in hand)


@pytest.mark.parametrize("user", sorted(PEOPLE))
def test_a_card_not_held_is_refused_in_the_persons_words(hook: Hook, user: str) -> None:
    wa = hook.emu.whatsapp
    command, lang, refusal = PEOPLE[user]
    prompt = prompt_after(wa, user, open_game(wa, user, command))
    room, seat = their_turn(hook, user)
    card = not_held(room, seat)
    said = wa.send(user, f"{RANKS[lang]} de {SUITS[lang][card[-1]]}")
    answer = answer_after(wa, user, said)
    assert answer.text == refusal.format(card=card_name(card, True, Translator(lang)))
    offered = [title for _id, title in choices(answer)]
    assert room.game is not None
    legal = game_of(room.settings.preset).legal_actions(room.game, seat)
    if len(legal) > MAX_CHOICES:  # more than a reply holds: the prompt just above has them
        assert offered == []
    else:
        assert offered and set(offered) <= {title for _id, title in moves(prompt)}
    assert room_in(hook, player_id(hook, user)).game == room.game  # nothing played


def test_drawing_with_a_card_to_play_is_told_so_with_the_cards(
    hook: Hook, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A deal that leaves him a card to play on his first turn (one in two deals would
    # make him void in the led suit, with nothing to refuse).
    monkeypatch.setattr(lobby, "new_game_key", lambda: HOLDS_THE_LED_SUIT)
    wa = hook.emu.whatsapp
    wa.add_user("Tío", country="ES", language="es", username="tio.paco")
    prompt_after(wa, "Tío", open_game(wa, "Tío", "nueva spanish"))
    room, seat = their_turn(hook, "Tío")
    assert room.game is not None
    legal = game_of(room.settings.preset).legal_actions(room.game, seat)
    assert "draw" not in legal, "the deal was meant to leave him a card to play"
    answer = answer_after(wa, "Tío", wa.send("Tío", "robar"))
    assert answer.text == CARD_TO_PLAY
    # his moves come as the answer's own list, where one list holds them (ten rows);
    # more, and his prompt (which folds them) is what offers them
    assert bool(choices(answer)) == (len(legal) <= MAX_CHOICES)


def test_an_old_prompt_tapped_when_the_live_one_is_buried_offers_its_moves(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    wa.add_user("Prima", country="ES", language="es", username="prima.ana")
    first = prompt_after(wa, "Prima", open_game(wa, "Prima", "nueva spanish"))
    move = moves(first)[0][1]
    (wa.tap if first.buttons else wa.choose)("Prima", first, move)
    second = prompt_after(wa, "Prima", first.seq)
    # Messages of ours came after her live prompt (another table's, say).
    hook.redis.incrby(keys.wa_seq_key(player_id(hook, "Prima")), 2)
    before = len(outgoing(wa, "Prima"))
    (wa.tap if first.buttons else wa.choose)("Prima", first, choices(first)[-1][1])

    def refusal() -> WaChatMessage | None:
        found = [m for m in outgoing(wa, "Prima")[before:] if "anterior" in m.text]
        return found[0] if found else None

    told = wa.wait_for(refusal, timeout=20, what="the refusal")
    room, seat = their_turn(hook, "Prima")
    assert room.game is not None
    legal = game_of(room.settings.preset).legal_actions(room.game, seat)
    offered = {title for _id, title in choices(told)}
    if len(legal) > MAX_CHOICES:  # more than a reply holds: the prompt is posted again
        assert offered == set()
    else:
        assert offered == {title for _id, title in moves(second)}
