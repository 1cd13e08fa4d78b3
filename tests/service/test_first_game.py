"""A first game that explains itself (issue #37): one-line hints on a newcomer's own
hand where a decision is new to them, each shown through the first phase it came in and
never again; a first ¡Burro! without four of a kind, and a first fake call, told what
they do and risk instead of costing a letter."""

from __future__ import annotations

import dataclasses
from typing import Any

import fakeredis
import pytest

from cli.stack import Stack
from emulator.server import RunningEmulator
from emulator.telegram.driver import CallbackAnswer, EmulatorError
from engine.cuartetos import GameState as PassingState
from engine.cuartetos import player_view as passing_view
from engine.cuartetos.cards import is_four_of_a_kind
from engine.follow_suit.game import GameState
from engine.follow_suit.views import player_view
from service.i18n import Translator
from service.infra import hints as kept
from service.infra.forget import forget
from service.infra.keys import user_hints_key
from service.infra.store import Store
from service.table import lobby, play
from service.table.cuartetos.table import FAKE_CALL_TOLD, FALSE_BURRO_TOLD
from service.table.lobby import Actor
from service.table.log import LogKind, LogLine
from service.table.room import Room, RoomSettings
from service.ui import games, hints
from service.ui.follow_suit import FollowSuitPainter
from tests.service.play import room_in

ANA, BEN, CARLA = Actor(1, "Ana", "es"), Actor(2, "Ben", "en"), Actor(3, "Carla", "pt_BR")
START = 1_800_000_000.0


@pytest.fixture
def store() -> Store:
    return Store(fakeredis.FakeRedis(), 3600, 3600)


def started(preset: str, *people: Actor, bots: int = 0, seed: int = 7) -> Room:
    room = lobby.create_room(-5, None, people[0], START, settings=RoomSettings(preset=preset))
    room.seed = (1 << 127) | seed
    for person in people[1:]:
        lobby.join(room, person)
    for _ in range(bots):
        lobby.add_bot(room, people[0])
    assert lobby.start(room, people[0], START).changed
    return room


def hand_of(store: Store, room: Room, person: Actor) -> str:
    """The person's hand as the outbox paints it: with the hints the store gives."""
    seat = room.seat_of(person.user_id)
    assert seat is not None
    painter = games.painter(room, person.lang)
    kept.give(store, room, painter, person.user_id)
    return painter.hand(seat).text


def told(name: str, person: Actor) -> str:
    return f"{hints.MARK} {Translator(person.lang).gettext(hints.TEXTS[name])}"


def play_turn(room: Room, at: float) -> None:
    """Whoever is to move in a follow-suit game plays their first legal move."""
    assert isinstance(room.game, GameState)
    seat = room.game.hand.order[room.game.hand.turn]
    action = player_view(room.game, seat).legal[0]
    play.act(room, seat, action, at, 0.0)


def shown_in(text: str) -> list[str]:
    """The hints a screen shows, by name (English screens)."""
    return [name for name in hints.ORDER if hints.TEXTS[name] in text]


def hints_through(
    store: Store, room: Room, people: tuple[Actor, ...]
) -> dict[int, dict[str, set[int]]]:
    """Play the game out; each person's hints, with the phases each was shown in
    (every screen painted twice: a phase's screens all show its hint)."""
    seen: dict[int, dict[str, set[int]]] = {p.user_id: {} for p in people}
    for k in range(1, 200):
        if room.status != "playing":
            break
        for person in people:
            text = hand_of(store, room, person)
            assert text == hand_of(store, room, person)
            assert text.count(hints.MARK) <= 1  # one at a time
            for name in shown_in(text):
                seen[person.user_id].setdefault(name, set()).add(room.phase_version)
        play_turn(room, START + k)
    return seen


