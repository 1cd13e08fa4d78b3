"""Bots answer a call at human speeds, each level its own spread (issue #37), and the
bench that measures a human's chance against them."""

from __future__ import annotations

import random
from statistics import mean

import pytest

from bench import calls
from engine.cuartetos.bots import LEVELS, STYLES, make_bot
from engine.cuartetos.state import GameState
from service.table import lobby, play
from service.table.cuartetos.table import TABLE
from service.table.lobby import Actor
from service.table.outcome import JobKind, Outcome
from service.table.room import Room, RoomSettings

ANA = Actor(1, "Ana", "es")
START = 1_800_000_000.0


def called(level: str, seed: int, bot_delay: float = 0.0) -> tuple[Room, Outcome]:
    """Ana and three bots of `level`; Ana has shouted a fake call: a call is open."""
    settings = RoomSettings(preset="cuartetos", bot_level=level)
    room = lobby.create_room(1, None, ANA, START, settings=settings)
    room.private = True
    room.seed = (1 << 127) | seed
    for _ in range(3):
        lobby.add_bot(room, ANA)
    room.seats[1].bot = room.seats[2].bot = room.seats[3].bot = level  # random too
    assert lobby.start(room, ANA, START).changed
    outcome = play.act(room, 0, "fake", START + 1, bot_delay)
    assert isinstance(room.game, GameState) and room.game.hand.call is not None
    return room, outcome


def delay(level: str, seed: int, seat: int = 1) -> float:
    room, _ = called(level, seed)
    return TABLE.think_time(room, room.game, seat)


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_answers_a_call_within_its_levels_spread(level: str) -> None:
    low, high = make_bot(level).react
    assert 0.8 <= low < high <= 4.0  # a person's 1 to 3 s, from the call
    times = [delay(level, seed) for seed in range(40)]
    assert all(low <= t <= high for t in times)
    assert len(set(times)) == len(times)  # drawn anew for every call


def test_the_same_call_gives_the_same_delay() -> None:
    assert delay("easy", 5, seat=2) == delay("easy", 5, seat=2)


def test_stronger_bots_answer_sooner() -> None:
    middles = [mean(STYLES[level].react) for level in ("random", "easy", "heuristic", "strong")]
    assert middles == sorted(middles, reverse=True)


def test_a_call_schedules_each_bot_at_its_levels_speed() -> None:
    # the bot delay of a deployment (1.5 s, the default) leaves the spreads as they are
    _room, outcome = called("strong", 3, bot_delay=1.5)
    low, high = make_bot("strong").react
    bot_jobs = [job for job in outcome.jobs if job.kind == JobKind.BOT_TURN]
    assert len(bot_jobs) == 3
    assert all(START + 1 + low <= job.at <= START + 1 + high for job in bot_jobs)


def test_a_quicker_human_has_a_better_chance_and_stronger_bots_leave_less() -> None:
    results = calls.table(calls=400, seed=3)
    assert set(results) == {*LEVELS, "before #37"}
    for row in results.values():
        rates = [row[kind].rate for kind in ("quick", "typical", "slow")]
        assert rates == sorted(rates, reverse=True)
        assert all(c.low <= c.rate <= c.high for c in row.values())
    typical = [results[level]["typical"].rate for level in ("random", "easy", "heuristic")]
    assert typical == sorted(typical, reverse=True)
    assert results["strong"]["typical"].rate > results["before #37"]["typical"].rate


def test_one_call_is_lost_by_the_last_hand_down() -> None:
    rnd = random.Random(0)
    assert calls.not_last(lambda _r: 1.0, lambda _r: 2.0, 1, rnd, window=5.0)
    assert not calls.not_last(lambda _r: 2.5, lambda _r: 2.0, 1, rnd, window=5.0)
    assert not calls.not_last(lambda _r: 6.0, lambda _r: 7.0, 1, rnd, window=5.0)  # too slow


def test_the_bench_prints_every_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert calls.main(["--calls", "50", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert all(level in out for level in (*LEVELS, "before #37"))
    with pytest.raises(SystemExit):
        calls.main(["--calls", "0"])
