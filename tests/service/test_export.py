"""/export through python-telegram-bot and the emulator: while a game runs, a finished
hand's record goes to the table's players (and the group's admins) only, and it tells
nothing of the hands to come: no key, only that hand's own deck and seed."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from engine.follow_suit.game import GameState, apply, legal_actions, to_move
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room
from tests.service.inproc import ANA, BEN, GROUP, Hook, command, person, running_hook

DAN = person(100004, "Dan")  # in the group, not at the table


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_hook(tmp_path_factory.mktemp("export")) as running:
        yield running


def first_hand_played(room: Room) -> Outcome:
    """Ben joins, the game starts, and hand 1 is played out by random legal moves."""
    lobby.join(room, Actor(BEN["id"], "Ben", "en"))
    lobby.start(room, Actor(ANA["id"], "Ana", "en"), 0.0)
    game = room.game
    assert isinstance(game, GameState)
    rnd = random.Random(3)
    while (seat := to_move(game)) is not None and not game.past:
        game, _ = apply(game, seat, rnd.choice(legal_actions(game, seat)))
    room.game = game
    return Outcome(changed=True)


def documents(hook: Hook) -> list[dict[str, object]]:
    return [m.document for m in hook.emu.messages_in("Family") if m.document is not None]


def test_only_the_tables_players_export_a_running_game(hook: Hook) -> None:
    hook.send(command("/burro burro_em_pe", ANA, GROUP))
    room = hook.room(GROUP)
    assert room.settings.preset == "burro_em_pe"
    done = hook.store().update(room.id, first_hand_played)
    assert done is not None
    room = done[0]
    assert room.status == "playing" and isinstance(room.game, GameState)

    hook.fresh_budget()  # a chat may take a message a second: this test is not about that
    hook.send(command("/export", DAN, GROUP))
    refusal = hook.emu.wait_for_message("Family", lambda m: "only its players" in m.text)
    assert refusal.document is None and not documents(hook)

    hook.fresh_budget()
    hook.send(command("/export 1", BEN, GROUP))
    hook.emu.wait_for_message("Family", lambda m: m.document is not None)
    (document,) = documents(hook)
    assert document["file_name"] == f"burro-{room.id}-hand1.json"
    record = json.loads(hook.emu.emulator.world.files[str(document["file_id"])].content)
    assert record["seed"] == room.game.past[0].seed != room.game.seed
    assert str(room.game.seed) not in json.dumps(record)  # the key is nowhere in it


def test_a_file_over_the_flood_budget_becomes_a_word_to_ask_again(hook: Hook) -> None:
    """A record is not kept waiting in Redis: with the group's budget spent, the chat is
    told to ask again, and that word waits for the budget like any reply."""
    room = hook.room(GROUP)
    before = len(documents(hook))
    hook.fresh_budget()
    hook.redis.set(f"limit:chat:{GROUP}", "9999999999")  # the chat's budget is spent
    hook.send(command("/export 1", BEN, GROUP))
    hook.redis.delete(f"limit:chat:{GROUP}")
    assert hook.run_jobs(hook.runtime(), ("notice",)) == 1
    hook.emu.wait_for_message("Family", lambda m: "send /export again" in m.text)
    assert len(documents(hook)) == before and room.status == "playing"