def test_follow_suit_hints_show_through_their_first_phase_then_never(store: Store) -> None:
    ana, ben = Actor(1, "Ana", "en"), Actor(2, "Ben", "en")
    room = started("spanish", ana, ben)
    assert isinstance(room.game, GameState)
    assert room.seats[room.game.hand.order[room.game.hand.turn]].user_id == ana.user_id
    first = hand_of(store, room, ana)
    assert shown_in(first) == [hints.BURRO]  # her first turn: what the burro is
    assert hints.MARK not in hand_of(store, room, ben)  # not his decision yet
    seen = hints_through(store, room, (ana, ben))
    # (this deal) a card is drawn for Ben on his first turn: why comes first
    assert {hints.DIG, hints.BURRO} <= set(seen[ben.user_id])
    assert hints.FOLLOW in seen[ana.user_id]
    for person in seen.values():
        assert all(len(phases) == 1 for phases in person.values())  # one phase each
    again = started("cangkul", ana, ben, seed=9)  # the same kind of game: told once
    later = hints_through(store, again, (ana, ben))
    for user, names in later.items():
        assert not set(names) & set(seen[user])


def test_a_hint_goes_only_where_it_leaves_the_screen_short_enough() -> None:
    tr = Translator("en")
    line = len(hints.hint_line(hints.GOAL, tr))
    short, full = "x" * (hints.ROOM - line - 1), "x" * (hints.ROOM - line)
    assert hints.fitting([hints.BURRO, hints.GOAL], short, tr) == [hints.GOAL, hints.BURRO]
    assert hints.fitting([hints.BURRO, hints.GOAL], full, tr) == [hints.BURRO]  # shorter
    assert hints.fitting([hints.GOAL], "x" * hints.ROOM, tr) == []


def test_hints_are_told_in_the_readers_language(store: Store) -> None:
    room = started("spanish", ANA, BEN)
    assert isinstance(room.game, GameState)
    leader = ANA if room.seats[room.game.hand.order[0]].user_id == ANA.user_id else BEN
    text = hand_of(store, room, leader)
    spanish = Translator("es").gettext(hints.TEXTS[hints.BURRO])
    english = hints.TEXTS[hints.BURRO]
    assert (spanish in text) == (leader is ANA) and (english in text) == (leader is BEN)
    assert spanish != english


def passing(seed: int = 7) -> Room:
    return started("cuartetos", ANA, BEN, CARLA, bots=1, seed=seed)


def choose_all(room: Room, at: float) -> None:
    """Everyone passes their first card: the next round's choosing begins."""
    assert isinstance(room.game, PassingState)
    for seat in range(len(room.seats)):
        card = room.game.hand.hands[seat][0]
        play.act(room, seat, f"pass:{card}", at, 0.0)


def test_cuartetos_hints_the_goal_then_the_fake_call_then_the_call(store: Store) -> None:
    room = passing()
    goal = told(hints.GOAL, ANA)
    assert goal in hand_of(store, room, ANA)
    assert hand_of(store, room, ANA).count(hints.MARK) == 1  # one thing at a time
    assert told(hints.GOAL, CARLA) in hand_of(store, room, CARLA)  # in Portuguese
    choose_all(room, START + 1)
    second = hand_of(store, room, ANA)
    assert goal not in second and told(hints.FAKE, ANA) in second
    play.act(room, 1, "fake", START + 2, 0.0)  # Ben shouts a fake: a call for Ana
    call = hand_of(store, room, ANA)
    assert told(hints.RESPOND, ANA) in call and told(hints.FAKE, ANA) not in call
    assert hints.MARK not in hand_of(store, room, BEN)  # his own call: nothing to decide


def test_a_first_false_burro_is_explained_and_the_next_costs_a_letter(store: Store) -> None:
    room = passing()
    assert isinstance(room.game, PassingState)
    answer = kept.explained_first(store, room, ANA.user_id, "burro")
    assert answer is not None and answer.popup is not None
    assert answer.popup.message == FALSE_BURRO_TOLD and not answer.changed
    assert room.game.standing.letters[0] == 0
    assert kept.explained_first(store, room, ANA.user_id, "burro") is None  # told once
    change = play.press(room, room.phase_version, ANA.user_id, "burro", START + 1, 0.0)
    assert callable(change)
    outcome = change(room)
    assert isinstance(room.game, PassingState) and room.game.standing.letters[0] == 1
    assert outcome.popup is not None and "letter" in outcome.popup.message
    # a later game: the person was told already
    assert kept.explained_first(store, passing(seed=8), ANA.user_id, "burro") is None


