"""An ended room is kept for the retention period as its game's moves, packed
(service.table.packed_games): it loads as it was, exports the same bytes and replays the
same, and rooms stored whole (playing ones, older releases', a game its moves cannot
give back) load as before."""

from __future__ import annotations

import json
import random
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from engine.kernel.packing import Packed, unpack
from engine.kernel.protocol import Game
from engine.registry import find_game
from service.infra.store import decode_room, encode_room
from service.table import games as table_games
from service.table import packed_games
from service.table.room import Room, RoomSettings, Seat

T0 = 1_790_000_000.0
TABLES = [("spanish", 2), ("cangkul", 4), ("burro_em_pe", 3), ("cuartetos", 4)]


def played_room(preset: str, seats: int, status: str = "over", cap: int = 3000) -> Room:
    """A room of `seats` whose game random legal moves played to its end (or `cap`
    moves), seconds apart, the game's own deadline passing now and then."""
    room = Room(
        id="k3ptr00m",
        chat_id=-1001000000001,
        creator=1,
        settings=RoomSettings(preset=preset),
        seats=[Seat(user_id=n + 1, name=f"Ña{n}") for n in range(seats)],
    )
    game = find_game(preset)[0]
    state = game.new_game(table_games.rules_of(room.settings), seats, room.seed, T0)
    rnd, at = random.Random(seats), T0
    for _ in range(cap):
        if game.result(state) is not None:
            break
        at += rnd.random() * 8  # seconds: now and then past a window of the passing game
        due = game.deadline(state)
        if due is not None and at >= due:
            state = game.expire(state, at)[0]
            continue
        seat = rnd.choice(game.to_act(state))
        state = game.apply(state, seat, rnd.choice(game.legal_actions(state, seat)), at)[0]
    room.game, room.status = state, status  # type: ignore[assignment]
    return room


def stored_doc(data: bytes) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(zlib.decompress(data))
    return doc


def forget_recent() -> None:
    """As a fresh process: nothing packed or rebuilt lately."""
    packed_games._recent.clear()


def exports(room: Room) -> list[bytes]:
    """Every finished hand's record as /export sends it."""
    game = find_game(room.settings.preset)[0]
    hands = range(game.finished_hands(room.game))
    return [json.dumps(game.hand_record(room.game, k), indent=1).encode() for k in hands]


def replayed(tmp_path: Path, record: bytes, capsys: pytest.CaptureFixture[str]) -> str:
    path = tmp_path / "record.json"
    path.write_bytes(record)
    assert main(["replay", str(path), "--trace"]) == 0
    out: str = capsys.readouterr().out
    return out


@pytest.mark.parametrize(("preset", "seats"), TABLES)
def test_an_ended_room_is_kept_as_its_moves_and_exports_the_same_bytes(
    preset: str, seats: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    room = played_room(preset, seats)
    before = exports(room)
    assert before, "a hand finished"
    whole = zlib.compress(room.model_dump_json().encode())
    forget_recent()
    stored = encode_room(room)
    doc = stored_doc(stored)
    assert "game" not in doc and doc["packed_game"]["preset"] == preset
    assert len(stored) * 2 < len(whole)
    forget_recent()
    loaded = decode_room(stored)  # replayed from its moves
    assert loaded == room
    after = exports(loaded)
    assert after == before  # /export: the same bytes
    trace = replayed(tmp_path, before[-1], capsys)
    assert replayed(tmp_path, after[-1], capsys) == trace  # burro replay: the same output
    assert encode_room(loaded) == stored


def test_a_room_ended_mid_hand_keeps_the_hand_in_play() -> None:
    room = played_room("spanish", 3, status="cancelled", cap=25)
    game = find_game("spanish")[0]
    assert game.result(room.game) is None
    stored = encode_room(room)
    assert "packed_game" in stored_doc(stored)
    forget_recent()
    assert decode_room(stored) == room


def test_a_playing_room_keeps_its_whole_game() -> None:
    room = played_room("spanish", 2, status="playing", cap=10)
    doc = stored_doc(encode_room(room))
    assert room.game is not None  # a short hand may already be over: any hand will do
    assert "packed_game" not in doc and doc["game"]["hand_no"] == room.game.hand_no


def test_a_game_its_moves_cannot_give_back_is_kept_whole() -> None:
    """A game whose key changed after its first deal (a legacy key replaced): its moves
    replayed from the key it has now deal other cards, so it is stored whole."""
    room = played_room("cangkul", 4)
    room.game = replace(room.game, seed=room.game.seed + 1)
    stored = encode_room(room)
    assert "packed_game" not in stored_doc(stored)
    assert decode_room(stored) == room


def test_a_game_the_packing_stumbles_on_is_kept_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(game: Game, state: Any) -> Packed:
        raise KeyError("a bug")

    monkeypatch.setattr(packed_games, "pack", broken)
    room = played_room("spanish", 2)
    stored = encode_room(room)
    assert "packed_game" not in stored_doc(stored)
    assert decode_room(stored) == room


@pytest.mark.parametrize(("preset", "seats"), [("spanish", 2), ("cuartetos", 4)])
def test_an_ended_room_stored_whole_by_an_older_release_still_loads(
    preset: str, seats: int
) -> None:
    room = played_room(preset, seats)
    older = room.model_dump_json()
    assert decode_room(zlib.compress(older.encode())) == room
    assert decode_room(older) == room
    assert "packed_game" in stored_doc(encode_room(decode_room(older)))  # packed once saved


def test_an_ended_room_saved_or_loaded_lately_loads_without_a_replay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    replays: list[Packed] = []

    def counted(game: Game, form: Packed) -> Any:
        replays.append(form)
        return unpack(game, form)

    monkeypatch.setattr(packed_games, "unpack", counted)
    room = played_room("cangkul", 4)
    stored = encode_room(room)
    assert decode_room(stored).game is room.game and not replays  # saved here: kept
    forget_recent()
    first, again = decode_room(stored), decode_room(stored)
    assert again.game is first.game and len(replays) == 1


def test_packed_data_of_another_game_is_refused() -> None:
    doc = stored_doc(encode_room(played_room("spanish", 2)))
    doc.setdefault("settings", {})["preset"] = "cuartetos"  # spanish, the default, is left out
    forget_recent()
    with pytest.raises(ValueError, match="packed"):
        decode_room(json.dumps(doc))
