"""The passing game's service parts without Redis or Telegram: button data, settings,
the jobs each phase schedules, bots in the service, screens that hide the hands, and
rooms stored as JSON."""

from __future__ import annotations

import json
import random
import re

import pytest

from engine.cuartetos import CuartetosRules, GameState, legal_actions, to_move
from engine.cuartetos import deadline as deadline_of
from engine.cuartetos.cards import pack
from engine.cuartetos.records import read_record
from engine.cuartetos.replay import trace
from service.platforms.telegram import callbacks
from service.table import games as table_games
from service.table import lobby, play
from service.table.cuartetos.lobby import PACES, TARGETS
from service.table.lobby import Actor
from service.table.outcome import JobKind, Outcome
from service.table.room import Room, RoomSettings
from service.ui import games
from service.ui.cuartetos import CuartetosPainter
from service.ui.intents import Move

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


def bot(room: Room, seat: int, at: float) -> Outcome:
    """The seat's bot acts at `at`, as the bot_turn job has it do."""
    return play.bot_turn(room, seat, play.bot_action(room, seat), at, 0.0)


def game(room: Room) -> GameState:
    assert isinstance(room.game, GameState)
    return room.game


def test_button_data_fits_64_bytes_and_round_trips() -> None:
    cards = pack(("A", "K", "Q", "J", "10", "9", "8", "7"))
    for action in ["burro", "respond", "fake:Barro", *(f"pass:{c}" for c in cards)]:
        data = callbacks.encode("abcdefgh", 999_999_999, callbacks.token(Move(action)))
        assert len(data.encode()) <= 64
        press = callbacks.decode(data)
        assert press is not None
        back = callbacks.intent_of(press.action)
        assert back == Move("fake" if action.startswith("fake:") else action)


def test_cuartetos_in_the_lobby_with_its_own_settings() -> None:
    room = lobby.create_room(-5, None, ANA, 0.0)
    while room.settings.preset != "cuartetos":
        assert lobby.change_setting(room, ANA, "preset").changed
    assert room.settings.preset == "cuartetos" and lobby.seat_limit(room) == 8
    seen = set()
    for _ in range(len(PACES)):
        lobby.change_setting(room, ANA, "pace")
        rules = table_games.rules_of(room.settings)
        assert isinstance(rules, CuartetosRules)
        seen.add((rules.pass_window, rules.response_window))
    assert seen == set(PACES)
    letters = set()
    for _ in range(len(TARGETS)):
        lobby.change_setting(room, ANA, "target")
        letters.add(table_games.rules_of(room.settings).target)
    assert letters == set(TARGETS)
    for key in ("hand", "empty", "timeout", "ontimeout"):  # follow-suit only
        assert not lobby.change_setting(room, ANA, key).changed
    for key in ("suits", "remind", "lang", "bot", "quiet", "tz"):
        assert lobby.change_setting(room, ANA, key).changed
    assert "Option(key='pace')" in str(games.painter(room, "en").settings())
    lobby.join(room, BEN)
    refused = lobby.start(room, ANA, 0.0)  # two players: three are needed
    assert refused.popup is not None and room.status == "lobby"
    assert table_games.preset_named("CUARTETOS") == "cuartetos"


def test_a_phase_schedules_its_close_and_its_bots() -> None:
    room = table(bots=2)
    assert room.phase_version == room.version
    close = Outcome()
    play.begin_phase(room, START, close, bot_delay=0.0)
    kinds = sorted((j.kind, j.arg) for j in close.jobs)
    version = str(room.phase_version)
    assert kinds == [
        (JobKind.BOT_TURN, f"{version}:3"),
        (JobKind.BOT_TURN, f"{version}:4"),
        (JobKind.DEADLINE, version),
    ]
    assert next(j.at for j in close.jobs if j.kind == JobKind.DEADLINE) == deadline_of(game(room))
    # A choice keeps the phase: buttons of the phase stay good for the others.
    phase = room.phase_version
    card = game(room).hand.hands[0][0]
    play.act(room, 0, f"pass:{card}", START + 1, 0.0)
    assert room.phase_version == phase and room.version > phase
    assert callable(play.press(room, phase, BEN.user_id, "pass:" + card, START, 0.0))
    # A fake call opens a new phase: the old buttons are out of date.
    outcome = play.act(room, 1, "fake", START + 2, 0.0)
    assert room.phase_version == room.version > phase
    stale = play.press(room, phase, CARLA.user_id, "respond", START + 3, 0.0)
    assert isinstance(stale, Outcome) and stale.popup is not None
    assert {j.kind for j in outcome.jobs} >= {JobKind.DEADLINE, JobKind.BOT_TURN}