def test_a_first_fake_call_is_explained_and_the_next_is_shouted(store: Store) -> None:
    room = passing()
    answer = kept.explained_first(store, room, BEN.user_id, "fake:Barro")
    assert answer is not None and answer.popup is not None
    assert answer.popup.message == FAKE_CALL_TOLD
    assert str(dict(answer.popup.values)["word"]).startswith("¡")
    assert kept.explained_first(store, room, BEN.user_id, "fake") is None
    assert kept.explained_first(store, room, CARLA.user_id, "pass:AS") is None  # plays
    play.act(room, 1, "fake", START + 1, 0.0)
    assert isinstance(room.game, PassingState) and room.game.hand.call is not None


def test_a_real_burro_is_never_held_back(store: Store) -> None:
    room = passing()
    assert isinstance(room.game, PassingState)
    hands = room.game.hand.hands
    four = tuple(hands[0][0][:-1] + suit for suit in "SHDC")
    hand = dataclasses.replace(room.game.hand, hands=(four, *hands[1:]))
    room.game = dataclasses.replace(room.game, hand=hand)
    assert kept.explained_first(store, room, ANA.user_id, "burro") is None


def test_forgetting_a_person_forgets_their_hints(store: Store) -> None:
    room = passing()
    hand_of(store, room, ANA)
    assert store.redis.exists(user_hints_key(ANA.user_id))
    assert 0 < store.redis.ttl(user_hints_key(ANA.user_id)) <= store.people_ttl
    forget(store, ANA.user_id, START)
    assert not store.redis.exists(user_hints_key(ANA.user_id))


def test_a_call_legend_says_who_has_not_answered() -> None:
    room = passing()
    table = games.painter(room, "en").table().text
    assert "⏳ still choosing" in table and "yet to respond" not in table
    play.act(room, 1, "fake", START + 1, 0.0)
    table = games.painter(room, "en").table().text
    assert "⏳ yet to respond" in table and "still choosing" not in table


def test_a_seat_a_bot_took_over_is_not_promised_a_reminder() -> None:
    room = started("spanish", ANA, BEN)
    assert isinstance(room.game, GameState)
    waiting = 1 - room.game.hand.order[room.game.hand.turn]
    room.seats[waiting].removed = True
    text = games.painter(room, "en").hand(waiting).text
    assert "remind you" not in text and "A bot plays your seat now" in text


# ----- in the product: the outbox shows the hint, the desk explains the press ----------


def test_a_first_timer_against_bots_is_hinted_and_told_before_a_letter(
    emu: RunningEmulator, stack: Stack
) -> None:
    """Carla's first cuartetos, against bots on Telegram: her hand carries the goal; her
    first ¡Burro! without four of a kind is explained and costs nothing, the next one
    costs a letter."""
    chat = CARLA_ID
    emu.send_message("Carla", "Carla", "/play cuartetos")
    emu.wait_for_message(chat, lambda m: "▶️ Start" in m.button_texts)
    while len(room_in(stack, chat).seats) < 3:
        tap_lobby(emu, stack, chat, "B")
    tap_lobby(emu, stack, chat, "S")
    goal = f"{hints.MARK} {hints.TEXTS[hints.GOAL]}"
    emu.wait_for(lambda: any(goal in m.text for m in emu.messages_in("Carla")), what="the goal")
    told = emu.wait_for(lambda: burro(emu, stack), what="her first ¡Burro!")
    assert told.text == FALSE_BURRO_TOLD and told.show_alert
    assert not false_calls(room_in(stack, chat))  # nothing was applied
    emu.wait_for(lambda: burro(emu, stack) and false_calls(room_in(stack, chat)), what="a letter")


