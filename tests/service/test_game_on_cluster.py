"""A whole game with the game state on a 3-primary Valkey/Redis Cluster (a replica each,
moves answered once a replica has them) and RQ on a Redis of its own: `serve` and a
worker in their own processes, the family in the local Telegram. What the chats show is
what they show on one Redis; every key of the room lies in its one slot."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import pytest

from cli.stack import Stack
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage, EmulatorError
from service.infra.keys import INDEXES, ROOM_PATTERN, index_key, room_of_key
from service.infra.redis_cluster import LocalCluster
from service.infra.redis_server import connect
from service.infra.store import Store, text
from service.table.buckets import STRIDE, slot_of
from tests.service.conftest import make_stack
from tests.service.play import action_button, game_buttons

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def on_cluster(
    emu: RunningEmulator, cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    folder = tmp_path_factory.mktemp("stack")
    env = {"BURRO_DURABLE_REPLICAS": "1", "BURRO_DURABLE_WAIT_MS": "2000"}
    with make_stack(emu, folder, cluster_url=cluster.url, env=env) as running:
        yield running


def test_a_game_against_bots_is_played_to_its_end(emu: RunningEmulator, on_cluster: Stack) -> None:
    emu.send_message("Carla", "Carla", "/play")
    lobby = emu.wait_for_message("Carla", lambda m: action_button(m, "S") is not None)
    start = action_button(lobby, "S")
    assert start is not None
    emu.tap("Carla", lobby, start)
    state = on_cluster.state()
    store = Store(state, 3600, 3600, jobs=connect(on_cluster.redis.url))
    moves, played = 0, ""
    while moves < 400:
        message = emu.wait_for(lambda: playable_or_over(emu), what="Carla's cards or the end")
        buttons = game_buttons(message)
        if not buttons:
            break
        room_id, version, _move = str(buttons[0].value).split(".")
        played = room_id
        try:
            emu.tap("Carla", message, str(buttons[0].value))
        except EmulatorError:  # the message changed meanwhile (a bot moved): read it again
            continue
        moves += 1
        emu.wait_for(partial(moved, store, room_id, int(version)), what="the move applied")
    assert 3 < moves < 400
    assert slot_of(played) % STRIDE == 0  # drawn into a bucket's slot
    for index in INDEXES:  # its entries, if any, in its own slot
        assert slot_of(played) == state.keyslot(index_key(index, played))  # type: ignore[attr-defined]
    rooms = {room_of_key(text(k)) for k in state.scan_iter(match=ROOM_PATTERN)}
    assert played in rooms, "the room is on the cluster"
    over = store.load(played)
    assert over is not None and over.status == "over"
    assert not list(connect(on_cluster.redis.url).scan_iter(match="game:*"))  # RQ's alone


def moved(store: Store, room_id: str, version: int) -> bool | None:
    room = store.load(room_id)
    return (room is not None and room.version > version) or None


def playable_or_over(emu: RunningEmulator) -> ChatMessage | None:
    """Carla's last message once it offers cards, or shows the game's end (a rematch)."""
    message = emu.last_message("Carla")
    if message is None:
        return None
    if game_buttons(message) or "🔁" in " ".join(message.button_texts):
        return message
    return None
