"""Records and `burro replay` (docs/interfaces.md sections 3 and 4), and golden playthroughs."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from engine.follow_suit.game import apply, legal_actions, new_game, to_move
from engine.follow_suit.records import hand_record, read_record
from engine.follow_suit.replay import trace
from engine.follow_suit.rules import PRESETS, make_rules
from tests.playthroughs.regenerate import GOLDEN, play_first_hand

PLAYTHROUGHS = Path(__file__).resolve().parent.parent / "playthroughs"


def spanish_record() -> dict[str, Any]:
    record: dict[str, Any] = json.loads((PLAYTHROUGHS / "spanish.record.json").read_text())
    return record


def run_replay(
    tmp_path: Path, record: Any, *flags: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[str], str]:
    path = tmp_path / "record.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    status = main(["replay", str(path), *flags])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


# legacy/: goldens dealt by the engine before deals became keyed; records kept by families
# then must replay exactly as they did.
@pytest.mark.parametrize("name", [*sorted(GOLDEN), *(f"legacy/{n}" for n in sorted(GOLDEN))])
def test_golden_playthrough(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = json.loads((PLAYTHROUGHS / f"{name}.record.json").read_text())
    expected = [
        json.loads(x) for x in (PLAYTHROUGHS / f"{name}.trace.jsonl").read_text().splitlines()
    ]
    status, lines, err = run_replay(tmp_path, record, "--trace", capsys=capsys)
    assert (status, err) == (0, "")
    assert [json.loads(x) for x in lines] == expected
    assert expected[-1]["result"]["finished"]


def test_every_preset_has_a_golden_playthrough() -> None:
    covered = {spec[0] for spec in GOLDEN.values()}
    missing = set(PRESETS) - covered
    assert not missing, f"presets without a golden playthrough: {sorted(missing)}"
    for name in GOLDEN:
        assert (PLAYTHROUGHS / f"{name}.record.json").exists()
        assert (PLAYTHROUGHS / f"{name}.trace.jsonl").exists()


def test_golden_records_are_what_the_engine_plays_today() -> None:
    """The records were made by random legal play; the engine must still play them so."""
    for name, spec in GOLDEN.items():
        record = json.loads((PLAYTHROUGHS / f"{name}.record.json").read_text())
        assert play_first_hand(*spec) == record, name


def test_trace_line_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = spanish_record()
    status, lines, _ = run_replay(tmp_path, record, "--trace", capsys=capsys)
    assert status == 0
    first = json.loads(lines[0])
    assert first["step"] == 0 and first["to_move"] == [(record["dealer"] - 1) % 4]
    assert first["hands"] == [4, 4, 4, 4] and first["stock"] == 24
    assert first["legal"][str(first["to_move"][0])] == sorted(
        first["legal"][str(first["to_move"][0])]
    )
    assert len(lines) == len(record["actions"]) + 1


def test_human_replay_tells_the_deal_tricks_and_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, lines, _ = run_replay(tmp_path, spanish_record(), capsys=capsys)
    text = "\n".join(lines)
    assert status == 0
    assert "Trick 1:" in text and "wins the trick" in text and "is the burro" in text
    assert any(symbol in text for symbol in "♠♥♦♣")


def test_partial_record_is_unfinished(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = spanish_record()
    record["actions"] = record["actions"][:5]
    status, lines, _ = run_replay(tmp_path, record, "--trace", capsys=capsys)
    assert status == 0
    assert json.loads(lines[-1]) == {
        "result": {"finished": False, "burro": None, "winner": None, "out": []}
    }


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["actions"].__setitem__(
            0, {"seat": (r["actions"][0]["seat"] + 1) % 4, "action": "draw"}
        ),
        lambda r: r["actions"].__setitem__(0, {"seat": r["actions"][0]["seat"], "action": "draw"}),
        lambda r: r["actions"].__setitem__(0, {"seat": r["actions"][0]["seat"], "action": "fly"}),
        lambda r: r["actions"].__setitem__(
            0, {"seat": r["actions"][0]["seat"], "action": "play:9H"}
        ),
        lambda r: r["actions"].append({"seat": 0, "action": "pass"}),
    ],
    ids=["not-to-move", "leader-draws", "unknown-action", "card-not-in-deck", "after-the-end"],
)
def test_illegal_action_exit_1(
    change: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = spanish_record()
    length = len(record["actions"])
    change(record)
    status, lines, err = run_replay(tmp_path, record, "--trace", capsys=capsys)
    bad = length if len(record["actions"]) > length else 0
    assert status == 1
    assert json.loads(lines[-1])["step"] == bad  # the step line for it is printed
    assert len(err.strip().splitlines()) == 1 and f"step {bad}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: "{not json", "not JSON"),
        (lambda r: [], "JSON object"),
        (lambda r: {**r, "format": "burro-record/2"}, "format"),
        (lambda r: {**r, "rules": {"preset": "poker"}}, "unknown preset"),
        (
            lambda r: {**r, "rules": {"preset": "spanish", "options": {"wings": 2}}},
            "unknown option",
        ),
        (
            lambda r: {**r, "rules": {"preset": "spanish", "options": {"direction": "up"}}},
            "direction",
        ),
        (lambda r: {**r, "seats": 9}, "2 to 8 players"),
        (lambda r: {**r, "seats": "4"}, "seats"),
        (lambda r: {**r, "dealer": 4}, "dealer"),
        (lambda r: {**r, "deck": r["deck"][:-1]}, "deck"),
        (lambda r: {**r, "deck": [*r["deck"][:-1], r["deck"][0]]}, "more than once"),
        (lambda r: {**r, "deck": [*r["deck"][:-1], "10H"]}, "not a card"),
        (lambda r: {**r, "actions": [{"seat": 0}]}, "actions"),
        (lambda r: {**r, "rules": {"preset": "burro_em_pe"}}, "seed"),
        (lambda r: {**r, "rules": {"preset": "spanish", "options": {"hand_size": 10}}}, "stock"),
    ],
)
def test_malformed_record_exit_2(
    change: Any, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = change(spanish_record())
    if isinstance(record, dict) and record.get("rules", {}).get("preset") == "burro_em_pe":
        record["deck"] = json.loads((PLAYTHROUGHS / "burro_em_pe.record.json").read_text())["deck"]
        record["seats"] = 3
    text = record if isinstance(record, str) else json.dumps(record)
    status, lines, err = run_replay(tmp_path, text, "--trace", capsys=capsys)
    assert status == 2 and lines == []
    assert len(err.strip().splitlines()) == 1 and words in err, err


def test_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_console_script_runs(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(spanish_record()))
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "replay", str(path), "--trace"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert all(json.loads(line) for line in done.stdout.splitlines())


def test_export_running_and_finished_hands_replays_exactly() -> None:
    from engine.follow_suit.game import apply, legal_actions, new_game, to_move
    from engine.follow_suit.rules import make_rules

    game = new_game(make_rules("burro_em_pe"), 3, 99)
    import random

    rnd = random.Random(5)
    while (seat := to_move(game)) is not None and game.hand_no < 3:
        game, _ = apply(game, seat, rnd.choice(legal_actions(game, seat)))
        running = read_record(json.dumps(hand_record(game)))
        *_, last = trace(running)
        assert last["result"]["finished"] == bool(game.hand.end)
    for index, hand in enumerate(game.past):
        *_, last = trace(read_record(json.dumps(hand_record(game, index))))
        assert last["result"]["finished"]
        assert last["result"]["winner"] == (hand.winner if hand.winner >= 0 else None)


def test_replay_takes_cangkul_with_its_documented_hand_end_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/rules.md names last_holder_loses as cangkul's option: a record that sets only it
    replays (scoring follows), and finds a burro."""
    game = new_game(make_rules("cangkul", {"hand_end": "last_holder_loses"}), 4, 3)
    moves = random.Random(1)
    while (seat := to_move(game)) is not None and not game.past:
        game, _ = apply(game, seat, moves.choice(legal_actions(game, seat)))
    record = {**hand_record(game, 0)}
    record["rules"] = {"preset": "cangkul", "options": {"hand_end": "last_holder_loses"}}
    status, lines, err = run_replay(tmp_path, record, "--trace", capsys=capsys)
    assert (status, err) == (0, "")
    assert json.loads(lines[-1])["result"]["burro"] is not None