def test_slow_tables_remind_and_post_calls_anew() -> None:
    room = table(bots=1, pass_window=4 * 3600.0, response_window=1800.0)
    room.settings.reminder_after = 3600
    outcome = Outcome()
    play.begin_phase(room, START, outcome, bot_delay=0.0)
    remind = [j for j in outcome.jobs if j.kind == JobKind.REMIND]
    assert remind and remind[0].at == START + 3600
    nudge = play.remind(room)
    assert nudge.changed and "nudge" in nudge.sync and "hand:1:new" in nudge.sync
    assert not play.remind(room).changed  # once per phase
    called = play.act(room, 0, "fake", START + 10, 0.0)
    assert "hand:2:new" in called.sync and "hand:3:new" in called.sync
    assert "hand:1" in called.sync  # the caller's screen is edited, not posted again


def test_the_sweeper_finds_what_a_room_needs() -> None:
    room = table(bots=1)
    job = play.missing_job(room, START)
    assert job is not None and job.kind == JobKind.BOT_TURN
    assert job.arg == f"{room.phase_version}:3"
    bot(room, 3, START + 0.5)
    assert room.bots_waiting() == []
    assert room.next_due() == room.deadline
    later = play.missing_job(room, START + 1)
    assert later is not None and later.kind == JobKind.REMIND
    due = play.missing_job(room, deadline_of(game(room)) or 0.0)
    assert due is not None and due.kind == JobKind.DEADLINE


@pytest.mark.parametrize("level", ["easy", "heuristic"])
def test_bots_answer_fakes_as_their_level_is_fooled(level: str) -> None:
    fooled = calls = 0
    for seed in range(60):
        room = table(bots=1, level=level, seed=seed)
        play.act(room, 0, "fake", START + 1, 0.0)
        calls += 1
        call = game(room).hand.call
        assert call is not None
        before = len(call.responses)
        bot(room, 3, START + 1.5)
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
                    bot(room, seat, t)
                else:
                    play.act(room, seat, "respond", t, 0.0)
            continue
        for seat in to_move(g):
            if room.is_bot_seat(seat):
                bot(room, seat, t)
            else:
                hand = g.hand.hands[seat]
                counts = {c[:-1]: sum(x[:-1] == c[:-1] for x in hand) for c in hand}
                if max(counts.values()) == 4:
                    play.act(room, seat, "burro", t, 0.0)
                else:
                    play.act(room, seat, "pass:" + min(hand, key=lambda c: counts[c[:-1]]), t, 0.0)
            break
    lines = [line for line in room.log if line.kind == "real_call"]
    assert lines and lines[0].losers and len(lines[0].order) == 3  # everyone answered
    # /export's record of the won hand replays to the same result, receive times and all.
    g = game(room)
    number = next(i for i in range(table_games.finished_hands(room)) if g.past[i].end == "burro")
    record = read_record(json.dumps(table_games.hand_record(room, number)))
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
        painter = CuartetosPainter(room, lang)
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
                bot(room, seat, t)
            elif g.hand.call is None or rnd.random() < 0.5:
                play.act(room, seat, rnd.choice(legal_actions(g, seat)), t, 0.0)
        else:
            t = max(t, deadline_of(g) or t)
            play.expire(room, t, 0.0)


def test_a_room_with_a_passing_game_survives_json() -> None:
    room = table(bots=1)
    play.act(room, 0, "fake", START + 1, 0.0)
    back = Room.model_validate_json(room.model_dump_json())
    assert back == room and isinstance(back.game, GameState)
    assert table_games.finished_hands(back) == 0