CARLA_ID = 100003  # the emulator's Carla


def burro(emu: RunningEmulator, stack: Stack) -> CallbackAnswer | None:
    """Carla taps ¡Burro! in the phase now on, while she may and holds no four of a
    kind (a bot may call, or time run out, meanwhile: None, to try again)."""
    room = room_in(stack, CARLA_ID)
    assert isinstance(room.game, PassingState)
    view = passing_view(room.game, 0)
    if "burro" not in view.legal or is_four_of_a_kind(view.hand):
        return None
    data = f"{room.id}.{room.phase_version}.b"
    shown = [m for m in emu.messages_in("Carla") if data in {b.value for r in m.buttons for b in r}]
    if not shown:
        return None
    try:
        return emu.tap("Carla", shown[-1], data).answer
    except EmulatorError:  # redrawn for a newer phase meanwhile
        return None


def false_calls(room: Room) -> list[LogLine]:
    return [line for line in room.log if line.kind == LogKind.FALSE_CALL and line.seat == 0]


def tap_lobby(emu: RunningEmulator, stack: Stack, chat: int, token: str) -> None:
    room = room_in(stack, chat)
    data = f"{room.id}.{room.version}.{token}"
    message = emu.wait_for_message(chat, lambda m: data in {b.value for r in m.buttons for b in r})
    emu.tap("Carla", message, data)
    emu.wait_for(lambda: room_in(stack, chat).version > room.version or None, what=token)


def test_a_hint_met_in_another_phase_costs_no_round_trip_nor_drawing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hints a person met in another phase are left out before their screen is
    drawn for a hint to fit and before the round trip that asks: as this process learned
    them, for an hour; a phase's own hint still shows on each of its screens."""
    clock = [START]
    store = Store(fakeredis.FakeRedis(), 3600, 3600, clock=lambda: clock[0])
    ana = Actor(1, "Ana", "en")  # (shown_in reads English screens)
    room = started("spanish", ana, BEN)
    assert shown_in(hand_of(store, room, ana)) == [hints.BURRO]  # her first turn
    asked, drawn = counted_asks(monkeypatch, store)
    assert kept.take(store, ana.user_id, [hints.BURRO], "another:1") == frozenset()
    assert kept.met_elsewhere(store, ana.user_id, "another:2") == {hints.BURRO}
    assert kept.met_elsewhere(store, ana.user_id, kept.stamp(room)) == frozenset()
    assert shown_in(hand_of(store, room, ana)) == [hints.BURRO]  # still, in its phase
    asked.clear()
    drawn.clear()
    later = room.model_copy(update={"phase_version": room.phase_version + 1})
    assert shown_in(hand_of(store, later, ana)) == []  # met in the first phase
    assert (asked, drawn) == ([], [])
    clock[0] += kept.MET_FOR + 1  # what this process learned is forgotten: asked again
    assert shown_in(hand_of(store, later, ana)) == []
    assert len(asked) == 1 and len(drawn) == 1
    forget(store, ana.user_id, clock[0])
    assert ana.user_id not in store.hints_met


def counted_asks(monkeypatch: pytest.MonkeyPatch, store: Store) -> tuple[list[str], list[int]]:
    """The scripts `store` runs (the hints' round trip) and the hands drawn for a hint
    to fit beside, as they happen."""
    asked: list[str] = []
    drawn: list[int] = []
    run, bare = store.redis.eval, FollowSuitPainter.bare_hand

    def eval_(source: str, *args: Any) -> Any:
        asked.append(source)
        return run(source, *args)

    def bare_hand(painter: FollowSuitPainter, seat: int) -> Any:
        drawn.append(seat)
        return bare(painter, seat)

    monkeypatch.setattr(store.redis, "eval", eval_)
    monkeypatch.setattr(FollowSuitPainter, "bare_hand", bare_hand)
    return asked, drawn
