"""The passing game's service parts without Redis or Telegram: button data, settings,
the jobs each phase schedules, bots in the service, screens that hide the hands, and
rooms stored as JSON."""

from __future__ import annotations

import json
import random
import re

import pytest

from engine.cuartetos import GameState, PassingRules, legal_actions, to_move
from engine.cuartetos import deadline as deadline_of
from engine.cuartetos.cards import pack
from engine.cuartetos.records import read_passing_record
from engine.cuartetos.replay import trace
from service.platforms.telegram import callbacks
from service.table import family, lobby
from service.table.cuartetos import actions, moves
from service.table.cuartetos.lobby import PACES, TARGETS
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings
from service.ui.cuartetos import PassingPainter

ANA, BEN, CARLA = Actor(1, "Ana", "es"), Actor(2, "Ben", "pt_BR"), Actor(3, "Carla", "en")
START = 1_800_000_000.0  # a server time, seconds


def table(bots: int = 1, level: str = "heuristic", seed: int = 7, **options: object) -> Room:
    """Ana, Ben and Carla, and bots; started at START."""
    settings = RoomSettings(preset="cuartetos", options=dict(options), bot_level=level)
    room = lobby.create_room(-5, None, ANA, START, settings=settings)
    room.seed = (1 << 127) | seed  # a full-size key (a small one is replaced as legacy)
    lobby.join(room, BEN)
    lobby.join(room, CARLA)
    for _ in range(bots):
        lobby.add_bot(room, ANA)
    assert lobby.start(room, ANA, START).changed
    return room


def game(room: Room) -> GameState:
    assert isinstance(room.game, GameState)
    return room.game


def test_button_data_fits_64_bytes_and_round_trips() -> None:
    cards = pack(("A", "K", "Q", "J", "10", "9", "8", "7"))
    for action in ["burro", "respond", "fake:Barro", *(f"pass:{c}" for c in cards)]:
        data = callbacks.encode("abcdefgh", 999_999_999, actions.token(action))
        assert len(data.encode()) <= 64
        press = callbacks.decode(data)
        assert press is not None
        back = actions.action(press.action)
        assert back == ("fake" if action.startswith("fake:") else action)


def test_cuartetos_in_the_lobby_with_its_own_settings() -> None:
    room = lobby.create_room(-5, None, ANA, 0.0)
    while room.settings.preset != "cuartetos":
        assert lobby.change_setting(room, ANA, "preset").changed
    assert room.settings.passing and lobby.seat_limit(room) == 8
    seen = set()
    for _ in range(len(PACES)):
        lobby.change_setting(room, ANA, "pace")
        rules = room.settings.rules()
        assert isinstance(rules, PassingRules)
        seen.add((rules.pass_window, rules.response_window))
    assert seen == set(PACES)
    letters = set()
    for _ in range(len(TARGETS)):
        lobby.change_setting(room, ANA, "target")
        letters.add(room.settings.rules().target)
    assert letters == set(TARGETS)
    for key in ("hand", "empty", "timeout", "ontimeout"):  # follow-suit only
        assert not lobby.change_setting(room, ANA, key).changed
    for key in ("suits", "remind", "lang", "bot", "quiet", "tz"):
        assert lobby.change_setting(room, ANA, key).changed
    assert "o:pace" in str(family.painter(room, "en").settings())
    lobby.join(room, BEN)
    refused = lobby.start(room, ANA, 0.0)  # two players: three are needed
    assert refused.popup is not None and room.status == "lobby"
    assert family.preset_named("CUARTETOS") == "cuartetos"


def test_a_phase_schedules_its_close_and_its_bots() -> None:
    room = table(bots=2)
    assert room.phase_version == room.version
    close = Outcome()
    moves.schedule_phase(room, game(room), close, bot_delay=0.0)
    kinds = sorted((j.kind, j.arg) for j in close.jobs)
    version = str(room.phase_version)
    assert kinds == [
        ("passing_bot", f"{version}:3"),
        ("passing_bot", f"{version}:4"),
        ("passing_close", version),
    ]
    assert next(j.at for j in close.jobs if j.kind == "passing_close") == deadline_of(game(room))
    # A choice keeps the phase: buttons of the phase stay good for the others.
    phase = room.phase_version
    card = game(room).hand.hands[0][0]
    moves.act(room, 0, f"pass:{card}", START + 1, 0.0)
    assert room.phase_version == phase and room.version > phase
    assert callable(moves.press_change(room, phase, BEN.user_id, "pass:" + card, START, 0.0))
    # A fake call opens a new phase: the old buttons are out of date.
    outcome = moves.act(room, 1, "fake", START + 2, 0.0)
    assert room.phase_version == room.version > phase
    stale = moves.press_change(room, phase, CARLA.user_id, "respond", START + 3, 0.0)
    assert isinstance(stale, Outcome) and stale.popup is not None
    assert {j.kind for j in outcome.jobs} >= {"passing_close", "passing_bot"}


