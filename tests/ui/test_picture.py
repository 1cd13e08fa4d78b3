"""A table as a picture (service.ui.picture), for every preset: whole games played with
random moves, and at every step, for every seat and for the public table, the packed
picture fits a widget's data, holds no card its reader may not see, and every tap in it
is one of its reader's legal moves, pressed as the text hand's buttons press it."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

import tests.games  # noqa: F401  (registers the test games: every game draws a picture)
from engine.cuartetos import GameState as PassingGame
from engine.follow_suit.game import GameState
from engine.registry import games
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from service.ui import games as screens
from service.ui import tokens
from service.ui.follow_suit import FollowSuitPainter
from service.ui.intents import Command, Move, Press
from service.ui.picture import ACTING, BOT, MAX_WIDGET_DATA, OUT, YOU, Picture, pack
from tests.engine.test_contract import strings

ANA, BEN = Actor(1, "Ana", "en"), Actor(2, "Ben", "es")
PRESETS = [preset for game in games() for preset in game.presets]
CARD = re.compile(r"^(?:[2-9]|10|[AJQK])[SHDC]$|^JK$")


def new_room(preset: str, private: bool, players: int = 3, names: tuple[str, ...] = ()) -> Room:
    """A table of `preset`: Ana, Ben too in a group, bots up to `players`."""
    settings = RoomSettings(preset=preset)
    chat = ANA.user_id if private else -100
    ana = replace(ANA, name=names[0]) if names else ANA
    room = lobby.create_room(chat, None, ana, 0.0, private=private, settings=settings)
    for n, name in enumerate(names[1:] if not private else (), start=2):
        lobby.join(room, Actor(n, name, "es"))
    if not private and not names:
        lobby.join(room, BEN)
    while len(room.seats) < players:
        lobby.add_bot(room, ANA)
    lobby.start(room, ANA, 0.0)
    assert room.status == "playing"
    return room


def played(room: Room, seed: int, steps: int = 4000) -> Iterator[Room]:
    """The room at every step of a game of random moves (the same room, changed)."""
    rnd, now = random.Random(seed), 1.0
    yield room
    for _ in range(steps):
        if room.status != "playing":
            return
        game, now = play.game(room), now + 1.0
        waiting = game.to_act(room.game)
        if waiting:
            seat = rnd.choice(waiting)
            play.act(room, seat, rnd.choice(game.legal_actions(room.game, seat)), now, 0.0)
        else:
            play.expire(room, now + 1000.0, 0.0)
        yield room
    raise AssertionError("the game did not end")


def readers(room: Room) -> list[int | None]:
    return [None, *range(len(room.seats))]


def check(room: Room, reader: int | None, lang: str = "en") -> dict[str, Any]:
    """One reader's packed picture: it fits, it parses, it shows only what the reader
    may see, and its taps are the reader's legal moves; returned parsed."""
    painter = screens.painter(room, lang)
    text = pack(painter.picture(reader))
    assert len(text.encode()) <= MAX_WIDGET_DATA
    packed: dict[str, Any] = json.loads(text)
    check_cards(room, reader, packed, text)
    check_taps(room, reader, packed)
    return packed


def check_cards(room: Room, reader: int | None, packed: dict[str, Any], text: str) -> None:
    """Every card drawn is one the reader's view holds; no other seat's unseen card is
    drawn or named anywhere in the picture."""
    game = play.game(room)
    view = game.public_view(room.game) if reader is None else game.player_view(room.game, reader)
    known = strings(view)
    hand = [code for code, _tap in packed["h"]]
    assert hand == (list(view.hand) if reader is not None else [])
    middle = [code for _seat, code in packed["m"]]
    assert set(middle) <= known and set(packed["n"]) <= set(hand) | set(middle)
    painter = screens.painter(room, "en")
    words = re.sub(r"\\u[0-9a-f]{4}", " ", text)
    for seat in range(len(room.seats)):
        if seat == reader:
            continue
        for card in game.hand(room.game, seat):
            if card in known:
                continue
            assert f'"{card}"' not in text, (reader, card)
            label = re.escape(painter.card(card))
            assert not re.search(rf"(^|[\s:(\"]){label}($|[\s.,)\"])", words), (reader, card)


def check_taps(room: Room, reader: int | None, packed: dict[str, Any]) -> None:
    """Each tap decodes to a press of the room, drawn for now: a legal move of the
    reader's (each once, all of them there), or the one command a finished game has."""
    taps = [tap for _code, tap in packed["h"] if tap] + [tap for _l, tap, _t in packed["a"]]
    if reader is None:
        assert not taps and not packed["h"] and not packed["a"]
        return
    game = play.game(room)
    playing = room.status == "playing"
    legal = set(game.legal_actions(room.game, reader)) if playing else set()
    moved = []
    for tap in taps:
        press = tokens.press(packed["k"] + tap)
        assert isinstance(press, Press) and press.room == room.id
        if isinstance(press.what, Move):
            assert press.version == room.phase_version
            action = press.what.action
            assert action in legal or any(a.startswith(action + ":") for a in legal), action
            moved.append(action.partition(":")[0] if action == "fake" else action)
        else:
            assert press.what == Command("rematch") and packed["o"] and room.private
    assert len(moved) == len(set(moved))
    assert {a.partition(":")[0] if a.startswith("fake:") else a for a in legal} == set(moved)
    for code, tap in packed["h"]:
        assert bool(tap) == (f"play:{code}" in legal or f"pass:{code}" in legal)


