"""Passing-game records and `burro replay` (docs/interfaces.md sections 3 and 4, Family B),
golden playthroughs, and the record reader's errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from engine.cuartetos.game import word
from engine.cuartetos.records import hand_record, iso, read_record
from engine.cuartetos.replay import trace
from engine.cuartetos.rules import PRESETS
from engine.follow_suit.records import Record
from engine.records import read_any_record
from tests.cuartetos.playthroughs.regenerate import GOLDEN, play_hand
from tests.cuartetos.tables import ODD_CARDS, act, table

PLAYTHROUGHS = Path(__file__).resolve().parent / "playthroughs"


def golden(name: str = "cuartetos") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PLAYTHROUGHS / f"{name}.record.json").read_text())
    return data


def run_replay(
    tmp_path: Path, record: Any, *flags: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[str], str]:
    path = tmp_path / "record.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    status = main(["replay", str(path), *flags])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


# legacy/: goldens dealt before deals became keyed, which must still replay exactly.
@pytest.mark.parametrize("name", [*sorted(GOLDEN), *(f"legacy/{n}" for n in sorted(GOLDEN))])
def test_golden_playthrough(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = [
        json.loads(x) for x in (PLAYTHROUGHS / f"{name}.trace.jsonl").read_text().splitlines()
    ]
    status, lines, err = run_replay(tmp_path, golden(name), "--trace", capsys=capsys)
    assert (status, err) == (0, "")
    assert [json.loads(x) for x in lines] == expected
    assert expected[-1]["result"]["finished"]


def test_golden_records_are_what_the_engine_plays_today() -> None:
    for name, spec in GOLDEN.items():
        assert play_hand(*spec) == golden(name), name


def test_goldens_cover_the_hand_endings() -> None:
    ends = {
        name: json.loads((PLAYTHROUGHS / f"{name}.trace.jsonl").read_text().splitlines()[-1])
        for name in GOLDEN
    }
    assert ends["cuartetos"]["result"]["winner"] is not None  # a real call
    assert {x["reason"] for x in ends["cuartetos"]["result"]["letters"]} >= {
        "fooled",
        "false_call",
        "slowest",
    }
    assert [x["reason"] for x in ends["cuartetos_cap"]["result"]["letters"]][-1] == "fewest"
    assert golden("cuartetos_removed")["game"]["hand_no"] == 2


def test_trace_lines_for_simultaneous_moves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = table()
    game, _ = act(start, *ODD_CARDS[:2], "2:fake@2.0", "0:respond@2.5")
    record = hand_record(game)
    status, lines, _ = run_replay(tmp_path, record, "--trace", capsys=capsys)
    steps = [json.loads(x) for x in lines]
    assert status == 0 and len(steps) == 5
    assert steps[0] == {
        "step": 0,
        "to_move": [0, 1, 2, 3, 4],
        "legal": {
            str(s): sorted(["burro", f"fake:{word(start)}", *(f"pass:{c}" for c in hand)])
            for s, hand in enumerate(start.hand.hands)
        },
        "hands": [4, 4, 4, 4, 4],
        "stock": 0,
    }
    assert steps[2]["to_move"] == [2, 3, 4]  # 0 and 1 have chosen
    assert steps[3] == {
        "step": 3,
        "to_move": [0, 1, 3, 4],
        "legal": {"0": ["respond"], "1": ["respond"], "3": ["respond"], "4": ["respond"]},
        "hands": [4, 4, 4, 4, 4],
        "stock": 0,
    }
    assert steps[4] == {
        "result": {
            "finished": False,
            "burro": None,
            "winner": None,
            "out": [],
            "losers": [],
            "letters": [],
        }
    }


def test_human_replay_tells_the_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run_replay(tmp_path, golden(), capsys=capsys)
    text = "\n".join(lines)
    assert status == 0
    for words in ("Pass 1", "calls ¡Barro!", "calls ¡Burro!", "responds", "takes a letter"):
        assert words in text
    assert lines[-1].startswith("Seat 4 had four of a kind")


def test_both_families_are_read() -> None:
    spanish = Path(__file__).resolve().parent.parent / "playthroughs" / "spanish.record.json"
    assert isinstance(read_any_record(spanish.read_text()), Record)
    assert read_any_record(json.dumps(golden())) == read_record(json.dumps(golden()))


@pytest.mark.parametrize(
    ("change", "step"),
    [
        (lambda r: r["actions"].insert(1, {**r["actions"][0]}), 1),  # chose twice
        (lambda r: r["actions"].insert(0, {**r["actions"][0], "action": "fly"}), 0),
        (lambda r: r["actions"].insert(0, {**r["actions"][0], "action": "pass:9S"}), 0),
        (lambda r: r["actions"].insert(0, {**r["actions"][0], "seat": 5}), 0),
        (lambda r: r["actions"].insert(0, {**r["actions"][0], "seat": -1, "action": "close"}), 0),
        (lambda r: r["actions"].insert(0, {**r["actions"][0], "action": "respond"}), 0),
        (lambda r: r["actions"].append({**r["actions"][-1]}), None),  # after the end
    ],
    ids=["chose-twice", "unknown", "no-such-card", "no-seat", "close-early", "no-call", "over"],
)
def test_illegal_action_exit_1(
    change: Any, step: int | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = golden()
    change(record)
    step = len(record["actions"]) - 1 if step is None else step
    status, lines, err = run_replay(tmp_path, record, "--trace", capsys=capsys)
    assert status == 1
    assert json.loads(lines[-1])["step"] == step
    assert len(err.strip().splitlines()) == 1 and f"step {step}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: {k: v for k, v in r.items() if k != "seed"}, "seed"),
        (lambda r: {k: v for k, v in r.items() if k != "dealt_at"}, "dealt_at"),
        (lambda r: {**r, "dealt_at": "yesterday"}, "ISO 8601"),
        (lambda r: {**r, "dealt_at": "2025-05-01T16:00:00"}, "time zone"),
        (lambda r: {**r, "actions": [{"seat": 0, "action": "pass:AC"}]}, "at"),
        (lambda r: {**r, "rules": {"preset": "cuartetos", "options": {"wings": 1}}}, "unknown"),
        (lambda r: {**r, "rules": {"preset": "cuartetos", "options": {"target": 9}}}, "target"),
        (lambda r: {**r, "seats": 9}, "3 to 8 players"),
        (lambda r: {**r, "seats": 4, "game": {}}, "pack"),
        (lambda r: {**r, "dealer": 5}, "dealer"),
        (lambda r: {**r, "deck": [*r["deck"][:-1], "9S"]}, "not a card"),
        (lambda r: {**r, "deck": [*r["deck"][:-1], r["deck"][0]]}, "more than once"),
        (lambda r: {**r, "game": {**r["game"], "letters": [5, 0, 0, 0, 0]}}, "lost already"),
        (lambda r: {**r, "game": {**r["game"], "letters": [0, 0]}}, "per seat"),
        (lambda r: {**r, "game": {**r["game"], "removed": [7]}}, "removed"),
        (lambda r: {**r, "game": {**r["game"], "removed": [1, 2, 3]}}, "players left"),
        (lambda r: {**r, "game": {**r["game"], "removed": [0]}}, "dealer"),
        (lambda r: {**r, "game": {**r["game"], "hand_no": 0}}, "hand_no"),
    ],
)
def test_malformed_record_exit_2(
    change: Any, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, lines, err = run_replay(tmp_path, change(golden()), "--trace", capsys=capsys)
    assert status == 2 and lines == []
    assert len(err.strip().splitlines()) == 1 and words in err, err


def test_times_are_iso_8601_to_the_microsecond() -> None:
    assert iso(1_746_115_203_120_000) == "2025-05-01T16:00:03.120000Z"
    record = read_record(json.dumps(golden()))
    assert record.actions[0][2] == 1_746_115_202_868_103
    other_zone = {**golden(), "dealt_at": "2025-05-01T18:00:00+02:00"}
    assert read_record(json.dumps(other_zone)).dealt_at == record.dealt_at


def test_the_record_of_a_running_hand_replays_to_it() -> None:
    game, _ = act(table(), *ODD_CARDS, "3:fake@5.0", "0:respond@5.5")
    *_, last = trace(read_record(json.dumps(hand_record(game))))
    assert last["result"]["finished"] is False


def test_console_script_runs(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(golden()))
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "replay", str(path), "--trace"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert all(json.loads(line) for line in done.stdout.splitlines())


def test_every_cuartetos_preset_has_a_golden_playthrough() -> None:
    covered = {golden(name)["rules"]["preset"] for name in GOLDEN}
    assert set(PRESETS) <= covered
