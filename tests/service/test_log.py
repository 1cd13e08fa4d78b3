"""A room's log: each line placed after the last, a run of one seat's draws one line, and
only this hand's lines and what the last hand's tell kept, at most MAX_LINES."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from service.table import log
from service.table.log import DROPPED_WHEN_OVER, MAX_LINES, LogKind, LogLine


@dataclass
class Holder:
    log: list[LogLine] = field(default_factory=list)


def some_line(rng: random.Random) -> LogLine:
    kind = rng.choice([LogKind.PLAY, LogKind.DRAW, LogKind.DRAW, LogKind.TRICK, LogKind.PASS])
    count = rng.randint(1, 3) if kind == LogKind.DRAW else 0
    return LogLine(kind=kind, seat=rng.randrange(3), count=count, forced=rng.random() < 0.1)


def test_a_run_of_draws_is_one_line_with_the_places_it_takes() -> None:
    room = Holder()
    log.append(room, LogLine(kind=LogKind.PLAY, seat=0, card="4H"), 1)
    log.append(room, LogLine(kind=LogKind.DRAW, seat=1, count=1, cards=["2S"]), 1)
    log.append(room, LogLine(kind=LogKind.DRAW, seat=1, count=2, cards=["3S", "KD"]), 1)
    play, drew = room.log
    assert (play.seq, drew.seq, drew.count, drew.cards, drew.first()) == (
        1,
        4,
        3,
        ["2S", "3S", "KD"],
        2,
    )


def test_a_new_hand_keeps_only_what_the_last_hand_tells() -> None:
    rng = random.Random(3)
    room = Holder()
    for hand_no in (1, 2, 3):
        for _ in range(40):
            log.append(room, some_line(rng), hand_no)
        told = [line for line in room.log if line.hand_no == hand_no - 1]
        assert all(line.forced or line.kind not in DROPPED_WHEN_OVER for line in told)
        assert {line.hand_no for line in room.log} <= {hand_no - 1, hand_no}
    seqs = [line.seq for line in room.log]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_a_long_hand_keeps_its_newest_lines() -> None:
    room = Holder()
    for n in range(MAX_LINES + 50):
        log.append(room, LogLine(kind=LogKind.PLAY, seat=n % 3, card="4H"), 1)
    assert len(room.log) == MAX_LINES
    assert room.log[-1].seq == MAX_LINES + 50 and room.log[0].seq == 51


def test_lines_stored_without_a_place_get_one_after_the_rest() -> None:
    room = Holder([LogLine(kind=LogKind.PLAY, seat=0, seq=5), LogLine(kind=LogKind.TRICK)])
    log.append(room, LogLine(kind=LogKind.PLAY, seat=1), 0)
    assert [line.seq for line in room.log] == [5, 6, 7]