@pytest.mark.parametrize("private", [False, True], ids=["group", "private"])
@pytest.mark.parametrize("preset", PRESETS)
def test_every_picture_of_a_whole_game(preset: str, private: bool) -> None:
    players = 4 if preset == "cuartetos" else 3
    for step, room in enumerate(played(new_room(preset, private, players), seed=len(preset))):
        for reader in readers(room):
            check(room, reader, "es" if step % 2 else "en")
            if reader is not None and step % 7 == 0:
                check_same_buttons(room, reader)
    assert room.status == "over"
    final = check(room, 0)
    assert final["o"] == 1 and final["u"]
    again = ["🔁 Play again"] if private and preset != "tiny" else []  # tiny has no rematch
    assert [label for label, _t, _tone in final["a"]] == again


def check_same_buttons(room: Room, seat: int) -> None:
    """The picture's moves are the text hand's buttons: the same labels, tones, presses
    (the whole story's button aside: a picture tells its story's last lines; and the
    tip's: it rides on the keyboard under a drawn hand, the drawing does not grow)."""
    painter = screens.painter(room, "en")
    picture = painter.picture(seat)
    rows = painter.hand(seat).rows
    buttons = [
        b
        for row in rows
        for b in row
        if isinstance(b.intent, Press) and b.intent.what not in (Command("story"), Command("tip"))
    ]
    cards = {c.tap for c in picture.hand if c.tap}
    others = [(b.label, tokens.text(b.intent), b.tone) for b in buttons]  # type: ignore[arg-type]
    others = [b for b in others if b[1] not in cards]
    assert others == [(a.label, a.tap, a.tone) for a in picture.actions]


def test_a_seat_picture_tells_whose_turn_and_who_is_who() -> None:
    room = new_room("burro_em_pe", private=False)
    painter = FollowSuitPainter(room, "en")
    game = room.game
    assert isinstance(game, GameState)
    acting = play.game(room).to_act(game)[0]
    picture = painter.picture(1)
    flags = [s.flags for s in picture.seats]
    assert flags[1] & YOU and not flags[0] & YOU
    assert flags[acting] & ACTING and flags[2] & BOT and not flags[0] & (BOT | OUT)
    assert [s.name for s in picture.seats] == ["Ana", "Ben", room.seats[2].name]
    assert len(picture.piles) == 2  # the tent
    assert picture.story == () or all("\n" not in line for line in picture.story)
    if acting != 1:
        assert picture.status == f"Waiting for {painter.name(acting)}."
    painter.named = True  # the reader sits at more than one table: which one is this
    assert painter.picture(1).title.endswith(painter.table_name())
    public = painter.picture(None)
    assert (
        public.hand == () and public.actions == () and not any(s.flags & YOU for s in public.seats)
    )


def test_a_passing_picture_says_where_the_card_goes() -> None:
    room = new_room("cuartetos", private=True, players=4)
    game = room.game
    assert isinstance(game, PassingGame)
    painter = screens.painter(room, "es")
    picture = painter.picture(0)
    view = play.game(room).player_view(game, 0)
    assert picture.towards == view.gives_to and picture.piles == ()
    assert [c.code for c in picture.hand] == list(view.hand)
    assert all(c.tap for c in picture.hand)  # choosing: any card may be passed
    assert [s.cards for s in picture.seats] == [4, 4, 4, 4]
    assert picture.status.startswith("Elige la carta")
    labels = [a.label for a in picture.actions]
    assert "🫏 ¡Burro!" in labels and any(label.startswith("🎭") for label in labels)
    assert dict(picture.names)[view.hand[0]] == painter.card(view.hand[0])
    assert painter.picture(None).towards is None


def picture_of(room: Room, seat: int) -> str:
    return pack(screens.painter(room, "en").picture(seat), None)