def test_slow_tables_remind_and_post_calls_anew() -> None:
    room = table(bots=1, pass_window=4 * 3600.0, response_window=1800.0)
    room.settings.reminder_after = 3600
    outcome = Outcome()
    moves.schedule_phase(room, game(room), outcome, bot_delay=0.0)
    remind = [j for j in outcome.jobs if j.kind == "passing_remind"]
    assert remind and remind[0].at == START + 3600
    nudge = moves.remind(room)
    assert nudge.changed and "nudge" in nudge.sync and "hand:1:new" in nudge.sync
    assert not moves.remind(room).changed  # once per phase
    called = moves.act(room, 0, "fake", START + 10, 0.0)
    assert "hand:2:new" in called.sync and "hand:3:new" in called.sync
    assert "hand:1" in called.sync  # the caller's screen is edited, not posted again


def test_the_sweeper_finds_what_a_room_needs() -> None:
    room = table(bots=1)
    job = moves.missing_job(room, START)
    assert job is not None and job.kind == "passing_bot"
    assert job.arg == f"{room.phase_version}:3"
    moves.bot_turn(room, 3, START + 0.5, 0.0)
    assert room.passing_bots_waiting() == []
    assert room.next_due() == room.deadline
    later = moves.missing_job(room, START + 1)
    assert later is not None and later.kind == "passing_remind"
    due = moves.missing_job(room, deadline_of(game(room)) or 0.0)
    assert due is not None and due.kind == "passing_close"


@pytest.mark.parametrize("level", ["easy", "heuristic"])
def test_bots_answer_fakes_as_their_level_is_fooled(level: str) -> None:
    fooled = calls = 0
    for seed in range(60):
        room = table(bots=1, level=level, seed=seed)
        moves.act(room, 0, "fake", START + 1, 0.0)
        calls += 1
        call = game(room).hand.call
        assert call is not None
        before = len(call.responses)
        moves.bot_turn(room, 3, START + 1.5, 0.0)
        call = game(room).hand.call
        fooled += call is not None and len(call.responses) > before
    if level == "easy":
        assert 0 < fooled < calls  # sometimes
    else:
        assert fooled == 0


@pytest.mark.parametrize("seed", range(6))
def test_bots_answer_a_real_call_and_call_when_they_can(seed: int) -> None:
    room = table(bots=1, seed=seed)
    for _ in range(2000):  # play until a hand is won with ¡Burro!
        g = game(room)
        if g.over or any(line.kind == "real_call" for line in room.log):
            break
        t = START + len(g.hand.actions) + 1
        if g.hand.call is not None:
            for seat in to_move(g):
                if room.is_bot_seat(seat):
                    moves.bot_turn(room, seat, t, 0.0)
                else:
                    moves.act(room, seat, "respond", t, 0.0)
            continue
        for seat in to_move(g):
            if room.is_bot_seat(seat):
                moves.bot_turn(room, seat, t, 0.0)
            else:
                hand = g.hand.hands[seat]
                counts = {c[:-1]: sum(x[:-1] == c[:-1] for x in hand) for c in hand}
                if max(counts.values()) == 4:
                    moves.act(room, seat, "burro", t, 0.0)
                else:
                    moves.act(room, seat, "pass:" + min(hand, key=lambda c: counts[c[:-1]]), t, 0.0)
            break
    lines = [line for line in room.log if line.kind == "real_call"]
    assert lines and lines[0].losers and len(lines[0].order) == 3  # everyone answered
    # /export's record of the won hand replays to the same result, receive times and all.
    g = game(room)
    number = next(i for i in range(family.finished_hands(g)) if g.past[i].end == "burro")
    record = read_passing_record(json.dumps(family.hand_record(g, number)))
    result = list(trace(record))[-1]["result"]
    assert result["finished"] and result["losers"] == list(g.past[number].losers)


@pytest.mark.parametrize("lang", ["en", "es", "pt_BR", "pt_PT", "id"])
def test_screens_show_no_hidden_card(lang: str) -> None:
    room = table(bots=1)
    rnd = random.Random(lang)
    t = START
    for _ in range(250):
        g = game(room)
        if g.over:
            break
        painter = PassingPainter(room, lang)
        held = {card for hand in g.hand.hands for card in hand}
        screens = {None: painter.table()} | {seat: painter.hand(seat) for seat in range(4)}
        for viewer, screen in screens.items():
            shown = screen.text + " " + " ".join(b.label for row in screen.rows for b in row)
            knows: set[str] = set()
            if viewer is not None:
                h = g.hand
                knows = {*h.hands[viewer], *h.passed[viewer], *h.received[viewer]}
            for card in held - knows:
                label = re.escape(painter.card(card))
                assert not re.search(rf"(^|[\s:(]){label}($|[\s.,)])", shown), (viewer, card)
        t += 0.4
        waiting = to_move(g)
        if waiting and rnd.random() < 0.85:
            seat = rnd.choice(waiting)
            if room.is_bot_seat(seat):
                moves.bot_turn(room, seat, t, 0.0)
            elif g.hand.call is None or rnd.random() < 0.5:
                moves.act(room, seat, rnd.choice(legal_actions(g, seat)), t, 0.0)
        else:
            t = max(t, deadline_of(g) or t)
            moves.close(room, t, 0.0)


def test_a_room_with_a_passing_game_survives_json() -> None:
    room = table(bots=1)
    moves.act(room, 0, "fake", START + 1, 0.0)
    back = Room.model_validate_json(room.model_dump_json())
    assert back == room and isinstance(back.game, GameState)
    assert family.finished_hands(back.game) == 0