def swapped_follow_suit(game: GameState, reader: int, rnd: random.Random) -> GameState | None:
    """The same game but for two hidden cards swapped between two other hands (or a hand
    and the stock); None when there are none to swap."""
    hand = game.hand
    hidden = [
        [i for i in range(64) if (h & ~hand.known[s]) >> i & 1] if s != reader else []
        for s, h in enumerate(hand.hands)
    ]
    owners = [s for s, cards in enumerate(hidden) if cards]
    stock = [p for p, pile in enumerate(hand.piles) if pile]
    if not owners or (len(owners) < 2 and not stock):
        return None
    a = rnd.choice(owners)
    x = rnd.choice(hidden[a])
    hands = list(hand.hands)
    if len(owners) > 1:
        b = rnd.choice([s for s in owners if s != a])
        y = rnd.choice(hidden[b])
        hands[b] = hands[b] & ~(1 << y) | 1 << x
        piles = hand.piles
    else:  # one hand with hidden cards: swap with the stock's top card
        pile = list(hand.piles[stock[0]])
        y, pile[-1] = pile[-1], x
        piles = tuple(tuple(pile) if p == stock[0] else q for p, q in enumerate(hand.piles))
    hands[a] = hands[a] & ~(1 << x) | 1 << y
    return replace(game, hand=replace(hand, hands=tuple(hands), piles=piles))


def swapped_passing(game: PassingGame, reader: int) -> PassingGame | None:
    """The same game but for two other players' hands swapped (None: no two to swap)."""
    hand = game.hand
    if hand.end or hand.call is not None:
        return None
    others = [s for s in hand.players if s != reader and not hand.chosen[s]]
    if len(others) < 2:
        return None
    a, b = others[:2]
    hands = list(hand.hands)
    hands[a], hands[b] = hands[b], hands[a]
    return replace(game, hand=replace(hand, hands=tuple(hands)))


@pytest.mark.parametrize("preset", ["spanish", "burro_em_pe", "cangkul", "cuartetos"])
def test_hidden_cards_swapped_give_the_same_picture(preset: str) -> None:
    rnd, swaps = random.Random(7), 0
    room = new_room(preset, private=False, players=4)
    for step, now in enumerate(played(room, seed=3)):
        if step % 3:
            continue
        for reader in range(len(now.seats)):
            game = now.game
            other = (
                swapped_passing(game, reader)
                if isinstance(game, PassingGame)
                else swapped_follow_suit(game, reader, rnd)
            )
            if other is None:
                continue
            before = picture_of(now, reader)
            changed = now.model_copy(update={"game": other})
            assert picture_of(changed, reader) == before
            swaps += 1
    assert swaps > 10


NAMES = (
    "Maximiliana Conceição Ferreira",
    "Bartholomew Fitzgerald-Smythe",
    "Ngozi Adaeze Okonkwo-Eze 🌻",
    "Dewi Sartika Kusumawardhani",
    "Guadalupe Hernández Villanueva",
    "Sebastião Albuquerque Júnior",
)


@pytest.mark.parametrize("preset", ["brazilian", "cangkul", "cuartetos"])
def test_six_long_names_and_a_long_story_fit(preset: str) -> None:
    room = new_room(preset, private=False, players=6, names=NAMES)
    whole = []
    for room_now in played(room, seed=11):
        for reader in readers(room_now):
            check(room_now, reader, "pt_BR")
            picture = screens.painter(room_now, "pt_BR").picture(reader)
            whole.append(len(pack(picture, None).encode()))
    assert max(whole) > 700  # a table this full is no small case


def test_pack_gives_way_in_order_and_never_drops_a_tap() -> None:
    room = new_room("spanish", private=False, players=6, names=NAMES)
    picture = screens.painter(room, "en").picture(0)
    long = replace(picture, story=tuple(f"{'x' * 60} {n}" for n in range(12)))
    whole = json.loads(pack(long, None))
    assert len(whole["y"]) == 12 and whole["n"]
    small = json.loads(pack(long))
    assert small["h"] == whole["h"] and small["a"] == whole["a"] and small["k"] == whole["k"]
    assert small["y"] == whole["y"][-len(small["y"]) :] if small["y"] else not small["y"]
    with pytest.raises(ValueError, match="does not fit"):
        pack(long, 100)


def test_the_picture_is_in_the_screens_protocol() -> None:
    room = new_room("cuartetos", private=False, players=3)
    assert isinstance(screens.painter(room, "id").picture(None), Picture)
    assert all(CARD.match(code) for code in json.loads(picture_of(room, 0))["n"])


def test_a_seats_view_is_worked_out_once_for_each_state_of_the_game() -> None:
    """A screen asks for its reader's view several times (its text, its picture, its
    hints): the painter works it out once, and again once a move made a new state."""
    room = new_room("spanish", private=False)
    painter = screens.painter(room, "en")
    assert isinstance(painter, FollowSuitPainter) and isinstance(room.game, GameState)
    first = painter.view_of(1)
    assert painter.view_of(1) is first and painter.view_of(2) is not first
    painter.hand(1)
    painter.picture(1)  # both from the one view
    assert painter.view_of(1) is first
    seat = room.game.hand.order[room.game.hand.turn]
    play.act(room, seat, painter.view_of(seat).legal[0], 1.0, 0.0)
    assert painter.view_of(1) is not first  # the move made another state
